// Writes a certification report in every format the command line asked for, and prints the
// terminal summary. Shared by `dmlcert certify` and `dmlcert merge`.
#pragma once

#include <string>

#include "dmlcert/certification.h"

namespace dmlcert::cli {

struct ReportFiles {
  std::string json, junit, markdown, html;
};

// Returns false (after saying why on stderr) when a file cannot be written.
bool write_reports(const cert::Report& r, const ReportFiles& files);

}  // namespace dmlcert::cli

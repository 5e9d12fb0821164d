// Writes a certification report in every format the command line asked for. Shared by
// `dmlcert certify` and `dmlcert merge`.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "report.h"

namespace dmlcert::cli {

struct ReportFiles {
  std::string json, junit, markdown, html;
};

// --report, --junit, --markdown, --html.
void add_report_options(CLI::App& cmd, ReportFiles* files);
// Whether every asked-for file can be created, checked before a run starts; says which cannot.
bool can_write_reports(const ReportFiles& files, std::string* why);
// Returns false (after saying why on stderr, unless quiet) when a file cannot be written.
bool write_reports(const cert::Report& r, const ReportFiles& files, bool quiet = false);

}  // namespace dmlcert::cli

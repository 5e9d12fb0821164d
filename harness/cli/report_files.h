// Writes a certification report in every format the command line asked for, and reads a JSON one
// back. Shared by `dmlcert certify`, `dmlcert merge` and `dmlcert baseline`.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <optional>
#include <string>

#include "report.h"

namespace dmlcert::cli {

struct ReportFiles {
  std::string json, junit, markdown, html;
  // The backend's code coverage (docs/coverage.md): an lcov tracefile, and genhtml's pages of it.
  std::string coverage_lcov, coverage_html;
};

// --report, --junit, --markdown, --html.
void add_report_options(CLI::App& cmd, ReportFiles* files);
// Whether every asked-for file can be created, checked before a run starts; says which cannot.
bool can_write_reports(const ReportFiles& files, std::string* why);
// The code coverage files asked for (--coverage-lcov, --coverage-html); a report without coverage
// writes none and says why on stderr. False when a file cannot be written or genhtml failed.
bool write_code_coverage(const cert::Report& r, const ReportFiles& files, bool quiet = false);
// Returns false (after saying why on stderr, unless quiet) when a file cannot be written.
bool write_reports(const cert::Report& r, const ReportFiles& files, bool quiet = false);
// Reads a `dmlcert certify --report` JSON report, bounded as case files are (/dev/zero or a huge
// file is refused, not swallowed); nullopt after one line on stderr, "dmlcert COMMAND: PATH: why",
// when it cannot be read or is not such a report.
std::optional<cert::Report> read_report_file(const std::string& command, const std::string& path,
                                             uint64_t max_bytes);

}  // namespace dmlcert::cli

// dmlcert baseline: the known-failure list of a certification report, for `certify --expect`.
// It lists causes, not cells: which cells a data-dependent bug fails depends on the seed, the bug
// does not (docs/design.md, "Expected failures").
#include <iostream>

#include "cli_common.h"
#include "commands.h"
#include "expectations.h"
#include "report_files.h"

namespace dmlcert::cli {
namespace {

struct BaselineArgs {
  std::string input;
  uint64_t max_file_bytes = uint64_t{32} << 20;
};

int baseline(const BaselineArgs& a) {
  const auto report = read_report_file("baseline", a.input, a.max_file_bytes);
  if (!report) return kExitUsage;
  std::cout << cert::baseline_text(*report, a.input);
  return kExitPassed;
}

}  // namespace

void add_baseline_command(CLI::App& app) {
  auto [cmd, args] = add_command<BaselineArgs>(
      app, "baseline",
      "Print the known-failure list of a certification report, for `dmlcert certify --expect FILE`: one "
      "`cause \"NAME\" status=S` line per cause (the bug, whichever cells a seed makes it fail, so the "
      "list holds for other seeds), and a key line for a cell that failed with no failure on record. "
      "Edit the reasons, add expires=YYYY-MM-DD where a fix is planned.",
      baseline, "Exit status: 0 with the list printed; 2 when REPORT cannot be read or is not a report.");
  cmd->add_option("REPORT", args->input, "JSON report of `dmlcert certify --report`")->required();
  cmd->add_option("--max-file-bytes", args->max_file_bytes, "Refuse a report larger than this")
      ->check(integer_in(1, kMaxFileBytes))
      ->capture_default_str();
}

}  // namespace dmlcert::cli

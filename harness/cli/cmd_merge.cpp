// dmlcert merge: combines the JSON reports of certify shards into one report (and its other
// formats), as if the run had not been sharded.
#include <iostream>

#include "cli_common.h"
#include "commands.h"
#include "dmlcert/text.h"
#include "report_files.h"

namespace dmlcert::cli {
namespace {

struct MergeArgs {
  std::vector<std::string> inputs;
  ReportFiles files;
  uint64_t max_file_bytes = uint64_t{32} << 20;  // tens of thousands of failures
};

int merge(const MergeArgs& a) {
  if (std::string why; !can_write_reports(a.files, &why)) {
    std::cerr << "dmlcert merge: " << why << "\n";
    return kExitUsage;
  }
  std::vector<cert::Report> parts;
  for (const std::string& path : a.inputs) {
    auto r = read_report_file("merge", path, a.max_file_bytes);
    if (!r) return kExitUsage;
    parts.push_back(std::move(*r));
  }
  std::string error;
  auto merged = cert::merge(parts, &error);
  if (!merged) {
    std::cerr << "dmlcert merge: " << error << "\n";
    return kExitUsage;
  }
  std::cout << cert::to_text(*merged);
  if (!write_reports(*merged, a.files)) return kExitUsage;
  return cert::exit_status(*merged);
}

}  // namespace

void add_merge_command(CLI::App& app) {
  auto [cmd, args] = add_command<MergeArgs>(
      app, "merge",
      "Merge the JSON reports of `dmlcert certify --shard i/n` runs into one report: counts are "
      "summed per cell and rule, failures and repro files collected, and the verdict recomputed. "
      "Exit status 0 only when the merged report certifies the backend.",
      merge, "");
  cmd->add_option("REPORT", args->inputs, "JSON reports of the shards")->required();
  add_report_options(*cmd, &args->files);
  cmd->add_option("--max-file-bytes", args->max_file_bytes, "Refuse a report larger than this")
      ->check(integer_in(1, kMaxFileBytes))
      ->capture_default_str();
}

}  // namespace dmlcert::cli

// dmlcert merge: combines the JSON reports of certify shards into one report (and its other
// formats), as if the run had not been sharded.
#include <fstream>
#include <iostream>
#include <sstream>

#include "cli_common.h"
#include "commands.h"
#include "dmlcert/text.h"
#include "report_files.h"

namespace dmlcert::cli {
namespace {

struct MergeArgs {
  std::vector<std::string> inputs;
  ReportFiles files;
};

int merge(const MergeArgs& a) {
  if (std::string why; !can_write_reports(a.files, &why)) {
    std::cerr << "dmlcert merge: " << why << "\n";
    return kExitUsage;
  }
  std::vector<cert::Report> parts;
  for (const std::string& path : a.inputs) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    std::string error;
    auto r = in ? cert::report_from_json(text.str(), &error) : std::nullopt;
    if (!r) {
      // A case file or anything else that is not a certify report: say so in one line.
      std::cerr << "dmlcert merge: " << printable(path) << ": not a `dmlcert certify --report` JSON report ("
                << printable(in ? error : std::string("cannot read it"), 200) << ")\n";
      return kExitUsage;
    }
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
  auto args = std::make_shared<MergeArgs>();
  CLI::App* cmd = app.add_subcommand(
      "merge",
      "Merge the JSON reports of `dmlcert certify --shard i/n` runs into one report: counts are "
      "summed per cell and rule, failures and repro files collected, and the verdict recomputed. "
      "Exit status 0 only when the merged report certifies the backend.");
  cmd->add_option("REPORT", args->inputs, "JSON reports of the shards")->required();
  add_report_options(*cmd, &args->files);
  cmd->callback([args] { set_exit_status(merge(*args)); });
}

}  // namespace dmlcert::cli

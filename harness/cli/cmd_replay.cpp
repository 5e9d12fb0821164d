// dmlcert replay: every case in files and directories against one backend; each failure with
// the command that reproduces it, and a closing count.
#include <algorithm>
#include <array>
#include <filesystem>
#include <iostream>

#include "cli_common.h"
#include "commands.h"

namespace dmlcert::cli {
namespace {

namespace fs = std::filesystem;

struct ReplayArgs {
  std::vector<std::string> paths;
  std::string backend = "optimized";
  RunOptions options;
  bool verbose = false;
};

bool is_case_file(const fs::path& p) {
  return p.extension() == ".json" || p.extension() == ".jsonl";
}

// The case files a path names: itself, or every *.json / *.jsonl below a directory, sorted. A
// path that does not exist is kept, so that loading it reports the error.
std::vector<std::string> case_files(const std::string& path) {
  std::error_code ec;
  if (!fs::is_directory(path, ec)) return {path};
  std::vector<std::string> files;
  for (auto it = fs::recursive_directory_iterator(path, fs::directory_options::skip_permission_denied, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec))
    if (it->is_regular_file(ec) && is_case_file(it->path())) files.push_back(it->path().string());
  std::sort(files.begin(), files.end());
  return files;
}

constexpr std::array kOutcomes = {Outcome::Passed,  Outcome::Failed,     Outcome::Unimplemented,
                                  Outcome::Skipped, Outcome::Mistrusted, Outcome::Crash,
                                  Outcome::Timeout, Outcome::Oob};

int replay(const ReplayArgs& a) {
  auto backends = open_backends(a.backend);
  if (!backends) return kExitUsage;
  Runner runner(backends->under_test(), *backends->reference, a.options);

  std::array<uint64_t, kOutcomes.size()> counts{};
  uint64_t malformed = 0, failed = 0;
  for (const std::string& path : a.paths) {
    for (const std::string& file : case_files(path)) {
      LoadedCases loaded = load_case_file(file);
      for (const CaseError& e : loaded.errors) std::cerr << e.to_string() << "\n";
      malformed += loaded.errors.size();
      const bool several = loaded.cases.size() > 1 || file.ends_with(".jsonl");
      for (const Case& c : loaded.cases) {
        const CaseReport r = run_case(runner, c);
        ++counts[static_cast<size_t>(r.outcome)];
        if (fails_run(r.outcome)) ++failed;
        if (!fails_run(r.outcome) && !a.verbose) continue;
        std::cout << (fails_run(r.outcome) ? "FAILED " : "") << c.name << ": " << name(r.outcome)
                  << (r.detail.empty() ? "" : ": " + r.detail) << "\n";
        if (fails_run(r.outcome))
          std::cout << "  case file: " << file
                    << "\n  reproduce: " << reproduce_command(file, a.backend, several ? c.name : "") << "\n";
      }
    }
  }

  // The closing count: other outcomes on the line before, the contract line last.
  std::string others;
  auto count = [&others](uint64_t n, std::string_view what) {
    if (n == 0) return;
    if (!others.empty()) others += ", ";
    others += std::to_string(n);
    others += ' ';
    others += what;
  };
  for (Outcome o : kOutcomes)
    if (o != Outcome::Passed) count(counts[static_cast<size_t>(o)], name(o));
  count(malformed, "malformed");
  if (!others.empty() && others != std::to_string(failed) + " failed") std::cout << others << "\n";
  std::cout << counts[static_cast<size_t>(Outcome::Passed)] << " passed, " << failed << " failed"
            << std::endl;
  if (malformed) return kExitUsage;
  return failed ? kExitFailed : kExitPassed;
}

}  // namespace

void add_replay_command(CLI::App& app) {
  auto args = std::make_shared<ReplayArgs>();
  CLI::App* cmd = app.add_subcommand(
      "replay",
      "Run every case in the given files and directories (recursively: *.json, *.jsonl, in sorted "
      "order) against a backend, judged against the reference backend. Each failure prints its "
      "case file and the `dmlcert run` command that reproduces it; malformed files print one line "
      "each (FILE: JSON-PATH: what was expected) and the other cases still run. The last line is "
      "\"N passed, N failed\" (failed counts failed, mistrusted, crash, timeout and oob cases); "
      "when other outcomes occurred, the line before counts each of them.");
  cmd->add_option("PATH", args->paths, "Case files (.json, .jsonl) and directories of them")->required();
  add_backend_option(*cmd, &args->backend);
  add_run_options(*cmd, &args->options);
  cmd->add_flag("--verbose,-v", args->verbose, "Print every case's outcome, not only failures");
  cmd->footer(kExitStatusHelp);
  cmd->callback([args] { set_exit_status(replay(*args)); });
}

}  // namespace dmlcert::cli

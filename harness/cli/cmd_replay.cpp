// dmlcert replay: every case in files and directories against one backend; each failure with
// the command that reproduces it, and a closing count.
#include <algorithm>
#include <array>
#include <filesystem>
#include <iostream>

#include "cli_common.h"
#include "commands.h"
#include "dmlcert/text.h"
#include "engine.h"

namespace dmlcert::cli {
namespace {

namespace fs = std::filesystem;

struct ReplayArgs {
  std::vector<std::string> paths;
  std::string backend = "optimized";
  std::string repro_dir = "dmlcert-replay";
  ReadLimits limits;
  RunOptions options;
  plugin::IsolationOptions isolation;
  bool verbose = false;
};

// Writes a failing case into the repro directory under its own name; returns the absolute path.
std::string save_for_reproduction(const Case& c, const std::string& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  const std::string path =
      fs::absolute(fs::path(dir) / (engine::file_safe(c.name.empty() ? "case" : c.name) + ".json")).string();
  if (const FileWritten written = write_case_file(path, c); !written) {
    std::cerr << "dmlcert replay: " << written.message << "\n";
    return {};
  }
  return path;
}

int replay(const ReplayArgs& a) {
  // The repro directory is made only when a case fails, but whether it could be is known now,
  // before any case runs (docs/design.md, "The command").
  if (std::string why; !writable_dir(a.repro_dir, /*create=*/false, &why)) {
    std::cerr << "dmlcert replay: --repro-dir '" << printable(a.repro_dir, 200) << "': " << why << "\n";
    return kExitUsage;
  }
  auto backends = open_backends(a.backend, a.isolation);
  if (!backends) return kExitUsage;
  RunOptions options = a.options;
  options.oracle_is_under_test = a.backend == "reference";
  if (backends->isolated) options.settle_seconds = kReplaySettleSeconds / 10;
  Runner runner(*backends->under_test, *backends->oracle, options);

  std::array<uint64_t, kOutcomeCount> counts{};
  uint64_t failed = 0;
  auto run_one = [&](const Case& c) {
    const CaseReport r = run_case(runner, c);
    ++counts[static_cast<size_t>(r.outcome)];
    if (fails_run(r.outcome)) ++failed;
    if (!fails_run(r.outcome) && !a.verbose) return;
    std::cout << (fails_run(r.outcome) ? "FAILED " : "") << printable(c.name) << ": " << name(r.outcome)
              << (r.detail.empty() ? "" : ": " + printable(r.detail, 600)) << "\n";
    if (fails_run(r.outcome)) {
      // The case alone, in a file of its own, so that the command reruns exactly it.
      const std::string repro = save_for_reproduction(c, a.repro_dir);
      if (!repro.empty())
        std::cout << "  case file: " << repro << "\n  reproduce: "
                  << engine::reproduce_command(program_path(), repro, backends->spec,
                                               isolation_flags(backends->isolation))
                  << "\n";
    }
  };
  // Every path that cannot be read is reported (and counted as malformed), never skipped. One
  // file's cases at a time are held, so that a run's memory does not grow with its corpus.
  const CaseFileList list = list_case_files(a.paths);
  for (const CaseError& e : list.errors) std::cerr << e.to_string() << "\n";
  uint64_t malformed = list.errors.size();
  for (const std::string& file : list.files) {
    const LoadedCases loaded = load_case_file(file, a.limits);
    for (const CaseError& e : loaded.errors) std::cerr << e.to_string() << "\n";
    malformed += loaded.errors.size();
    for (const Case& c : loaded.cases) run_one(c);
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
  for (int i = 0; i < kOutcomeCount; ++i)
    if (static_cast<Outcome>(i) != Outcome::Passed)
      count(counts[static_cast<size_t>(i)], name(static_cast<Outcome>(i)));
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
      "order) against a backend in one process, judged against the reference backend. Each failure "
      "prints its case file and the `dmlcert run` command that reproduces it; malformed or unreadable "
      "files print one line each (FILE: JSON-PATH: what was expected) and the other cases still run. "
      "The last line is \"N passed, N failed\" (failed counts every outcome that fails a run); when "
      "other outcomes occurred, the line before counts each of them.");
  cmd->add_option("PATH", args->paths, "Case files (.json, .jsonl) and directories of them")->required();
  add_backend_option(*cmd, &args->backend);
  add_run_options(*cmd, &args->options);
  cmd->add_flag("--verbose,-v", args->verbose, "Print every case's outcome, not only failures");
  cmd->add_option("--repro-dir", args->repro_dir,
                  "Where each failing case is written alone, for its reproduce line")
      ->capture_default_str();
  cmd->add_option("--max-file-bytes", args->limits.max_file_bytes, "Refuse case files larger than this")
      ->check(integer_in(1, kMaxFileBytes))
      ->capture_default_str();
  add_isolation_options(*cmd, &args->isolation);
  cmd->footer(kExitStatusHelp);
  cmd->callback([args] { set_exit_status(replay(*args)); });
}

}  // namespace dmlcert::cli

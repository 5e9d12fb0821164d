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
#include "failure_printer.h"

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

// Every case of the files, one file's cases held at a time, so that a run's memory does not grow
// with its corpus; every path that cannot be read is reported (and counted as malformed), never
// skipped. Counts what each case did; the engine prints each failure with the command that
// reproduces it.
class ReplayedFiles final : public engine::Share {
 public:
  ReplayedFiles(const std::vector<std::string>& paths, const ReplayArgs& args) : args_(args) {
    const CaseFileList list = list_case_files(paths);
    for (const CaseError& e : list.errors) std::cerr << e.to_string() << "\n";
    malformed_ = list.errors.size();
    files_ = list.files;
  }

  std::optional<engine::Task> next() override {
    while (next_case_ == loaded_.cases.size()) {
      if (next_file_ == files_.size()) return std::nullopt;
      loaded_ = load_case_file(files_[next_file_++], args_.limits);
      for (const CaseError& e : loaded_.errors) std::cerr << e.to_string() << "\n";
      malformed_ += loaded_.errors.size();
      next_case_ = 0;
    }
    const Case& c = loaded_.cases[next_case_++];
    engine::WorkItem item;
    item.id = cert::CheckId::given(c.name);
    item.given = &c;
    return engine::Task{{std::move(item)}};
  }

  void case_ran(const engine::WorkItem& item, const engine::CaseOutcome& out) override {
    if (out.interrupted) return;
    const Outcome o = out.report.outcome;
    ++counts_[static_cast<size_t>(o)];
    ++done_;
    if (fails_run(o)) ++failed_;
    // A failure's block comes from the engine; -v adds every other case's line.
    if (!fails_run(o) && args_.verbose)
      std::cout << printable(item.given->name) << ": " << name(o)
                << (out.report.detail.empty() ? "" : ": " + printable(out.report.detail, 600)) << "\n";
  }

  // A late fault of an earlier case: that case failed after all.
  void late_fault_found(const cert::Failure& f) override {
    if (counts_[static_cast<size_t>(Outcome::Passed)] > 0) --counts_[static_cast<size_t>(Outcome::Passed)];
    ++counts_[static_cast<size_t>(f.outcome)];
    ++failed_;
  }

  uint64_t done() const override { return done_; }

  // The closing count: other outcomes on the line before, the contract line last.
  int finish_run() const {
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
        count(counts_[static_cast<size_t>(i)], name(static_cast<Outcome>(i)));
    count(malformed_, "malformed");
    if (!others.empty() && others != std::to_string(failed_) + " failed") std::cout << others << "\n";
    std::cout << counts_[static_cast<size_t>(Outcome::Passed)] << " passed, " << failed_ << " failed"
              << std::endl;
    if (malformed_) return kExitUsage;
    return failed_ ? kExitFailed : kExitPassed;
  }

 private:
  const ReplayArgs& args_;
  std::vector<std::string> files_;
  size_t next_file_ = 0;
  LoadedCases loaded_;
  size_t next_case_ = 0;
  std::array<uint64_t, kOutcomeCount> counts_{};
  uint64_t failed_ = 0, malformed_ = 0, done_ = 0;
};

int replay(const ReplayArgs& a) {
  // The repro directory is made only when a case fails, but whether it could be is known now,
  // before any case runs (docs/design.md, "The command").
  if (std::string why; !writable_dir(a.repro_dir, /*create=*/false, &why)) {
    std::cerr << "dmlcert replay: --repro-dir '" << printable(a.repro_dir, 200) << "': " << why << "\n";
    return kExitUsage;
  }
  auto backends = open_backends(a.backend, a.isolation);
  if (!backends) return kExitUsage;
  engine::EngineOptions options = given_case_options(*backends, a.options, a.backend);
  if (backends->isolated) options.run.settle_seconds = kReplaySettleSeconds / 10;
  // Each failing case alone, in a file of its own, so that its reproduce line reruns exactly it.
  options.repro_dir = fs::absolute(a.repro_dir).string();
  engine::FailurePrinter printer([](const std::string& block) { std::cout << block; },
                                 [](const std::string& warning) { std::cerr << warning; });
  options.listeners.push_back(&printer);
  ReplayedFiles files(a.paths, a);
  engine::OneWorker plan(files);
  if (!run_plan(plan, *backends, options)) return kExitUsage;
  return files.finish_run();
}

}  // namespace

void add_replay_command(CLI::App& app) {
  auto [cmd, args] = add_command<ReplayArgs>(
      app, "replay",
      "Run every case in the given files and directories (recursively: *.json, *.jsonl, in sorted "
      "order) against a backend in one process, judged against the reference backend. Each failure "
      "prints its case file and the `dmlcert run` command that reproduces it; malformed or unreadable "
      "files print one line each (FILE: JSON-PATH: what was expected) and the other cases still run. "
      "The last line is \"N passed, N failed\" (failed counts every outcome that fails a run); when "
      "other outcomes occurred, the line before counts each of them.",
      replay);
  cmd->add_option("PATH", args->paths, "Case files (.json, .jsonl) and directories of them")->required();
  add_backend_option(*cmd, &args->backend);
  add_run_options(*cmd, &args->options);
  cmd->add_flag("--verbose,-v", args->verbose, "Print every case's outcome, not only failures");
  add_repro_dir_option(*cmd, &args->repro_dir,
                       "Where each failing case is written alone, for its reproduce line");
  cmd->add_option("--max-file-bytes", args->limits.max_file_bytes, "Refuse case files larger than this")
      ->check(integer_in(1, kMaxFileBytes))
      ->capture_default_str();
  add_isolation_options(*cmd, &args->isolation);
}

}  // namespace dmlcert::cli

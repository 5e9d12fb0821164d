// dmlcert fuzz: generated cases against a backend, the reference as the oracle (docs/design.md,
// "The command"), run on the engine (harness/engine/fuzz.h).
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "backend_oracle.h"
#include "cli_common.h"
#include "commands.h"
#include "dmlcert/text.h"
#include "failure_printer.h"
#include "fuzz.h"
#include "progress.h"
#include "registry.h"
#include "report_files.h"
#include "repro_dir.h"

namespace dmlcert::cli {
namespace {

namespace fs = std::filesystem;

struct FuzzArgs {
  std::string backend = "optimized";
  std::string vs = "reference";
  uint64_t seed = 1;
  std::optional<uint64_t> cases;
  std::string duration;
  std::vector<OpKind> ops;
  std::optional<FeatureLevel> level;
  std::string shard;
  std::string repro_dir = "dmlcert-repros";
  std::string report;
  unsigned jobs = default_jobs();
  int max_size = 50;
  double shrink_seconds = 20;
  bool guided = false;
  std::string corpus_dir;
  size_t stop_after_failures = 0;
  RunOptions options;
  plugin::IsolationOptions isolation;
};

// "60s", "2m", "1h" or plain seconds: positive and at most kMaxDurationSeconds. strtod alone
// would also take "nan" (a run that never ends, as every comparison with it is false), "inf" and
// hexadecimal, so the number must be decimal digits.
std::optional<double> parse_duration(const std::string& s) {
  const size_t number_end = s.find_first_not_of("0123456789.eE+-");
  if (s.empty() || number_end == 0) return std::nullopt;
  const std::string number = s.substr(0, number_end), unit = s.substr(std::min(number_end, s.size()));
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(number.c_str(), &end);
  if (end != number.c_str() + number.size() || errno == ERANGE || !std::isfinite(v) || v <= 0)
    return std::nullopt;
  const double scale = unit.empty() || unit == "s" ? 1 : unit == "m" ? 60 : unit == "h" ? 3600 : 0;
  if (scale == 0 || v * scale > kMaxDurationSeconds) return std::nullopt;
  return v * scale;
}

int fuzz(FuzzArgs& a) {
  engine::FuzzOptions o;
  o.seed = a.seed;
  o.max_size = a.max_size;
  o.shrink_seconds = a.shrink_seconds;
  o.jobs = a.jobs;
  o.duration_seconds = parse_duration(a.duration);
  if (!a.duration.empty() && !o.duration_seconds)
    return usage_error("fuzz", "--duration '" + printable(a.duration, 60) +
                                   "' is not a positive duration of at most " +
                                   std::to_string(static_cast<uint64_t>(kMaxDurationSeconds)) +
                                   " seconds, like 60s, 5m or 1h");
  if (a.cases && !a.duration.empty()) return usage_error("fuzz", "give --cases or --duration, not both");
  o.cases = a.cases.value_or(1000);
  o.ops = a.ops;
  o.level = a.level;
  if (!parse_shard(a.shard, &o.shard_index, &o.shard_count, &a.shard))
    return usage_error("fuzz",
                       "--shard '" + printable(a.shard, 60) + "' is not i/n with 0 <= i < n <= 4294967295");
  // Every destination is checked before the first case, so a run never ends in a file it cannot
  // write (docs/design.md, "The command").
  const std::optional<engine::ReproDir> repro_dir = claim_repro_dir("fuzz", a.repro_dir);
  if (!repro_dir) return kExitUsage;
  if (std::string why; !can_write_reports(ReportFiles{.json = a.report,
                                                      .junit = {},
                                                      .markdown = {},
                                                      .html = {},
                                                      .coverage_lcov = {},
                                                      .coverage_html = {}},
                                          &why))
    return usage_error("fuzz", why);

  // One backend to check the spec opens; each worker opens its own.
  auto backends = open_backends(a.backend, a.isolation);
  if (!backends) return kExitUsage;
  std::unique_ptr<Backend> vs_backend;
  std::unique_ptr<Oracle> vs_oracle;
  if (a.vs != "reference") {
    std::string error;
    vs_backend = backends::open(absolute_spec(a.vs), a.isolation, &error);
    if (!vs_backend) return usage_error("fuzz", "--vs: " + error);
    vs_oracle = engine::backend_oracle(*vs_backend, a.options);
    o.jobs = 1;  // a backend oracle is one process, not safe to share between workers
  }
  Oracle& oracle = vs_oracle ? *vs_oracle : *backends->oracle;

  o.engine.backend_spec = backends->spec;
  o.engine.backend_flags = isolation_flags(backends->isolation);
  o.engine.program = program_path();
  o.engine.repro_dir = repro_dir->path();
  o.engine.run = a.options;
  o.engine.run.oracle_is_under_test = a.backend == "reference" && a.vs == "reference";
  // Generated valid cases are small; the cap only bounds what invalid descriptors declaring huge
  // TotalTensorSizeInBytes make the runner allocate.
  o.engine.run.max_buffer_bytes = uint64_t{8} << 20;
  o.engine.isolated = backends->isolated;
  o.engine.stop_after_failures = a.stop_after_failures;
  o.guided = a.guided;
  o.corpus_dir = a.corpus_dir;
  if (!a.corpus_dir.empty() && !a.guided) return usage_error("fuzz", "--corpus needs --coverage-guided");
  if (!a.corpus_dir.empty()) {
    // Checked at the door like every destination: a directory the run can write its entries into.
    std::error_code ec;
    fs::create_directories(a.corpus_dir, ec);
    const fs::path probe = fs::path(a.corpus_dir) / ".dmlcert-write-check";
    if (!fs::is_directory(a.corpus_dir, ec) || !std::ofstream(probe))
      return usage_error("fuzz", "--corpus '" + printable(a.corpus_dir, 200) +
                                     "' is not a directory dmlcert can write into");
    fs::remove(probe, ec);
  }
  if (a.guided) {
    // Guidance needs the plugin's edge counters; without them the run is an unguided one, and says so.
    const CodeCoverage* code = backends->under_test ? backends->under_test->code_coverage() : nullptr;
    if (!code || !code->instrumented)
      std::cerr << "dmlcert fuzz: --coverage-guided: no code coverage from this backend ("
                << (code ? code->why_not : std::string("it does not run in the isolation child"))
                << "); the run is unguided\n";
  }
  Progress progress("fuzz");
  engine::FailurePrinter printer([&](const std::string& block) { progress.print(block); });
  o.engine.listeners.push_back(&printer);
  o.engine.on_progress = [&](uint64_t done, uint64_t total, uint64_t failures, double elapsed) {
    const double left = o.duration_seconds ? *o.duration_seconds - elapsed
                        : done > 0 && total >= done
                            ? elapsed / static_cast<double>(done) * static_cast<double>(total - done)
                            : -1;
    progress.update(done, total, failures, elapsed, left);
  };
  std::cout << "dmlcert fuzz --backend " << backends->spec << " --vs " << a.vs << " --seed " << o.seed
            << (o.duration_seconds ? " --duration " + a.duration : " --cases " + std::to_string(o.cases))
            << " --shard " << o.shard_index << "/" << o.shard_count << " --jobs " << o.jobs << " --repro-dir "
            << o.engine.repro_dir << std::endl;
  const Backends& opened = *backends;
  const engine::FuzzResult result = engine::run_fuzz([&opened] { return opened.open(); }, oracle, o);
  progress.finish();
  std::cout << engine::fuzz_summary(result);
  if (!a.report.empty()) {
    std::ofstream out(a.report);
    out << engine::fuzz_report_json(result, o) << "\n";
    if (!out) {
      std::cerr << "dmlcert fuzz: cannot write the report to " << printable(a.report, 200) << ": "
                << std::strerror(errno) << "\n";
      return kExitUsage;
    }
  }
  if (const int stopped = stopped_exit_status()) return stopped;
  if (!result.failures.empty()) {
    std::cout << result.failures.size() << " failures; each prints a `reproduce:` line above\n";
    return kExitFailed;
  }
  return kExitPassed;
}

}  // namespace

void add_fuzz_command(CLI::App& app) {
  auto [cmd, args] = add_command<FuzzArgs>(
      app, "fuzz",
      "Differential fuzzing: generated valid, invalid (one rule broken at a time) and unspecified "
      "cases against a backend, with the reference as the oracle. The same seed gives the same "
      "run, for any --jobs (except --coverage-guided runs, which follow what the plugin's code "
      "reached). Without --level the run cycles through feature levels 2_1, 3_0, 4_1 "
      "and 5_0 and walks every support-table cell. A failure is saved, confirmed alone in a fresh "
      "backend, shrunk (or, when it only fails after earlier cases, bisected to a short sequence) "
      "and printed with its case files and the `dmlcert run` line that reproduces it. Ends with "
      "distributions and a coverage table.",
      fuzz);
  add_backend_option(*cmd, &args->backend);
  cmd->add_option("--vs", args->vs,
                  "The oracle: reference, or another backend whose outputs judge valid cases")
      ->capture_default_str();
  add_seed_option(*cmd, &args->seed, "The run's seed; each case's seed derives from (seed, index)");
  cmd->add_option("--cases", args->cases, "How many cases (across all shards); default 1000")
      ->check(integer_in(1, kMaxCases));
  cmd->add_option("--duration", args->duration, "Run for this long instead (60s, 5m, 1h)");
  add_ops_option(*cmd, &args->ops, "Only these operators");
  add_level_option(*cmd, &args->level, "Only this feature level (default: cycle 2_1, 3_0, 4_1, 5_0)");
  cmd->add_option("--shard", args->shard,
                  "Take part i of n (i/n) of the cases; default from GTEST_SHARD_INDEX/GTEST_TOTAL_SHARDS");
  add_jobs_option(*cmd, &args->jobs, "Parallel workers, each with its own backend (default: the cores)");
  add_repro_dir_option(*cmd, &args->repro_dir, "Where failing cases are saved");
  cmd->add_option("--report", args->report,
                  "Write a JSON report: outcomes, classes, coverage, failures, throughput");
  cmd->add_option("--max-size", args->max_size, "Largest rapidcheck size (tensors grow with it)")
      ->check(integer_in(0, 100))
      ->capture_default_str();
  cmd->add_flag("--coverage-guided", args->guided,
                "Keep the cases that reach new edges of the plugin's code as a corpus and make every other "
                "case a mutation of one (a plugin compiled with SanitizerCoverage: docs/coverage.md)");
  cmd->add_option("--corpus", args->corpus_dir,
                  "With --coverage-guided: run this directory's corpus first, and write the entries the run "
                  "keeps into it (a .plan and a case file each; directories merge by copying)");
  cmd->add_option("--stop-after-failures", args->stop_after_failures,
                  "Stop after N failures (0: run every case)")
      ->check(integer_in(0, kMaxCases));
  cmd->add_option("--shrink-seconds", args->shrink_seconds, "Time cap for shrinking one failure")
      ->check(number_in(0, kMaxSeconds))
      ->capture_default_str();
  add_run_options(*cmd, &args->options);
  add_isolation_options(*cmd, &args->isolation);
}

}  // namespace dmlcert::cli

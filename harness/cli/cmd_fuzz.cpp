// dmlcert fuzz: generated cases against a backend, the reference as the oracle (DESIGN.md, "The
// command"). Each case is saved before the backend runs it; failures are shrunk and saved, and
// printed with the seed, the case files and the `dmlcert replay` line.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>

#include "cli_common.h"
#include "commands.h"
#include "fuzz.h"

namespace dmlcert::cli {
namespace {

struct FuzzArgs {
  std::string backend = "optimized";
  std::string vs = "reference";
  uint64_t seed = 1;
  std::optional<uint64_t> cases;
  std::string duration;
  std::vector<std::string> ops;
  std::string level;
  std::string shard;
  std::string repro_dir = "dmlcert-repros";
  std::string report;
  int max_size = 50;
  double shrink_seconds = 20;
  RunOptions options;
};

// "60s", "2m", "1h" or plain seconds.
std::optional<double> parse_duration(const std::string& s) {
  if (s.empty()) return std::nullopt;
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (end == s.c_str() || v < 0) return std::nullopt;
  const std::string unit(end);
  if (unit.empty() || unit == "s") return v;
  if (unit == "m") return v * 60;
  if (unit == "h") return v * 3600;
  return std::nullopt;
}

// "i/n" with 0 <= i < n.
bool parse_shard(const std::string& s, uint32_t* index, uint32_t* count) {
  const auto slash = s.find('/');
  if (slash == std::string::npos) return false;
  try {
    const unsigned long i = std::stoul(s.substr(0, slash)), n = std::stoul(s.substr(slash + 1));
    if (n == 0 || i >= n) return false;
    *index = static_cast<uint32_t>(i), *count = static_cast<uint32_t>(n);
    return true;
  } catch (const std::exception&) {
    return false;
  }
}

// Progress: redrawn in place on a terminal, a plain line every ~10 s in a log.
class Progress {
 public:
  Progress(std::optional<uint64_t> total, std::optional<double> duration)
      : total_(total), duration_(duration), tty_(isatty(fileno(stderr)) != 0) {}
  void update(uint64_t done, uint64_t failures, double elapsed) {
    const double interval = tty_ ? 0.25 : 10.0;
    if (elapsed - last_ < interval) return;
    last_ = elapsed;
    const double rate = elapsed > 0 ? done / elapsed : 0;
    double left = 0;
    if (duration_)
      left = *duration_ - elapsed;
    else if (total_ && rate > 0)
      left = (static_cast<double>(*total_) - done) / rate;
    std::ostringstream line;
    line << "cases " << done << (total_ ? "/" + std::to_string(*total_) : "") << "  "
         << static_cast<uint64_t>(rate) << " cases/s  failures " << failures << "  time left "
         << static_cast<uint64_t>(left > 0 ? left : 0) << " s";
    if (tty_)
      std::cerr << "\r" << line.str() << "   " << std::flush;
    else
      std::cerr << line.str() << std::endl;
  }
  void finish() {
    if (tty_ && last_ > 0) std::cerr << "\n";
  }

 private:
  std::optional<uint64_t> total_;
  std::optional<double> duration_;
  bool tty_;
  double last_ = 0;
};

int fuzz(const FuzzArgs& a) {
  props::FuzzOptions o;
  o.seed = a.seed;
  o.backend_spec = a.backend;
  o.repro_dir = a.repro_dir;
  o.max_size = a.max_size;
  o.shrink_seconds = a.shrink_seconds;
  o.run_options.profile = a.options.profile;
  o.log = &std::cout;
  o.duration_seconds = parse_duration(a.duration);
  if (!a.duration.empty() && !o.duration_seconds) {
    std::cerr << "dmlcert fuzz: --duration '" << a.duration << "' is not a duration like 60s, 5m or 1h\n";
    return kExitUsage;
  }
  if (a.cases && !a.duration.empty()) {
    std::cerr << "dmlcert fuzz: give --cases or --duration, not both\n";
    return kExitUsage;
  }
  o.cases = a.cases.value_or(1000);
  for (const std::string& op : a.ops) {
    const auto k = parse_op(op);
    if (!k) {
      std::cerr << "dmlcert fuzz: unknown operator '" << op
                << "' (expected SLICE, SLICE1, SCATTER_ND, REDUCE or GATHER_ELEMENTS)\n";
      return kExitUsage;
    }
    o.ops.push_back(*k);
  }
  if (!a.level.empty()) {
    o.level = parse_feature_level(a.level);
    if (!o.level) {
      std::cerr << "dmlcert fuzz: unknown feature level '" << a.level << "' (expected 1_0 ... 6_4)\n";
      return kExitUsage;
    }
  }
  // --shard wins; otherwise the GoogleTest sharding variables CI systems already set.
  std::string shard = a.shard;
  if (shard.empty()) {
    const char* i = std::getenv("GTEST_SHARD_INDEX");
    const char* n = std::getenv("GTEST_TOTAL_SHARDS");
    if (i && n) shard = std::string(i) + "/" + n;
  }
  if (!shard.empty() && !parse_shard(shard, &o.shard_index, &o.shard_count)) {
    std::cerr << "dmlcert fuzz: shard '" << shard << "' is not i/n with 0 <= i < n\n";
    return kExitUsage;
  }

  // The oracle: the reference unless --vs names another backend.
  std::optional<Backends> pair;
  std::unique_ptr<Backend> oracle;
  if (a.vs == "reference") {
    pair = open_backends(a.backend);
    if (!pair) return kExitUsage;
  } else {
    pair = open_backends(a.backend);
    if (!pair) return kExitUsage;
    std::string error;
    oracle = make_backend(a.vs, &error);
    if (!oracle) {
      std::cerr << "dmlcert fuzz: --vs: " << error << "\n";
      return kExitUsage;
    }
  }
  Backend& under_test = pair->under_test();
  Backend& reference = oracle ? *oracle : *pair->reference;

  Progress progress(o.duration_seconds ? std::nullopt : std::optional<uint64_t>(o.cases / o.shard_count),
                    o.duration_seconds);
  o.on_progress = [&](uint64_t done, uint64_t failures, double elapsed) {
    progress.update(done, failures, elapsed);
  };
  std::cout << "dmlcert fuzz --backend " << a.backend << " --vs " << a.vs << " --seed " << o.seed
            << (o.duration_seconds ? " --duration " + a.duration : " --cases " + std::to_string(o.cases))
            << " --shard " << o.shard_index << "/" << o.shard_count << " --repro-dir " << o.repro_dir
            << std::endl;
  const props::FuzzResult result = props::run_fuzz(under_test, reference, o);
  progress.finish();
  std::cout << props::fuzz_summary(result);
  if (!a.report.empty()) {
    std::ofstream out(a.report);
    out << props::fuzz_report_json(result, o) << "\n";
    if (!out) {
      std::cerr << "dmlcert fuzz: cannot write the report to " << a.report << "\n";
      return kExitUsage;
    }
  }
  if (!result.failures.empty()) {
    std::cout << result.failures.size() << " failures; reproduce with the `dmlcert replay` lines above\n";
    return kExitFailed;
  }
  return kExitPassed;
}

}  // namespace

void add_fuzz_command(CLI::App& app) {
  auto args = std::make_shared<FuzzArgs>();
  CLI::App* cmd = app.add_subcommand(
      "fuzz",
      "Differential fuzzing: generated valid, invalid (one rule broken at a time) and unspecified "
      "cases against a backend, with the reference as the oracle. The same seed gives the same "
      "run. Without --level the run cycles through feature levels 2_1, 3_0, 4_1 and 5_0 and walks "
      "every support-table cell. Each case is written to the repro directory before the backend "
      "runs it and deleted when it passes; failures are shrunk and kept, and printed with the "
      "seed, the case files and the `dmlcert replay` line. Ends with a coverage table.");
  add_backend_option(*cmd, &args->backend);
  cmd->add_option("--vs", args->vs, "The oracle backend")->capture_default_str();
  cmd->add_option("--seed", args->seed, "The run's seed; each case's seed derives from (seed, index)")
      ->capture_default_str();
  cmd->add_option("--cases", args->cases, "How many cases (across all shards); default 1000");
  cmd->add_option("--duration", args->duration, "Run for this long instead (60s, 5m, 1h)");
  cmd->add_option("--ops", args->ops, "Only these operators (SLICE,SLICE1,SCATTER_ND,REDUCE,GATHER_ELEMENTS)")
      ->delimiter(',');
  cmd->add_option("--level", args->level, "Only this feature level (default: cycle 2_1, 3_0, 4_1, 5_0)");
  cmd->add_option("--shard", args->shard,
                  "Take part i of n (i/n) of the cases; default from GTEST_SHARD_INDEX/GTEST_TOTAL_SHARDS");
  cmd->add_option("--repro-dir", args->repro_dir, "Where case files are saved")->capture_default_str();
  cmd->add_option("--report", args->report,
                  "Write a JSON report: outcomes, classes, coverage, failures, throughput");
  cmd->add_option("--max-size", args->max_size, "Largest rapidcheck size (tensors grow with it)")
      ->capture_default_str();
  cmd->add_option("--shrink-seconds", args->shrink_seconds, "Time cap for shrinking one failure")
      ->capture_default_str();
  add_run_options(*cmd, &args->options);
  cmd->footer(kExitStatusHelp);
  cmd->callback([args] { set_exit_status(fuzz(*args)); });
}

}  // namespace dmlcert::cli

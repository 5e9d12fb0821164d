// dmlcert_bench: every workload (workloads.cpp) as `<workload>/<implementation>`, where the
// implementation is reference, optimized, eigen, torch (when built with libtorch) and the roofline
// (`copy` and `copy_nt` for data movement, `read` and `read_hw` for reductions: roofline.h says
// why two of each). Bytes
// per second are the workload's output bytes (data movement) or input bytes (reductions), the same
// for every implementation of a workload, so ratios of bytes_per_second are speedups.
// bench/ratios.py prints them.
//
// Every workload also runs as `<workload>_mem`, sized to stream at least four times the last-level
// cache (workloads.h). Each benchmark's label says which limit its roofline measures: `cache` when
// the bytes the roofline streams fit in the last-level cache, `memory` at four times it or more,
// `cache+memory` in between; the counter llc_multiple is that ratio.
//
// `<workload>/control` runs the optimized backend a second time, as if it were another
// implementation: opt/control, a ratio of the same code to itself, is the run's noise floor.
//
// --rounds=N runs each workload's implementations N times in turn (round r starting with the r-th
// implementation, so that none always runs first), where --benchmark_repetitions=N runs one
// implementation N times and then the next: in rounds a stretch of slow memory on a shared machine
// slows every side of a ratio, not one. --max_rounds=M (3N unless given) adds rounds, up to M in
// all, to the workloads whose control has not settled (rounds.h). Each run carries its round as
// the counter `round`, by which bench/ratios.py pairs it with the other implementations' runs of
// the same round. A workload's buffers are filled once for all its rounds.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cpu_share.h"
#include "eigen_impl.h"
#include "optimized/optimized.h"
#include "reference/reference.h"
#include "roofline.h"
#include "rounds.h"
#include "workloads.h"
#ifdef DMLCERT_BENCH_TORCH
#include "torch_impl.h"
#endif

namespace dmlcert::bench {
namespace {

void run_backend(benchmark::State& state, Backend& backend, const Workload& w) {
  Buffers& b = buffers_for(w);
  const Bindings bindings = b.bindings();
  for (auto _ : state) {
    const ExecResult r = backend.execute(w.desc, FeatureLevel::L5_0, bindings);
    if (r.status != Status::Ok) {
      state.SkipWithError(("execute failed: " + r.message).c_str());
      break;
    }
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * w.bytes));
}

template <class MakeRunner>
void run_peer(benchmark::State& state, const Workload& w, MakeRunner make) {
  Buffers& b = buffers_for(w);
  const std::function<void()> run = make(w, b);
  for (auto _ : state) {
    run();
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * w.bytes));
}

// One roofline loop: the copy's stores, or the read's prefetch (roofline.h).
struct RoofLoop {
  CopyStores stores = CopyStores::Cached;
  ReadPrefetch prefetch = ReadPrefetch::Software;
};

void run_roofline(benchmark::State& state, const Workload& w, RoofLoop loop) {
  Buffers& b = buffers_for(w);
  for (auto _ : state) {
    if (w.roofline == Roofline::Copy)
      roofline_copy(b.output.data(), b.input.data(), w.bytes, loop.stores);
    else
      benchmark::DoNotOptimize(roofline_read(b.input.data(), w.bytes, loop.prefetch));
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * w.bytes));
}

// Which limit the workload's roofline measures, from the bytes it streams per last-level cache.
std::string limit_label(double llc_multiple) {
  if (llc_multiple <= 1) return "cache";
  if (llc_multiple >= 4) return "memory";
  return "cache+memory";
}

// Labels a benchmark of workload w with the limit its roofline measures (see the top of the file),
// and counts what the process got while it ran: `cpus`, CPU seconds per second (cpu_share.h), and
// `faults`, minor page faults per iteration (a fresh output's pages, faulted in on first touch).
template <class Run>
auto labelled(const Workload& w, Run run) {
  return [&w, run](benchmark::State& s) {
    const ProcessTimes before = ProcessTimes::now();
    run(s);
    const ProcessTimes after = ProcessTimes::now();
    if (s.iterations() > 0 && after.wall_seconds > before.wall_seconds) {
      s.counters["cpus"] =
          (after.cpu_seconds - before.cpu_seconds) / (after.wall_seconds - before.wall_seconds);
      s.counters["faults"] =
          static_cast<double>(after.minor_faults - before.minor_faults) / static_cast<double>(s.iterations());
    }
    const double multiple =
        static_cast<double>(w.roofline_bytes()) / static_cast<double>(last_level_cache().bytes);
    s.counters["llc_multiple"] = multiple;
    s.SetLabel(limit_label(multiple));
  };
}

// min_time: every timed benchmark runs at least this long per repetition. 0.3 s unless
// --benchmark_min_time is given (a MinTime() set here would override the flag). plan: the rounds
// (rounds.h); none registers each benchmark once, to repeat as --benchmark_repetitions says.
void register_all(std::optional<double> min_time, RoundPlan* plan) {
  static const std::unique_ptr<Backend> reference = reference::make_backend();
  static const std::unique_ptr<Backend> optimized = optimized::make_backend();
  using Run = std::function<void(benchmark::State&)>;
  for (const Workload& w : workloads()) {
    const std::string base = w.name + "/";
    // The reference is slow (seconds per call on 16M elements): one iteration, and only on the
    // cache-sized workloads (its ratio does not depend on the size), and once however many rounds.
    if (!w.memory_sized)
      benchmark::RegisterBenchmark((base + "reference").c_str(),
                                   labelled(w, [&w](benchmark::State& s) { run_backend(s, *reference, w); }))
          ->Iterations(1)
          ->UseRealTime()
          ->Unit(benchmark::kMillisecond);
    std::vector<std::pair<std::string, Run>> timed;
    timed.emplace_back("optimized", [&w](benchmark::State& s) { run_backend(s, *optimized, w); });
    if (eigen_has(w))
      timed.emplace_back("eigen", [&w](benchmark::State& s) { run_peer(s, w, eigen_runner); });
#ifdef DMLCERT_BENCH_TORCH
    if (torch_has(w))
      timed.emplace_back("torch", [&w](benchmark::State& s) { run_peer(s, w, torch_runner); });
#endif
    if (w.roofline == Roofline::Copy) {
      timed.emplace_back("copy", [&w](benchmark::State& s) { run_roofline(s, w, {CopyStores::Cached}); });
      timed.emplace_back("copy_nt",
                         [&w](benchmark::State& s) { run_roofline(s, w, {CopyStores::Streaming}); });
    } else {
      timed.emplace_back(
          "read", [&w](benchmark::State& s) { run_roofline(s, w, {.prefetch = ReadPrefetch::Software}); });
      timed.emplace_back("read_hw", [&w](benchmark::State& s) {
        run_roofline(s, w, {.prefetch = ReadPrefetch::HardwareOnly});
      });
    }
    // The control: the optimized backend again, timed as one more implementation, half a round
    // away from its first entry (as far as any peer can be). The two are the same code, so
    // opt/control shows how far this run's noise alone moves a ratio (bench/ratios.py).
    timed.insert(timed.begin() + static_cast<std::ptrdiff_t>((timed.size() + 1) / 2),
                 {"control", [&w](benchmark::State& s) { run_backend(s, *optimized, w); }});
    const size_t k = timed.size();
    for (int r = 0; r < (plan ? plan->max_rounds() : 1); ++r)
      for (size_t i = 0; i < k; ++i) {
        const auto& [impl, run] = timed[(i + static_cast<size_t>(r)) % k];
        Run in_round = run;
        if (plan)
          in_round = [&w, r, run = run, plan](benchmark::State& s) {
            if (!plan->runs(w.name, r)) {
              s.SkipWithError(kRoundNotNeeded);
              return;
            }
            run(s);
            s.counters["round"] = r;
          };
        benchmark::internal::Benchmark* b =
            benchmark::RegisterBenchmark((base + impl).c_str(), labelled(w, in_round));
        if (min_time) b->MinTime(*min_time);
        if (plan) b->Repetitions(1);
        b->UseRealTime()->Unit(benchmark::kMillisecond);
      }
  }
}

// 0.3 s unless the command line sets --benchmark_min_time.
std::optional<double> default_min_time(int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    if (std::strncmp(argv[i], "--benchmark_min_time", 20) == 0) return std::nullopt;
  return 0.3;
}

constexpr const char* kRoundsHelp =
    "dmlcert_bench's own flags:\n"
    "  --rounds=N      run each workload's implementations N times in turn (1 to 1000), so that\n"
    "                  bench/ratios.py compares the runs made side by side; replaces\n"
    "                  --benchmark_repetitions (bench/README.md)\n"
    "  --max_rounds=M  with --rounds: add rounds, up to M in all (N to 1000, 3N unless given), to\n"
    "                  each workload whose control (opt/control) is not yet within 5% of 1\n"
    "  --nice=N        run at nice -N (1 to 19), in a session of its own at that nice where the\n"
    "                  kernel shares the CPUs by session, so that other sessions' builds take the\n"
    "                  CPUs from the bench less often; start it with setsid (bench/README.md)\n\n";

// A whole number from `low` to `high` after `--flag=`, or nullopt after saying what was wrong.
std::optional<int> flag_value(const std::string& arg, size_t name_length, int low, int high,
                              const char* example) {
  const std::string value =
      arg.size() > name_length + 1 && arg[name_length] == '=' ? arg.substr(name_length + 1) : "";
  char* end = nullptr;
  const long n = value.empty() ? 0 : std::strtol(value.c_str(), &end, 10);
  if (value.empty() || *end != '\0' || n < low || n > high) {
    std::fprintf(stderr, "dmlcert_bench: %.*s needs a whole number from %d to %d (%s), got '%s'\n",
                 static_cast<int>(name_length), arg.c_str(), low, high, example, arg.c_str());
    return std::nullopt;
  }
  return static_cast<int>(n);
}

// What --rounds, --max_rounds and --nice ask for: no rounds (0, 0), or rounds and the cap; nice 0
// leaves the process's priority alone.
struct RoundFlags {
  int rounds = 0, max_rounds = 0, nice = 0;
};

// Takes --rounds=N and --max_rounds=M out of argv (Google Benchmark rejects flags it does not
// know); nullopt, after saying why, when a value or the combination is wrong.
std::optional<RoundFlags> take_rounds(int& argc, char** argv) {
  RoundFlags flags;
  int out = 1;
  bool repetitions = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") std::fputs(kRoundsHelp, stdout);
    if (arg.rfind("--benchmark_repetitions", 0) == 0) repetitions = true;
    if (arg.rfind("--nice", 0) == 0) {
      const std::optional<int> n = flag_value(arg, 6, 1, 19, "--nice=10");
      if (!n) return std::nullopt;
      flags.nice = *n;
    } else if (arg.rfind("--max_rounds", 0) == 0) {
      const std::optional<int> n = flag_value(arg, 12, 1, 1000, "--max_rounds=15");
      if (!n) return std::nullopt;
      flags.max_rounds = *n;
    } else if (arg.rfind("--rounds", 0) == 0) {
      const std::optional<int> n = flag_value(arg, 8, 1, 1000, "--rounds=5");
      if (!n) return std::nullopt;
      flags.rounds = *n;
    } else {
      argv[out++] = argv[i];
    }
  }
  argc = out;
  argv[argc] = nullptr;
  if (flags.rounds > 0 && repetitions) {
    std::fprintf(stderr,
                 "dmlcert_bench: --rounds and --benchmark_repetitions both repeat every benchmark; give one "
                 "(--rounds interleaves the implementations, bench/README.md)\n");
    return std::nullopt;
  }
  if (flags.max_rounds > 0 && flags.rounds == 0) {
    std::fprintf(stderr, "dmlcert_bench: --max_rounds=%d adds to --rounds; give --rounds too\n",
                 flags.max_rounds);
    return std::nullopt;
  }
  if (flags.max_rounds == 0) flags.max_rounds = std::min(3 * flags.rounds, 1000);
  if (flags.max_rounds < flags.rounds) {
    std::fprintf(stderr, "dmlcert_bench: --max_rounds=%d is fewer than --rounds=%d\n", flags.max_rounds,
                 flags.rounds);
    return std::nullopt;
  }
  return flags;
}

// The --benchmark_out file's format: Google Benchmark writes JSON unless told otherwise.
bool json_out(int argc, char** argv) {
  bool out = false, json = true;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.rfind("--benchmark_out=", 0) == 0) out = arg.size() > 16;
    if (arg.rfind("--benchmark_out_format=", 0) == 0) json = arg.substr(23) == "json";
  }
  return out && json;
}

void report_cache() {
  const CacheSize llc = last_level_cache();
  benchmark::AddCustomContext("llc_bytes", std::to_string(llc.bytes));
  benchmark::AddCustomContext("llc_detected", llc.detected ? "true" : "false");
  std::fprintf(
      stderr, "dmlcert_bench: last-level cache %llu KiB (%s); the _mem workloads stream at least %llu KiB\n",
      static_cast<unsigned long long>(llc.bytes >> 10), llc.detected ? "detected" : "not detected, assumed",
      static_cast<unsigned long long>((4 * llc.bytes) >> 10));
}

}  // namespace
}  // namespace dmlcert::bench

int main(int argc, char** argv) {
  using namespace dmlcert::bench;
  const std::optional<RoundFlags> flags = take_rounds(argc, argv);
  if (!flags) return 1;
  // Before any thread starts (the backends' pools start in register_all): threads inherit it.
  const std::string share = flags->nice > 0 ? raise_cpu_share(flags->nice) : "not raised (no --nice)";
  std::optional<RoundPlan> plan;
  if (flags->rounds > 0) plan.emplace(flags->rounds, flags->max_rounds);
  register_all(default_min_time(argc, argv), plan ? &*plan : nullptr);
  const bool json_file = json_out(argc, argv);
  benchmark::Initialize(&argc, argv);
  report_cache();
  benchmark::AddCustomContext("cpu_share", share);
  std::fprintf(stderr, "dmlcert_bench: CPU share %s\n", share.c_str());
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  // The reporters drop the rounds that were not needed; the display one also records the rates
  // that decide them. A --benchmark_out file in another format than JSON is written by Google
  // Benchmark's own reporter, where those rounds show as skipped with kRoundNotNeeded.
  RoundReporter display(
      std::unique_ptr<benchmark::BenchmarkReporter>(benchmark::CreateDefaultDisplayReporter()),
      plan ? &*plan : nullptr);
  std::optional<RoundReporter> file;
  if (json_file) file.emplace(std::make_unique<benchmark::JSONReporter>(), nullptr);
  benchmark::RunSpecifiedBenchmarks(&display, file ? &*file : nullptr);
  benchmark::Shutdown();
  return 0;
}

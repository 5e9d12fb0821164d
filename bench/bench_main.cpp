// dmlcert_bench: every workload (workloads.cpp) as `<workload>/<implementation>`, where the
// implementation is reference, optimized, eigen, torch (when built with libtorch) and the roofline
// (`copy` for data movement, `read` for reductions). Bytes per second are the workload's output
// bytes (data movement) or input bytes (reductions), the same for every implementation of a
// workload, so ratios of bytes_per_second are speedups. bench/ratios.py prints them.
#include <benchmark/benchmark.h>

#include <memory>

#include "eigen_impl.h"
#include "optimized/optimized.h"
#include "reference/reference.h"
#include "roofline.h"
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

void run_roofline(benchmark::State& state, const Workload& w) {
  Buffers& b = buffers_for(w);
  for (auto _ : state) {
    if (w.roofline == Roofline::Copy)
      roofline_copy(b.output.data(), b.input.data(), w.bytes);
    else
      benchmark::DoNotOptimize(roofline_read(b.input.data(), w.bytes));
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * w.bytes));
}

void register_all() {
  static const std::unique_ptr<Backend> reference = reference::make_backend();
  static const std::unique_ptr<Backend> optimized = optimized::make_backend();
  for (const Workload& w : workloads()) {
    const std::string base = w.name + "/";
    // The reference is slow (seconds per call on 16M elements): one iteration.
    benchmark::RegisterBenchmark((base + "reference").c_str(),
                                 [&w](benchmark::State& s) { run_backend(s, *reference, w); })
        ->Iterations(1)
        ->UseRealTime()
        ->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark((base + "optimized").c_str(),
                                 [&w](benchmark::State& s) { run_backend(s, *optimized, w); })
        ->MinTime(0.3)
        ->UseRealTime()
        ->Unit(benchmark::kMillisecond);
    // Probe with empty buffers: the runners only build views, they do not touch memory.
    {
      Buffers probe;
      if (eigen_runner(w, probe))
        benchmark::RegisterBenchmark((base + "eigen").c_str(),
                                     [&w](benchmark::State& s) { run_peer(s, w, eigen_runner); })
            ->MinTime(0.3)
            ->UseRealTime()
            ->Unit(benchmark::kMillisecond);
#ifdef DMLCERT_BENCH_TORCH
      if (torch_has(w.name))
        benchmark::RegisterBenchmark((base + "torch").c_str(),
                                     [&w](benchmark::State& s) { run_peer(s, w, torch_runner); })
            ->MinTime(0.3)
            ->UseRealTime()
            ->Unit(benchmark::kMillisecond);
#endif
    }
    benchmark::RegisterBenchmark((base + (w.roofline == Roofline::Copy ? "copy" : "read")).c_str(),
                                 [&w](benchmark::State& s) { run_roofline(s, w); })
        ->MinTime(0.3)
        ->UseRealTime()
        ->Unit(benchmark::kMillisecond);
  }
}

}  // namespace
}  // namespace dmlcert::bench

int main(int argc, char** argv) {
  dmlcert::bench::register_all();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}

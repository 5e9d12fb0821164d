// Our own optimized backend as evidence that the generators reach where fast kernels change
// behaviour: for every threshold in backends/optimized (work on the thread pool, thread shares,
// kernel widths, blocked reductions, streaming stores past the cache), a quick certification asks
// calls on both sides of it.
//
// The certification is the real one (the quick budget's plan, generators and seeds, through the
// engine), run in-process against a backend that only records: for each call it rebuilds the loop
// nest the optimized operator would build (backends/optimized/<op>.cpp) and notes which side of
// each threshold the call falls on, and an oracle that expects the output the harness fills before
// the call, so that nothing is computed twice. It costs about 28 s of CPU (58 s of wall time at a
// load average of 7 on two cores); an optimized build only.
//
// The streaming rows here are reached by the huge items, which `dmlcert certify` binds in full
// (cmd_certify.cpp, max_buffer_bytes: the case footprint's limit).
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <mutex>

#include "build_kind.h"
#include "certify.h"
#include "dmlcert/validate.h"
#include "optimized/canonicalize.h"
#include "optimized/copy.h"
#include "optimized/cpu.h"
#include "optimized/optimized.h"
#include "optimized/reduce_engine.h"
#include "optimized/reduce_width.h"
#include "recorded_quick_plan.h"

namespace dmlcert {
namespace {

namespace opt = optimized;

// The cache the "past the cache" rows are taken against: the backend's own figure (optimized/cpu.h,
// the streaming stores' default threshold), but at most the 32 MiB it assumes where none is
// reported. A quick plan's largest cases (64 MiB) are sized for caches of that order; a virtual
// machine that reports a much larger cache (260 MiB seen) puts the backend's own threshold past
// every case a quick plan can afford, and there these rows check the plan against a 32 MiB cache.
uint64_t cache_bytes() {
  return std::min(opt::last_level_cache_bytes(), opt::kAssumedLastLevelCacheBytes);
}

// Thresholds that backends/optimized keeps inside functions or .cpp files, restated (where each
// lives is named); those in headers are used directly below.
constexpr uint64_t kMinParallelBytes = uint64_t{1} << 16;  // thread_pool.h, parallel_for
constexpr uint64_t kRangesPerThread = 8;                   // thread_pool.h, ThreadPool
constexpr uint64_t kShortRunBytes = uint64_t{64} << 10;    // copy.cpp: rows kernels below, chunks above
constexpr uint64_t kChunkBytes = uint64_t{256} << 10;      // canonicalize.h: for_each_run_parallel's chunks
constexpr uint64_t kGatherStreamingBytes = uint64_t{4} << 20;  // gather_elements.cpp
constexpr uint64_t kGatherColumnTile = 64;                     // gather_elements.cpp

// Which side of each threshold the calls fell on: [0] below, [1] at or above.
struct Sides {
  uint64_t side[2] = {0, 0};
};

class Tally {
 public:
  void note(const std::string& threshold, bool above) {
    std::lock_guard<std::mutex> hold(lock_);
    ++sides_[threshold].side[above ? 1 : 0];
  }
  std::map<std::string, Sides> sides() const {
    std::lock_guard<std::mutex> hold(lock_);
    return sides_;
  }

 private:
  mutable std::mutex lock_;
  std::map<std::string, Sides> sides_;
};

unsigned threads() {
  return opt::thread_count();
}

// The block a run kernel of `es`-byte elements moves at once on this CPU (copy.cpp,
// run_kernel_widest): 64 or 32 bytes for elements of 4 bytes or more where the CPU has them, else 16.
uint64_t block_elements(size_t es) {
  const uint64_t bytes = es >= 4 && opt::cpu_has_avx512bw()    ? 64
                         : es >= 4 && opt::cpu_has_avx2_f16c() ? 32
                                                               : 16;
  return bytes / es;
}

// A loop nest's pool work (parallel_for): on the pool, and, there, fewer items than ranges.
void note_pool(Tally& t, const std::string& op, uint64_t items, uint64_t bytes) {
  const bool pooled = items > 1 && bytes >= kMinParallelBytes;
  t.note(op + ": work on the thread pool (64 KiB touched)", pooled);
  if (pooled)
    t.note(op + ": thread shares (" + std::to_string(threads() * kRangesPerThread) + " ranges)",
           items >= threads() * kRangesPerThread);
}

// strided_copy (copy.cpp) over a canonical nest: which path, which kernel, which stores.
void note_copy(Tally& t, const std::string& op, const opt::LoopNest& nest, size_t es, opt::OutputNext next) {
  const opt::Dim& inner = nest.inner();
  const bool rows = nest.dims.size() >= 2 && inner.size * es <= kShortRunBytes;
  t.note(op + ": rows kernels or runs cut in chunks (64 KiB runs)", !rows);
  uint64_t items = 0;
  if (rows) {
    const uint64_t rows_per_item =
        std::max<uint64_t>(1, kChunkBytes / std::max<uint64_t>(1, inner.size * es));
    const uint64_t blocks = (nest.dims[nest.dims.size() - 2].size + rows_per_item - 1) / rows_per_item;
    items = nest.count() / inner.size / nest.dims[nest.dims.size() - 2].size * blocks;
    t.note(op + ": a tile's rows cut in blocks (256 KiB tiles)", blocks > 1);
  } else {
    const uint64_t chunk = std::max<uint64_t>(1, kChunkBytes / es);
    const uint64_t chunks = nest.outer_count() >= 64 ? 1 : (inner.size + chunk - 1) / chunk;
    items = nest.outer_count() * chunks;
    t.note(op + ": a run cut in chunks (256 KiB runs)", chunks > 1);
  }
  note_pool(t, op, items, nest.count() * es);
  // The vector kernels of reversed and every-second runs move a block at once: a run shorter than
  // a block, and one that ends in a part of a block.
  const char* kernel = inner.stride[0] != 1    ? nullptr
                       : inner.stride[1] == -1 ? "reversed"
                       : inner.stride[1] == 2  ? "every-second"
                                               : nullptr;
  if (kernel && inner.size >= 2) {
    const uint64_t block = block_elements(es);
    t.note(op + ": " + kernel + " runs of a block or more", inner.size >= block);
    if (inner.size >= block)
      t.note(op + ": " + kernel + " runs ending in a part of a block", inner.size % block != 0);
  }
  t.note(op + ": streaming stores past the cache", opt::copy_streams_output(nest, es, next, cache_bytes()));
}

// The nests of backends/optimized/slice.cpp and slice1.cpp.
void note_slice(Tally& t, const SliceDesc& d) {
  const auto in = effective_strides(d.input), out = effective_strides(d.output);
  opt::LoopNest nest;
  nest.streams = 2;
  for (size_t i = 0; i < d.output.sizes.size(); ++i) {
    nest.base[1] += static_cast<int64_t>(d.offsets[i]) * static_cast<int64_t>(in[i]);
    const int64_t step =
        d.output.sizes[i] == 1 ? 0 : static_cast<int64_t>(in[i]) * static_cast<int64_t>(d.strides[i]);
    nest.dims.push_back(opt::Dim{d.output.sizes[i], {static_cast<int64_t>(out[i]), step, 0}});
  }
  opt::canonicalize_for_copy(nest, 0);
  note_copy(t, "SLICE", nest, element_size(d.input.type), opt::OutputNext::Returned);
}

void note_slice1(Tally& t, const Slice1Desc& d) {
  const auto in = effective_strides(d.input), out = effective_strides(d.output);
  opt::LoopNest nest;
  nest.streams = 2;
  for (size_t i = 0; i < d.output.sizes.size(); ++i) {
    const int64_t step = d.input_window_strides[i];
    const int64_t start = static_cast<int64_t>(d.input_window_offsets[i]) +
                          (step < 0 ? static_cast<int64_t>(d.input_window_sizes[i]) - 1 : 0);
    nest.base[1] += start * static_cast<int64_t>(in[i]);
    nest.dims.push_back(
        opt::Dim{d.output.sizes[i], {static_cast<int64_t>(out[i]), static_cast<int64_t>(in[i]) * step, 0}});
  }
  opt::canonicalize_for_copy(nest, 0);
  note_copy(t, "SLICE1", nest, element_size(d.input.type), opt::OutputNext::Returned);
}

// backends/optimized/scatter_nd.cpp: the copy of the input into the output, then the blocks.
void note_scatter_nd(Tally& t, const ScatterNdDesc& d) {
  const auto in = effective_strides(d.input), out = effective_strides(d.output);
  opt::LoopNest copy;
  copy.streams = 2;
  for (size_t i = 0; i < d.input.sizes.size(); ++i)
    copy.dims.push_back(
        opt::Dim{d.input.sizes[i], {static_cast<int64_t>(out[i]), static_cast<int64_t>(in[i]), 0}});
  opt::canonicalize_for_copy(copy, 0);
  note_copy(t, "SCATTER_ND", copy, element_size(d.input.type), opt::OutputNext::UpdatedInPlace);
  const uint64_t tuples = element_count(d.indices.sizes).value_or(0) / d.indices.sizes.back();
  t.note("SCATTER_ND: tuples shared out by owner (4 per thread)", tuples >= 4 * threads());
}

// backends/optimized/gather_elements.cpp.
void note_gather_elements(Tally& t, const GatherElementsDesc& d) {
  const auto in = effective_strides(d.input), out = effective_strides(d.output),
             idx = effective_strides(d.indices);
  opt::LoopNest nest;
  nest.streams = 3;
  for (size_t i = 0; i < d.output.sizes.size(); ++i)
    nest.dims.push_back(opt::Dim{d.output.sizes[i],
                                 {static_cast<int64_t>(out[i]), i == d.axis ? 0 : static_cast<int64_t>(in[i]),
                                  static_cast<int64_t>(idx[i])}});
  opt::canonicalize_for_copy(nest, 0);
  const opt::Dim& inner = nest.inner();
  const size_t es = element_size(d.input.type), xs = element_size(d.indices.type);
  const uint64_t bytes = nest.count() * (2 * es + xs);
  const bool columns = inner.stride[1] != 0 && nest.outer_count() > 1 && inner.size >= 2 * kGatherColumnTile;
  t.note("GATHER_ELEMENTS: column tiles (runs of 128)", columns);
  note_pool(t, "GATHER_ELEMENTS",
            columns ? (inner.size + kGatherColumnTile - 1) / kGatherColumnTile : nest.outer_count(), bytes);
  t.note("GATHER_ELEMENTS: streaming stores (4 MiB out)", nest.count() * es >= kGatherStreamingBytes);
  const bool row_gather = es == 4 && xs == 4 && inner.stride[0] == 1 && inner.stride[1] == 0 &&
                          inner.stride[2] == 1 && in[d.axis] == 1 && opt::cpu_has_avx2_f16c();
  if (row_gather) {
    t.note("GATHER_ELEMENTS: 8-wide gathers of a row", inner.size >= 8);
    if (inner.size >= 8) t.note("GATHER_ELEMENTS: 8-wide gathers ending in a part", inner.size % 8 != 0);
  }
}

// backends/optimized/reduce.cpp and reduce_engine.h: the plan, the engine and its blocks.
void note_reduce(Tally& t, const ReduceDesc& d) {
  namespace rd = opt::reduce_detail;
  const rd::Plan p = rd::make_plan(d);
  const uint64_t bytes = p.n * p.outputs * p.in_bytes;
  t.note("REDUCE: the columns engine (a kept innermost dimension of 8)", p.column);
  if (p.column) {
    const uint64_t tiles = (p.run.size + rd::kTile - 1) / rd::kTile;
    const uint64_t blocks = (p.n + rd::kColumnBlock - 1) / rd::kColumnBlock;
    t.note("REDUCE: columns in tiles of 4096", tiles > 1);
    t.note("REDUCE: columns in blocks of 256 reduced coordinates", blocks > 1);
    note_pool(t, "REDUCE",
              blocks == 1 || p.kept.outer_count() * tiles >= 4 * threads()
                  ? p.kept.outer_count() * tiles
                  : p.kept.outer_count() * tiles * blocks,
              bytes);
  } else {
    const uint64_t blocks = (p.n + rd::kBlock - 1) / rd::kBlock;
    t.note("REDUCE: rows in blocks of 2^15", blocks > 1);
    if (blocks > 1) t.note("REDUCE: blocks of few outputs on the pool", p.outputs < 4 * threads());
    t.note("REDUCE: runs past a segment of 4096", p.run.size > rd::kSegment);
    t.note("REDUCE: runs of 32 lanes or more", p.run.size >= static_cast<uint64_t>(rd::kLanes));
    note_pool(t, "REDUCE", blocks == 1 || p.outputs >= 4 * threads() ? p.outputs : p.outputs * blocks, bytes);
  }
  const bool streams = d.function == ReduceFunction::SUM || d.function == ReduceFunction::MAX ||
                       d.function == ReduceFunction::MIN;
  if (streams &&
      (d.input.type == DataType::FLOAT32 || (is_integer(d.input.type) && element_size(d.input.type) <= 4)))
    t.note("REDUCE: 16-byte kernels for rows read past the cache",
           opt::narrow_kernels_stream_faster(d.input.type, d.function, p.column, bytes, cache_bytes()));
}

// Records each call it is asked to run and runs nothing: invalid calls are rejected, others leave
// the output as the harness filled it.
class RecordingBackend final : public Backend {
 public:
  explicit RecordingBackend(Tally& tally) : tally_(tally) {}
  std::string name() const override { return "recording"; }
  FeatureLevel max_feature_level() const override { return FeatureLevel::L6_4; }
  bool implements(OpKind, std::optional<ReduceFunction>, DataType) const override { return true; }
  bool reports_rules() const override { return false; }
  ExecResult execute(const OperatorDesc& desc, FeatureLevel level, const Bindings&) override {
    if (!validate(desc, level).invalid.empty()) return exec_result(Status::InvalidArgument, Fault::None, "");
    std::visit(
        [&](const auto& d) {
          using D = std::decay_t<decltype(d)>;
          if constexpr (std::is_same_v<D, SliceDesc>) note_slice(tally_, d);
          if constexpr (std::is_same_v<D, Slice1Desc>) note_slice1(tally_, d);
          if constexpr (std::is_same_v<D, ScatterNdDesc>) note_scatter_nd(tally_, d);
          if constexpr (std::is_same_v<D, GatherElementsDesc>) note_gather_elements(tally_, d);
          if constexpr (std::is_same_v<D, ReduceDesc>) note_reduce(tally_, d);
        },
        desc);
    return ExecResult{};
  }

 private:
  Tally& tally_;
};

// The thresholds a quick certification at 5_0 must reach on both sides. Rows that only apply to
// some CPUs (the 8-wide gathers, the 16-byte REDUCE kernels) are asked where they apply.
const char* const kThresholds[] = {
    "SLICE: work on the thread pool (64 KiB touched)",
    "SLICE: thread shares (16 ranges)",
    "SLICE: rows kernels or runs cut in chunks (64 KiB runs)",
    "SLICE: a tile's rows cut in blocks (256 KiB tiles)",
    "SLICE: every-second runs of a block or more",
    "SLICE: every-second runs ending in a part of a block",
    "SLICE: streaming stores past the cache",
    "SLICE1: work on the thread pool (64 KiB touched)",
    "SLICE1: thread shares (16 ranges)",
    "SLICE1: rows kernels or runs cut in chunks (64 KiB runs)",
    "SLICE1: reversed runs of a block or more",
    "SLICE1: reversed runs ending in a part of a block",
    "SLICE1: every-second runs of a block or more",
    "SLICE1: streaming stores past the cache",
    "SCATTER_ND: work on the thread pool (64 KiB touched)",
    "SCATTER_ND: rows kernels or runs cut in chunks (64 KiB runs)",
    "SCATTER_ND: streaming stores past the cache",
    "SCATTER_ND: tuples shared out by owner (4 per thread)",
    "GATHER_ELEMENTS: work on the thread pool (64 KiB touched)",
    "GATHER_ELEMENTS: thread shares (16 ranges)",
    "GATHER_ELEMENTS: column tiles (runs of 128)",
    "GATHER_ELEMENTS: streaming stores (4 MiB out)",
    "REDUCE: work on the thread pool (64 KiB touched)",
    "REDUCE: thread shares (16 ranges)",
    "REDUCE: the columns engine (a kept innermost dimension of 8)",
    "REDUCE: columns in tiles of 4096",
    "REDUCE: columns in blocks of 256 reduced coordinates",
    "REDUCE: rows in blocks of 2^15",
    "REDUCE: blocks of few outputs on the pool",
    "REDUCE: runs past a segment of 4096",
    "REDUCE: runs of 32 lanes or more",
};

TEST(Thresholds, AQuickCertificationReachesBothSidesOfEveryThresholdOfTheOptimizedBackend) {
  // The thresholds are the Release build's; under sanitizers the same plan costs minutes.
  if (!test::kOptimized) GTEST_SKIP() << "an optimized build's test";
  // The thread shares of two threads, as on the two cores the quick budget is calibrated on.
  opt::set_thread_count(2);
  Tally tally;
  std::string error;
  const auto report = test::certify_quick_plan(
      "thresholds_test", [&] { return std::make_unique<RecordingBackend>(tally); }, &error);
  ASSERT_TRUE(report) << error;
  ASSERT_TRUE(report->failures.empty())
      << report->failures.front().id.to_string() << ": " << report->failures.front().detail;
  const auto sides = tally.sides();
  for (const char* threshold : kThresholds) {
    const auto it = sides.find(threshold);
    ASSERT_NE(it, sides.end()) << threshold << ": no call asked";
    EXPECT_GT(it->second.side[0], 0u) << threshold << ": no call below it";
    EXPECT_GT(it->second.side[1], 0u) << threshold << ": no call at or above it";
  }
  // Where this CPU has them: the AVX2 row gather, and the 16-byte kernels a REDUCE switches to when its
  // input does not fit the cache (reduce_width.h).
  for (const char* optional :
       {"GATHER_ELEMENTS: 8-wide gathers of a row", "REDUCE: 16-byte kernels for rows read past the cache"}) {
    const auto it = sides.find(optional);
    if (it == sides.end()) continue;
    EXPECT_GT(it->second.side[0], 0u) << optional << ": no call below it";
    EXPECT_GT(it->second.side[1], 0u) << optional << ": no call at or above it";
  }
  for (const auto& [threshold, s] : sides)
    std::printf("%-70s below %8llu  at or above %8llu\n", threshold.c_str(),
                static_cast<unsigned long long>(s.side[0]), static_cast<unsigned long long>(s.side[1]));
  opt::set_thread_count(0);
}

}  // namespace
}  // namespace dmlcert

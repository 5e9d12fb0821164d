// REDUCE: each output element applies the function to the input elements that share its kept
// coordinates.
//
// Plan: the call becomes a canonical nest of kept and reduced dims (size-1 dims dropped, neighbours
// of the same kind merged, order kept so that the flattened ARG* index stays row-major). Two
// engines then run it:
// - columns, when the innermost dim is kept: a tile of neighbouring outputs is accumulated
//   together, one accumulator per output, walking the reduced coordinates in order, in fixed
//   blocks of kColumnBlock coordinates whose partial results are folded in order;
// - rows, otherwise: each output's elements (in flattened order) are cut into fixed blocks of
//   kBlock elements; a block is accumulated in kLanes independent lanes, the lanes are folded by a
//   fixed tree, and the blocks are folded in order.
// Neither structure depends on the thread count: threads only choose which outputs (or blocks)
// they compute, so every result is identical for any DMLCERT_THREADS, and in exact mode identical
// to the reference. FLOAT16 data is converted to float as it is loaded (F16C where available);
// see reduce_ops.h for the accumulation types and the accuracy argument.
//
// This header holds the engines, templated on the instruction set's kernels (K). Each
// instantiation is compiled in its own file (reduce_{float,integer}_{baseline,avx2,avx512}.cpp), so
// that they compile in parallel; reduce.cpp plans the call and picks one (reduce_width.h).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>

#include "dmlcert/reduce_groups.h"
#include "optimized/canonicalize.h"
#include "optimized/kernels.h"
#include "optimized/optimized.h"
#include "optimized/reduce_ops.h"

namespace dmlcert::optimized::reduce_detail {

constexpr int kLanes = isa_baseline::Kernels::kLanes;
constexpr uint64_t kBlock = uint64_t{1} << 15;  // elements per row-engine block
constexpr uint64_t kSegment = 4096;             // elements per kernel call and scratch buffer (>= kTile)
// Outputs per column-engine tile. A tile of FLOAT32 sums keeps 32 KiB of double accumulators, as
// much as L1, which the engine loads and stores once per K::kRows rows; narrower tiles keep them in
// L1 but cut each row into short runs, which the prefetchers follow worse. SUM over axis 0 of
// [4096, 4096] and [8192, 4096], opt/read_hw in two alternated runs of 5 rounds on a quiet 2-core
// host, tiles of 4096 / 1024 / 512 outputs: 0.81-0.82 / 0.47-0.70 / 0.42-0.51 (64 MiB), 0.86 /
// 0.52-0.73 / 0.47-0.58 (128 MiB).
constexpr uint64_t kTile = 4096;
constexpr uint64_t kColumnBlock = 256;  // reduced coordinates per column-engine block
constexpr int kReduced = 1, kKept = 0;
constexpr uint32_t kNoIndex = std::numeric_limits<uint32_t>::max();

// The canonical form of one call.
struct Plan {
  DataType in_type, out_type;
  size_t in_bytes, out_bytes;
  uint64_t n = 1;        // elements per output (N)
  uint64_t outputs = 1;  // output elements
  bool column = false;   // which engine
  LoopNest kept;         // streams {input, output}: the outputs the engine iterates (+ unit inner dim)
  LoopNest reduced;      // stream {input}: all reduced dims in order (+ unit inner dim)
  LoopNest run_outer;    // rows: reduced dims but the last (+ unit inner dim)
  Dim run;               // rows: the last reduced dim; columns: the innermost (kept) dim
  // Whether the row kernels prefetch ahead of their stream in software (reduce_width.h:
  // stream_prefetch_pays); set by the caller, not by make_plan, which reads only the descriptor.
  bool prefetch = false;
};

// Under clang the AVX2 and AVX-512 files compile this header for their instruction set as a whole
// (kernels.h). Each instruction set's copy of what follows lives in a namespace of its own, so that
// no function is emitted by both a vector file and a baseline file, where the linker could keep the
// vector copy for a baseline caller (tests/check-isa-objects.sh).
#if defined(__clang__) && defined(__AVX512F__)
#define DMLCERT_ENGINE_ISA engine_avx512
#elif defined(__clang__) && defined(__AVX2__)
#define DMLCERT_ENGINE_ISA engine_avx2
#else
#define DMLCERT_ENGINE_ISA engine_baseline
#endif
inline namespace DMLCERT_ENGINE_ISA {

inline LoopNest with_unit_inner(std::vector<Dim> dims, int streams) {
  LoopNest nest;
  nest.streams = streams;
  nest.dims = std::move(dims);
  nest.dims.push_back(Dim{});
  return nest;
}

inline Plan make_plan(const ReduceDesc& d) {
  Plan p;
  p.in_type = d.input.type;
  p.out_type = d.output.type;
  p.in_bytes = element_size(p.in_type);
  p.out_bytes = element_size(p.out_type);
  const auto axes = axis_set(d.axes);
  const auto in_strides = effective_strides(d.input);
  const auto out_strides = effective_strides(d.output);
  LoopNest nest;
  nest.streams = 2;
  for (size_t i = 0; i < d.input.sizes.size(); ++i) {
    const bool reduced = std::find(axes.begin(), axes.end(), i) != axes.end();
    nest.dims.push_back(
        Dim{d.input.sizes[i],
            {static_cast<int64_t>(in_strides[i]), reduced ? 0 : static_cast<int64_t>(out_strides[i]), 0},
            reduced ? kReduced : kKept});
  }
  simplify(nest);
  std::vector<Dim> kept, reduced;
  for (const Dim& dim : nest.dims) {
    if (dim.size == 1) continue;  // the all-dropped placeholder
    (dim.kind == kReduced ? reduced : kept).push_back(dim);
  }
  // No reduced dim left (no axes, REDUCE.AXES_EMPTY, or only size-1 axes): N = 1.
  if (reduced.empty()) reduced.push_back(Dim{1, {0, 0, 0}, kReduced});
  for (const Dim& dim : reduced) p.n *= dim.size;
  for (const Dim& dim : kept) p.outputs *= dim.size;
  p.reduced = with_unit_inner(reduced, 1);
  const bool inner_kept = !nest.dims.empty() && nest.dims.back().kind == kKept && nest.dims.back().size >= 8;
  if (inner_kept) {
    p.column = true;
    p.run = kept.back();
    kept.pop_back();
  } else {
    p.run = reduced.back();
    reduced.pop_back();
    p.run_outer = with_unit_inner(reduced, 1);
  }
  p.kept = with_unit_inner(kept, 2);
  return p;
}

// --- Reducers: the state of a partial reduction and how states combine. -------------------------

template <class Op>
struct ValueReducer {
  using In = typename Op::In;
  using Acc = typename Op::Acc;
  using State = Acc;
  struct Lanes {
    Acc a[kLanes];
    Lanes() {
      for (Acc& x : a) x = Op::identity();
    }
  };
  struct Columns {
    Acc a[kTile];
    void init(size_t n) {
      for (size_t j = 0; j < n; ++j) a[j] = Op::identity();
    }
    State at(size_t j) const { return a[j]; }
    void set(size_t j, State s) { a[j] = s; }
  };
  template <class K>
  static void add_run(Lanes& l, const unaligned_t<In>* x, size_t n, uint32_t, bool prefetch) {
    K::template lanes<Op>(x, n, l.a, prefetch);
  }
  template <class K>
  static void add_columns(Columns& c, const unaligned_t<In>* x, size_t n, uint32_t) {
    K::template columns<Op>(x, n, c.a);
  }
  template <class K>
  static bool add_run_f16(Lanes& l, const u16u* x, size_t n, bool prefetch) {
    return K::template lanes_f16<Op>(x, n, l.a, prefetch);
  }
  template <class K>
  static void add_column_rows(Columns& c, const unaligned_t<In>* const* x, size_t n, uint32_t) {
    K::template columns_rows<Op>(x, n, c.a);
  }
  static DMLCERT_INLINE State fold(const Lanes& l) {
    Acc a[kLanes];
    for (int j = 0; j < kLanes; ++j) a[j] = l.a[j];
    return ops::fold_lanes<Op>(a);
  }
  // A whole output whose elements are one contiguous run of one segment: its Lanes, add_run and
  // fold in one kernel call (Engine::block_state says why).
  static constexpr bool kHasRow = true;
  template <class K>
  static State row(const unaligned_t<In>* x, size_t n, bool prefetch) {
    return K::template row<Op>(x, n, prefetch);
  }
  static State combine(State a, State b) { return Op::op(a, b); }
};

template <class T, class Cmp>
struct ArgReducer {
  static constexpr bool kHasRow = false;
  using In = T;
  struct State {
    T v;
    uint32_t i;
  };
  static T identity() {
    constexpr bool max = std::is_same_v<Cmp, ops::Greater>;
    if constexpr (std::is_floating_point_v<T>)
      return max ? -std::numeric_limits<T>::infinity() : std::numeric_limits<T>::infinity();
    return max ? std::numeric_limits<T>::lowest() : std::numeric_limits<T>::max();
  }
  struct Lanes {
    T v[kLanes];
    uint32_t i[kLanes];
    Lanes() {
      for (int j = 0; j < kLanes; ++j) v[j] = identity(), i[j] = kNoIndex;
    }
  };
  struct Columns {
    T v[kTile];
    uint32_t i[kTile];
    void init(size_t n) {
      for (size_t j = 0; j < n; ++j) v[j] = identity(), i[j] = kNoIndex;
    }
    State at(size_t j) const { return {v[j], i[j]}; }
    void set(size_t j, State s) { v[j] = s.v, i[j] = s.i; }
  };
  template <class K>
  static void add_run(Lanes& l, const unaligned_t<In>* x, size_t n, uint32_t first, bool prefetch) {
    K::template arg_lanes<Cmp, T>(x, n, l.v, l.i, first, prefetch);
  }
  template <class K>
  static void add_columns(Columns& c, const unaligned_t<In>* x, size_t n, uint32_t index) {
    K::template arg_columns<Cmp, T>(x, n, c.v, c.i, index);
  }
  template <class K>
  static bool add_run_f16(Lanes&, const u16u*, size_t, bool) {
    return false;
  }
  template <class K>
  static void add_column_rows(Columns& c, const unaligned_t<In>* const* x, size_t n, uint32_t index) {
    for (uint32_t r = 0; r < K::kRows; ++r) add_columns<K>(c, x[r], n, index + r);
  }
  // The better value wins; equal values go to the lower index (docs/semantics.md: first index on ties). This
  // makes the combination independent of order.
  static State combine(State a, State b) {
    return (Cmp::better(b.v, a.v) || (b.v == a.v && b.i < a.i)) ? b : a;
  }
  static DMLCERT_INLINE State fold(const Lanes& l) {
    State s{l.v[0], l.i[0]};
    for (int j = 1; j < kLanes; ++j) s = combine(s, State{l.v[j], l.i[j]});
    return s;
  }
};

// LOG_SUM_EXP as a running (m, sum of exp(x - m)) pair, so that large inputs (exp(1000) is inf
// even in double) give log(sum exp(x)) = m + log(sum exp(x - m)) without overflow. The pairs
// combine exactly like the partial sums they stand for, in the engines' fixed order. m is the
// max, or for a segment from the vector kernel a shift at most K::kShiftHeadroom below it.
//
// The rows engine computes one pair per segment (at most kSegment elements, fixed by the block
// and run structure, so not by the thread count) with the vector kernel K::log_sum_exp (one pass
// with a vector exp where the data allow; kernels.inc derives why that stays inside the bound of
// harness/core/src/reduce_bounds.cpp). Segments with a NaN or a +inf (class U data) and the columns
// engine take the element-by-element path, add(), with the library's exp in double.
struct LogSumExpReducer {
  static constexpr bool kHasRow = false;
  using In = float;
  struct State {
    double m = -std::numeric_limits<double>::infinity();  // no element yet
    double s = 0;
  };
  static void add(State& st, double x) {
    if (x == -std::numeric_limits<double>::infinity()) return;  // exp(-inf) adds nothing
    if (x > st.m) {
      st.s = st.s * std::exp(st.m - x) + 1.0;
      st.m = x;
    } else {
      st.s += std::exp(x - st.m);
    }
  }
  static State combine(State a, State b) {
    if (b.m == -std::numeric_limits<double>::infinity()) return a;
    if (a.m == -std::numeric_limits<double>::infinity()) return b;
    const double m = std::max(a.m, b.m);
    return {m, a.s * std::exp(a.m - m) + b.s * std::exp(b.m - m)};
  }
  struct Lanes {
    State running;  // the segments so far, combined in order
  };
  struct Columns {
    State c[kTile];
    void init(size_t n) { std::fill(c, c + n, State{}); }
    State at(size_t j) const { return c[j]; }
    void set(size_t j, State st) { c[j] = st; }
  };
  template <class K>
  static void add_run(Lanes& l, const unaligned_t<In>* x, size_t n, uint32_t, bool prefetch) {
    State segment;
    float m;
    if (K::log_sum_exp(x, n, &m, &segment.s, prefetch)) {
      segment.m = m;
    } else {
      for (size_t i = 0; i < n; ++i) add(segment, x[i]);
    }
    l.running = combine(l.running, segment);
  }
  template <class K>
  static bool add_run_f16(Lanes&, const u16u*, size_t, bool) {
    return false;
  }
  template <class K>
  static void add_columns(Columns& c, const unaligned_t<In>* x, size_t n, uint32_t) {
    for (size_t j = 0; j < n; ++j) add(c.c[j], x[j]);
  }
  template <class K>
  static void add_column_rows(Columns& c, const unaligned_t<In>* const* x, size_t n, uint32_t) {
    for (int r = 0; r < K::kRows; ++r) add_columns<K>(c, x[r], n, 0);
  }
  static DMLCERT_INLINE State fold(const Lanes& l) { return l.running; }
};

// --- The engines. ------------------------------------------------------------------------------

template <class K, class R>
struct Engine {
  using In = typename R::In;
  using State = typename R::State;
  const Plan& p;
  const std::byte* in;
  std::byte* out;

  // A contiguous In view of n elements starting at `src`, `stride` elements apart, converting
  // FLOAT16 to float and gathering strided data into `buf` (kSegment elements).
  const unaligned_t<In>* segment(const std::byte* src, int64_t stride, size_t n, In* buf) const {
    if constexpr (std::is_same_v<In, float>) {
      if (p.in_type == DataType::FLOAT16) {
        uint16_t bits[kSegment];
        const u16u* h = reinterpret_cast<const u16u*>(src);
        if (stride != 1) {
          for (size_t j = 0; j < n; ++j) bits[j] = h[static_cast<int64_t>(j) * stride];
          h = bits;
        }
        K::f16_to_f32(h, n, buf);
        return buf;
      }
    }
    const unaligned_t<In>* x = reinterpret_cast<const unaligned_t<In>*>(src);
    if (stride == 1) return x;
    for (size_t j = 0; j < n; ++j) buf[j] = x[static_cast<int64_t>(j) * stride];
    return buf;
  }

  // Rows engine: the state of block `blk` of the output whose kept input offset is in_base.
  State block_state(int64_t in_base, uint64_t blk, In* buf) const {
    // An output of one contiguous segment (a row of up to kSegment elements) in one kernel call,
    // whose accumulators stay in registers until the fold: rows of 4096 FLOAT32 SUMs read from the
    // L3 spent 6% of their time here, in the Lanes, the fold and the call, around the kernel (a
    // profile of 64 MiB, [4096, 4096]). On two cores of an Intel Xeon (Sapphire Rapids
    // generation), opt/roofline without / with this path, medians of two alternated runs of 3
    // rounds: FLOAT32 row SUM 0.90 / 0.96 and 0.90 / 0.98, L2 0.87 / 0.95 and 0.88 / 0.96, INT32
    // row SUM 1.03 / 1.10, row MAX 0.97 / 1.08.
    if constexpr (R::kHasRow) {
      if (p.n <= kSegment && p.run.size == p.n && p.run.stride[0] == 1 && p.in_type != DataType::FLOAT16)
        return R::template row<K>(
            reinterpret_cast<const unaligned_t<In>*>(in + in_base * static_cast<int64_t>(p.in_bytes)), p.n,
            p.prefetch);
    }
    typename R::Lanes lanes;
    const uint64_t len = p.run.size;
    const int64_t s = p.run.stride[0];
    const uint64_t e0 = blk * kBlock, e1 = std::min(p.n, e0 + kBlock);
    const uint64_t q0 = e0 / len, q1 = (e1 - 1) / len;
    uint64_t q = q0;
    for_each_outer(p.run_outer, q0, q1 + 1, [&](const std::array<int64_t, kMaxStreams>& off) {
      const uint64_t p0 = q == q0 ? e0 - q * len : 0, p1 = q == q1 ? e1 - q * len : len;
      for (uint64_t pos = p0; pos < p1; pos += kSegment) {
        const size_t n = std::min<uint64_t>(kSegment, p1 - pos);
        const std::byte* src =
            in + (in_base + off[0] + static_cast<int64_t>(pos) * s) * static_cast<int64_t>(p.in_bytes);
        if (p.in_type == DataType::FLOAT16 && s == 1 &&
            R::template add_run_f16<K>(lanes, reinterpret_cast<const u16u*>(src), n, p.prefetch))
          continue;
        R::template add_run<K>(lanes, segment(src, s, n, buf), n, static_cast<uint32_t>(q * len + pos),
                               p.prefetch);
      }
      ++q;
    });
    return R::fold(lanes);
  }

  template <class Finish>
  void rows(Finish& finish) const {
    const uint64_t blocks = (p.n + kBlock - 1) / kBlock;
    const uint64_t bytes = p.n * p.outputs * p.in_bytes;
    const unsigned threads = pool().size();
    // Each thread reads its outputs one after another: one stream per core. Reading four rows side
    // by side, four streams per core, had been measured faster on a host busy with other work; on
    // a quiet two-core AMD EPYC (Zen 4, 32 MiB L3) it was slower on every row workload of
    // dmlcert_bench (two alternated runs of 3 rounds each, opt/read_hw side by side / one by one):
    // FLOAT32 SUM from memory 0.77-0.84 / 0.91-0.93, INT32 SUM 0.74-0.76 / 0.97-1.03, MAX
    // 0.85-0.94 / 0.97-1.00, L2 0.76-0.82 / 0.94-1.00, FLOAT16 SUM 0.74-0.81 / 0.99-1.03, and with one
    // thread the 64 MiB FLOAT32 SUM read 0.55-0.60 / 0.88-0.89 (against libtorch, which reads one
    // row at a time: 0.56-0.59 / 1.13-1.20). Four streams 16 KiB apart meet in the same L1 sets,
    // and each is too short (a row) for the prefetchers to run ahead of it.
    if (blocks == 1 || p.outputs >= 4 * uint64_t{threads}) {
      parallel_for(p.outputs, bytes, [&](uint64_t begin, uint64_t end) {
        std::vector<In> buf(kSegment);
        for_each_outer(p.kept, begin, end, [&](const std::array<int64_t, kMaxStreams>& off) {
          State s = block_state(off[0], 0, buf.data());
          for (uint64_t blk = 1; blk < blocks; ++blk) s = R::combine(s, block_state(off[0], blk, buf.data()));
          finish(s, off[0], out + off[1] * static_cast<int64_t>(p.out_bytes));
        });
      });
      return;
    }
    // Few outputs, many blocks: blocks in parallel, folded afterwards in the same order.
    std::vector<State> states(p.outputs * blocks);
    parallel_for(p.outputs * blocks, bytes, [&](uint64_t begin, uint64_t end) {
      std::vector<In> buf(kSegment);
      for (uint64_t item = begin; item < end; ++item)
        for_each_outer(p.kept, item / blocks, item / blocks + 1,
                       [&](const std::array<int64_t, kMaxStreams>& off) {
                         states[item] = block_state(off[0], item % blocks, buf.data());
                       });
    });
    uint64_t o = 0;
    for_each_outer(p.kept, 0, p.outputs, [&](const std::array<int64_t, kMaxStreams>& off) {
      State s = states[o * blocks];
      for (uint64_t blk = 1; blk < blocks; ++blk) s = R::combine(s, states[o * blocks + blk]);
      finish(s, off[0], out + off[1] * static_cast<int64_t>(p.out_bytes));
      ++o;
    });
  }

  // Columns engine: the reduced coordinates are cut into fixed blocks of kColumnBlock; each block
  // accumulates a tile of outputs, and the blocks' tiles are folded in order.
  template <class Finish>
  void columns(Finish& finish) const {
    const uint64_t width = p.run.size;
    const int64_t sj = p.run.stride[0], oj = p.run.stride[1];
    const uint64_t tiles = (width + kTile - 1) / kTile;
    const uint64_t outer = p.kept.outer_count();
    const uint64_t blocks = (p.n + kColumnBlock - 1) / kColumnBlock;
    const uint64_t bytes = p.n * p.outputs * p.in_bytes;
    using Columns = typename R::Columns;
    // Accumulates reduced block `blk` of the tile at (kept offset base, width n) into c.
    auto block = [&](Columns& c, int64_t base, size_t n, uint64_t blk, In* buf) {
      c.init(n);
      const uint64_t r0 = blk * kColumnBlock, r1 = std::min(p.n, r0 + kColumnBlock);
      uint32_t r = static_cast<uint32_t>(r0);
      // K::kRows rows at a time, whatever the layout (contiguous rows are read in place, others
      // gathered into buf, one kSegment each), so that the grouping, and with it every rounding,
      // is the same for any strides; the rest of the block one row at a time.
      const unaligned_t<In>* rows[K::kRows];
      int pending = 0;
      for_each_outer(p.reduced, r0, r1, [&](const std::array<int64_t, kMaxStreams>& roff) {
        const std::byte* src = in + (base + roff[0]) * static_cast<int64_t>(p.in_bytes);
        rows[pending] = segment(src, sj, n, buf + pending * kSegment);
        if (++pending == K::kRows) {
          R::template add_column_rows<K>(c, rows, n, r);
          r += K::kRows;
          pending = 0;
        }
      });
      for (int i = 0; i < pending; ++i) R::template add_columns<K>(c, rows[i], n, r++);
    };
    auto fold_into = [](Columns& total, const Columns& part, size_t n) {
      for (size_t j = 0; j < n; ++j) total.set(j, R::combine(total.at(j), part.at(j)));
    };
    auto emit = [&](const Columns& c, const std::array<int64_t, kMaxStreams>& off, uint64_t j0, size_t n) {
      for (size_t j = 0; j < n; ++j) {
        const int64_t jj = static_cast<int64_t>(j0 + j);
        finish(c.at(j), off[0] + jj * sj, out + (off[1] + jj * oj) * static_cast<int64_t>(p.out_bytes));
      }
    };
    const unsigned threads = pool().size();
    if (blocks == 1 || outer * tiles >= 4 * uint64_t{threads}) {
      parallel_for(outer * tiles, bytes, [&](uint64_t begin, uint64_t end) {
        std::vector<In> buf(K::kRows * kSegment);
        auto total = std::make_unique<Columns>(), part = std::make_unique<Columns>();
        for (uint64_t item = begin; item < end; ++item) {
          const uint64_t j0 = (item % tiles) * kTile;
          const size_t n = std::min<uint64_t>(kTile, width - j0);
          for_each_outer(p.kept, item / tiles, item / tiles + 1,
                         [&](const std::array<int64_t, kMaxStreams>& off) {
                           const int64_t base = off[0] + static_cast<int64_t>(j0) * sj;
                           block(*total, base, n, 0, buf.data());
                           for (uint64_t blk = 1; blk < blocks; ++blk) {
                             block(*part, base, n, blk, buf.data());
                             fold_into(*total, *part, n);
                           }
                           emit(*total, off, j0, n);
                         });
        }
      });
      return;
    }
    // Few tiles: the (tile, block) pairs in parallel, folded afterwards in the same order.
    std::vector<Columns> parts(outer * tiles * blocks);
    parallel_for(parts.size(), bytes, [&](uint64_t begin, uint64_t end) {
      std::vector<In> buf(K::kRows * kSegment);
      for (uint64_t item = begin; item < end; ++item) {
        const uint64_t tile_item = item / blocks;
        const uint64_t j0 = (tile_item % tiles) * kTile;
        const size_t n = std::min<uint64_t>(kTile, width - j0);
        for_each_outer(p.kept, tile_item / tiles, tile_item / tiles + 1,
                       [&](const std::array<int64_t, kMaxStreams>& off) {
                         block(parts[item], off[0] + static_cast<int64_t>(j0) * sj, n, item % blocks,
                               buf.data());
                       });
      }
    });
    for (uint64_t tile_item = 0; tile_item < outer * tiles; ++tile_item) {
      const uint64_t j0 = (tile_item % tiles) * kTile;
      const size_t n = std::min<uint64_t>(kTile, width - j0);
      Columns& total = parts[tile_item * blocks];
      for (uint64_t blk = 1; blk < blocks; ++blk) fold_into(total, parts[tile_item * blocks + blk], n);
      for_each_outer(p.kept, tile_item / tiles, tile_item / tiles + 1,
                     [&](const std::array<int64_t, kMaxStreams>& off) { emit(total, off, j0, n); });
    }
  }

  template <class Finish>
  void run(Finish&& finish) const {
    if (p.column)
      columns(finish);
    else
      rows(finish);
  }

  // The value (as In) of group element `index` of the output at kept input offset in_base, for the
  // rare fix-ups below. Scalar.
  In element(int64_t in_base, uint64_t index, const std::byte** where) const {
    In v{};
    for_each_outer(p.reduced, index, index + 1, [&](const std::array<int64_t, kMaxStreams>& off) {
      const std::byte* src = in + (in_base + off[0]) * static_cast<int64_t>(p.in_bytes);
      *where = src;
      if constexpr (std::is_same_v<In, float>) {
        if (p.in_type == DataType::FLOAT16) {
          v = half_bits_to_float(load<uint16_t>(src));
          return;
        }
      }
      v = load<In>(src);
    });
    return v;
  }
  // The first group index whose value equals v, or n when none does.
  uint64_t find_first(int64_t in_base, In v, const std::byte** where) const {
    for (uint64_t q = 0; q < p.n; ++q)
      if (element(in_base, q, where) == v) return q;
    return p.n;
  }
};

// --- Finishing: state to output element. ---------------------------------------------------------

inline void store_float(DataType t, double v, std::byte* dst) {
  if (t == DataType::FLOAT16)
    store(dst, round_to_half(v));
  else
    store(dst, static_cast<float>(v));
}

template <class K, class Op>
void run_float_sum(const Plan& p, ReduceFunction f, const Bindings& b) {
  Engine<K, ValueReducer<Op>> e{p, b.input.data, b.output.data};
  const double n = static_cast<double>(p.n);
  e.run([&](typename Op::Acc acc, int64_t, std::byte* dst) {
    double r = acc;
    switch (f) {
      case ReduceFunction::AVERAGE: r = acc / n; break;
      case ReduceFunction::L2: r = std::sqrt(acc); break;
      case ReduceFunction::LOG_SUM:
      case ReduceFunction::LOG_SUM_EXP: r = std::log(acc); break;
      default: break;
    }
    store_float(p.out_type, r, dst);
  });
}

template <class K>
void run_log_sum_exp(const Plan& p, const Bindings& b) {
  Engine<K, LogSumExpReducer> e{p, b.input.data, b.output.data};
  e.run([&](LogSumExpReducer::State st, int64_t, std::byte* dst) {
    // All -inf (exp sums to 0): log(0) = -inf. NaN data (class U) propagates.
    const double r = st.m == -std::numeric_limits<double>::infinity() ? st.m : st.m + std::log(st.s);
    store_float(p.out_type, r, dst);
  });
}

template <class K, class Op>
void run_int_sum(const Plan& p, const Bindings& b) {
  Engine<K, ValueReducer<Op>> e{p, b.input.data, b.output.data};
  e.run(
      [&](typename Op::Acc acc, int64_t, std::byte* dst) { store(dst, static_cast<typename Op::In>(acc)); });
}

// MIN / MAX return the bits of the selected element. The lanes compare values, which leaves two
// cases open: a zero result (+0 and -0 compare equal; the first one in index order wins, as in
// the reference) and the identity (no element beat -inf/+inf: the group is all -inf/+inf, or all
// NaN, class U REDUCE.NONFINITE, where the first element is returned). Both rescan the group.
template <class K, class Op>
void run_min_max(const Plan& p, const Bindings& b) {
  using In = typename Op::In;
  Engine<K, ValueReducer<Op>> e{p, b.input.data, b.output.data};
  const size_t bytes = p.in_bytes;
  e.run([&](In v, int64_t in_base, std::byte* dst) {
    if constexpr (std::is_floating_point_v<In>) {
      if (v == 0 || v == Op::identity()) {
        const std::byte* where = nullptr;
        if (e.find_first(in_base, v, &where) == p.n) e.element(in_base, 0, &where);
        std::memcpy(dst, where, bytes);
        return;
      }
      if (p.in_type == DataType::FLOAT16) {
        store(dst, static_cast<half>(v));  // exact: v is a FLOAT16 value
        return;
      }
    }
    store(dst, v);
  });
}

template <class K, class T, class Cmp>
void run_arg(const Plan& p, const Bindings& b) {
  using R = ArgReducer<T, Cmp>;
  Engine<K, R> e{p, b.input.data, b.output.data};
  e.run([&](typename R::State s, int64_t in_base, std::byte* dst) {
    uint64_t index = s.i;
    if (s.i == kNoIndex) {  // nothing beat the identity: all elements are it (or NaN)
      const std::byte* where = nullptr;
      index = e.find_first(in_base, R::identity(), &where);
      if (index == p.n) index = 0;
    }
    switch (p.out_type) {
      case DataType::INT64: store(dst, static_cast<int64_t>(index)); break;
      case DataType::UINT64: store(dst, static_cast<uint64_t>(index)); break;
      case DataType::INT32: store(dst, static_cast<int32_t>(index)); break;
      default: store(dst, static_cast<uint32_t>(index)); break;
    }
  });
}

// Sums accumulate in double (in runs of float) for FLOAT32 data and in float for FLOAT16 data
// (reduce_ops.h).
template <class K, class A>
bool run_sum(const Plan& p, ReduceFunction f, const Bindings& b) {
  switch (f) {
    case ReduceFunction::SUM:
    case ReduceFunction::AVERAGE:
    case ReduceFunction::LOG_SUM: run_float_sum<K, ops::Sum<A>>(p, f, b); return true;
    case ReduceFunction::L1: run_float_sum<K, ops::AbsSum<A>>(p, f, b); return true;
    case ReduceFunction::L2:
    case ReduceFunction::SUM_SQUARE: run_float_sum<K, ops::SquareSum<A>>(p, f, b); return true;
    default: return false;
  }
}

template <class K>
bool run_float(const Plan& p, ReduceFunction f, const Bindings& b) {
  switch (f) {
    case ReduceFunction::SUM:
    case ReduceFunction::AVERAGE:
    case ReduceFunction::LOG_SUM:
    case ReduceFunction::L1:
    case ReduceFunction::L2:
    case ReduceFunction::SUM_SQUARE:
      return p.in_type == DataType::FLOAT16 ? run_sum<K, float>(p, f, b) : run_sum<K, double>(p, f, b);
    case ReduceFunction::LOG_SUM_EXP: run_log_sum_exp<K>(p, b); return true;
    case ReduceFunction::MULTIPLY: run_float_sum<K, ops::ProductD>(p, f, b); return true;
    case ReduceFunction::MAX: run_min_max<K, ops::MaxV<float>>(p, b); return true;
    case ReduceFunction::MIN: run_min_max<K, ops::MinV<float>>(p, b); return true;
    case ReduceFunction::ARGMAX: run_arg<K, float, ops::Greater>(p, b); return true;
    case ReduceFunction::ARGMIN: run_arg<K, float, ops::Less>(p, b); return true;
  }
  return false;
}

template <class K, class T>
bool run_integer(const Plan& p, ReduceFunction f, const Bindings& b) {
  constexpr bool wide = sizeof(T) >= 4;  // integer sums exist for 32- and 64-bit types only
  switch (f) {
    case ReduceFunction::MAX: run_min_max<K, ops::MaxV<T>>(p, b); return true;
    case ReduceFunction::MIN: run_min_max<K, ops::MinV<T>>(p, b); return true;
    case ReduceFunction::ARGMAX: run_arg<K, T, ops::Greater>(p, b); return true;
    case ReduceFunction::ARGMIN: run_arg<K, T, ops::Less>(p, b); return true;
    default: break;
  }
  if constexpr (wide) {
    switch (f) {
      case ReduceFunction::SUM: run_int_sum<K, ops::SumW<T>>(p, b); return true;
      case ReduceFunction::L1: run_int_sum<K, ops::AbsSumW<T>>(p, b); return true;
      case ReduceFunction::SUM_SQUARE: run_int_sum<K, ops::SquareSumW<T>>(p, b); return true;
      case ReduceFunction::MULTIPLY: run_int_sum<K, ops::ProductW<T>>(p, b); return true;
      default: break;
    }
  }
  return false;
}

}  // namespace DMLCERT_ENGINE_ISA

// Entry points, one per file: float (FLOAT32, FLOAT16) and integer data, for each kernel set.
// Each returns false when the (function, type) pair has no implementation.
bool run_float_baseline(const Plan& p, ReduceFunction f, const Bindings& b);
bool run_float_avx2(const Plan& p, ReduceFunction f, const Bindings& b);
bool run_integer_baseline(const Plan& p, ReduceFunction f, const Bindings& b);
bool run_integer_avx2(const Plan& p, ReduceFunction f, const Bindings& b);
bool run_float_avx512(const Plan& p, ReduceFunction f, const Bindings& b);
bool run_integer_avx512(const Plan& p, ReduceFunction f, const Bindings& b);

inline namespace DMLCERT_ENGINE_ISA {

// Dispatches on the integer element type.
template <class K>
bool run_integer_any(const Plan& p, ReduceFunction f, const Bindings& b) {
  return dispatch(p.in_type, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_integral_v<T>)
      return run_integer<K, T>(p, f, b);
    else
      return false;
  });
}

}  // namespace DMLCERT_ENGINE_ISA
}  // namespace dmlcert::optimized::reduce_detail

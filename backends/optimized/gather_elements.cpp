// GATHER_ELEMENTS: output[c] = input[c with c[axis] replaced by index[c]].
// The loop nest walks output, input and indices together; the input stream has stride 0 along
// the axis, and the indexed term index * input_stride[axis] is added per element. The index
// data is range-checked in a first pass, because a rejection must not write any output byte.
#include <immintrin.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <limits>

#include "optimized/canonicalize.h"
#include "optimized/copy.h"
#include "optimized/cpu.h"
#include "optimized/indices.h"
#include "optimized/optimized.h"

namespace dmlcert::optimized {

namespace {

constexpr uint64_t kColumnTile = 64;  // elements per column tile (see gather below)

template <class I>
I load_index(const std::byte* p) {
  return static_cast<I>(*reinterpret_cast<const typename unaligned<I>::type*>(p));
}

// Whether every index of a contiguous run is in range. The legal indices form an interval, so
// the run's minimum and maximum decide, and the loop vectorizes.
template <class I>
[[gnu::always_inline]] inline bool contiguous_in_range(const std::byte* p, uint64_t n, uint64_t d,
                                                       bool allow_negative) {
  I lo = std::numeric_limits<I>::max(), hi = std::numeric_limits<I>::lowest();
  for (uint64_t j = 0; j < n; ++j) {
    const I v = load_index<I>(p + j * sizeof(I));
    lo = v < lo ? v : lo;
    hi = v > hi ? v : hi;
  }
  return n == 0 || (index_in_range(lo, d, allow_negative) && index_in_range(hi, d, allow_negative));
}
template <class I>
__attribute__((target("avx2"))) bool contiguous_in_range_avx2(const std::byte* p, uint64_t n, uint64_t d,
                                                              bool allow_negative) {
  return contiguous_in_range<I>(p, n, d, allow_negative);
}

// The index of the first out-of-range element is not needed here (check_data names it on the
// rejection path); only whether there is one.
template <class I>
bool all_indices_in_range(const TensorDesc& indices, const std::byte* data, uint64_t d, bool allow_negative) {
  const auto strides = effective_strides(indices);
  LoopNest nest;
  for (size_t i = 0; i < indices.sizes.size(); ++i)
    nest.dims.push_back(Dim{indices.sizes[i], {static_cast<int64_t>(strides[i]), 0, 0}});
  canonicalize_for_copy(nest, 0);
  const int64_t xs = nest.inner().stride[0];
  const bool avx2 = cpu_has_avx2_f16c();
  std::atomic<bool> bad{false};
  for_each_run_parallel(
      nest, sizeof(I), [&](const std::array<int64_t, kMaxStreams>& off, uint64_t first, uint64_t n) {
        const std::byte* p =
            data + (off[0] + static_cast<int64_t>(first) * xs) * static_cast<int64_t>(sizeof(I));
        bool ok = true;
        if (xs == 1) {
          ok = avx2 ? contiguous_in_range_avx2<I>(p, n, d, allow_negative)
                    : contiguous_in_range<I>(p, n, d, allow_negative);
        } else {
          for (uint64_t j = 0; j < n; ++j)
            ok &= index_in_range(
                load_index<I>(p + static_cast<int64_t>(j) * xs * static_cast<int64_t>(sizeof(I))), d,
                allow_negative);
        }
        if (!ok) bad.store(true, std::memory_order_relaxed);
      });
  return !bad.load();
}

// Outputs of at least this many bytes are written with streaming stores (VMOVNTDQ), which skip
// reading each output line into the cache before overwriting it: the row gather moves input,
// indices and output, and the read for ownership was a fourth stream. An output this large has
// left the core's cache by the time anyone reads it. Measured on gather_elements_axis1 (64 MiB
// output), three runs each: 0.23-0.27 of the copy roofline before, 0.26-0.32 after; from memory
// 0.38-0.40 before, 0.43-0.46 after.
constexpr uint64_t kStreamingStoreBytes = uint64_t{4} << 20;

// A run along the innermost axis with contiguous 4-byte elements and 32-bit indices:
// out[j] = row[index j], eight elements per AVX2 gather (the axis size fits in 31 bits, so every
// index is a non-negative int32 once negative ones are normalized).
// The gathers touch the row's cache lines in random order, which no hardware prefetcher follows,
// so while it gathers one row the loop prefetches the next (`next_row` bytes on, where the next
// run usually starts; a wrong guess costs only the prefetches) into L2, a line per block spread
// evenly over the row. Measured on gather_elements_axis1, three runs each: 0.25-0.33 of the copy
// roofline before, 0.40-0.43 after; from memory 0.38-0.44 before, 0.52-0.57 after (into L1:
// 0.37-0.39 and 0.54-0.56).
//
// With streaming stores, the gathers of up to kGatherChunk elements go to a buffer in L1 first, and
// the buffer is streamed out after them: on the 2-core bench host a gather issued while streaming
// stores are in flight waited for them to reach memory, 26 ns per element (one thread, CPU time, a
// 64 MiB [4096, 4096] row gather) against 1.8 with the stores cached
// (VPGATHERDD into a register and VMOVNTDQ from it; also with AVX-512, two gathers per store pair,
// 6 ns). Gathering a 4096-element chunk into the buffer and streaming it out: 1.8-1.9 ns, one wait
// per chunk (1.9-2.1 with 256-element chunks). The optimized backend ran gather_elements_axis1 at
// 0.02 of the copy roofline there before this.
// 1024 elements (4 KiB) and not 4096: a 4096-element row of input and a 16 KiB buffer filled the
// 32 KiB L1 between them. On a quiet 2-core AMD EPYC (Zen 4), gather_elements_axis1 read 0.20-0.21
// of the streaming-copy roofline with 4096-element chunks and 0.27 with 1024 (two alternated runs
// of 5 rounds). AVX-512 gathers, 16 elements each, did no better (0.26-0.28 with 1024).
constexpr uint64_t kGatherChunk = 1024;
__attribute__((target("avx2"))) void gather_row_avx2(std::byte* out, const std::byte* row,
                                                     const std::byte* idx, int32_t d, bool is_signed,
                                                     uint64_t n, bool streaming, int64_t next_row) {
  auto one = [&](uint64_t j) {
    int32_t k;
    std::memcpy(&k, idx + 4 * j, 4);
    if (k < 0) k += d;
    std::memcpy(out + 4 * j, row + 4 * static_cast<int64_t>(k), 4);
  };
  // A streaming store needs a 32-byte aligned address: single elements up to the first one (none
  // when the output is not even 4-byte aligned; then the stores stay ordinary).
  const uintptr_t at = reinterpret_cast<uintptr_t>(out);
  streaming = streaming && at % 4 == 0;
  uint64_t j = 0;
  if (streaming)
    for (; j < n && (at + 4 * j) % 32 != 0; ++j) one(j);
  streaming = streaming && j + 8 <= n;  // whether any streaming store follows
  const __m256i dv = _mm256_set1_epi32(d);
  // An integer, not a pointer: the next row may lie past the input (a prefetch never faults).
  // It advances by the row's share per block of 8 outputs (no division in the loop).
  uintptr_t ahead = reinterpret_cast<uintptr_t>(row) + static_cast<uintptr_t>(next_row);
  const uint64_t ahead_step = n ? 4 * static_cast<uint64_t>(d) * 8 / n : 0;
  // Gathers out[j, end) (a multiple of 8 elements) to dst, which stands for out[j].
  auto gather_to = [&](std::byte * dst, uint64_t end) __attribute__((target("avx2"))) {
    for (; j + 8 <= end; j += 8, ahead += ahead_step, dst += 32) {
      _mm_prefetch(reinterpret_cast<const char*>(ahead), _MM_HINT_T1);
      __m256i k = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(idx + 4 * j));
      if (is_signed) k = _mm256_add_epi32(k, _mm256_and_si256(_mm256_srai_epi32(k, 31), dv));
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst),
                          _mm256_i32gather_epi32(reinterpret_cast<const int*>(row), k, 4));
    }
  };
  if (streaming) {
    alignas(32) __m256i buffer[kGatherChunk / 8];
    while (j + 8 <= n) {
      const uint64_t first = j, end = std::min(n - (n - j) % 8, j + kGatherChunk);
      gather_to(reinterpret_cast<std::byte*>(buffer), end);
      for (uint64_t i = 0; i < (end - first) / 8; ++i)
        _mm256_stream_si256(reinterpret_cast<__m256i*>(out + 4 * (first + 8 * i)), buffer[i]);
    }
  } else {
    gather_to(out + 4 * j, n - (n - j) % 8);
  }
  for (; j < n; ++j) one(j);
  // Streaming stores are weakly ordered: fenced before the thread reports its range done.
  if (streaming) _mm_sfence();
}

template <class E, class I>
void gather_run(std::byte* out_bytes, int64_t os, const std::byte* in_bytes, int64_t is,
                const std::byte* idx_bytes, int64_t xs, int64_t axis_stride, uint64_t d, uint64_t n) {
  E* out = reinterpret_cast<E*>(out_bytes);
  const E* in = reinterpret_cast<const E*>(in_bytes);
  const auto* idx = reinterpret_cast<const typename unaligned<I>::type*>(idx_bytes);
  for (uint64_t j = 0; j < n; ++j) {
    const int64_t jj = static_cast<int64_t>(j);
    const int64_t k = normalize_index<I>(static_cast<I>(idx[jj * xs]), d);
    out[jj * os] = in[jj * is + k * axis_stride];
  }
}

template <class E, class I>
void gather(const GatherElementsDesc& d, const Bindings& b) {
  const auto in_strides = effective_strides(d.input);
  const auto out_strides = effective_strides(d.output);
  const auto idx_strides = effective_strides(d.indices);
  LoopNest nest;
  nest.streams = 3;
  for (size_t i = 0; i < d.output.sizes.size(); ++i)
    nest.dims.push_back(
        Dim{d.output.sizes[i],
            {static_cast<int64_t>(out_strides[i]), i == d.axis ? 0 : static_cast<int64_t>(in_strides[i]),
             static_cast<int64_t>(idx_strides[i])}});
  canonicalize_for_copy(nest, 0);
  const Dim inner = nest.inner();
  const int64_t axis_stride = static_cast<int64_t>(in_strides[d.axis]);
  const uint64_t axis_size = d.input.sizes[d.axis];
  const int64_t es = sizeof(E), xsz = sizeof(I);
  // Along the innermost axis, with contiguous output and indices: the vector gather.
  const bool row_gather = sizeof(E) == 4 && sizeof(I) == 4 && inner.stride[0] == 1 && inner.stride[1] == 0 &&
                          inner.stride[2] == 1 && axis_stride == 1 &&
                          axis_size <= static_cast<uint64_t>(std::numeric_limits<int32_t>::max()) &&
                          cpu_has_avx2_f16c();
  const bool streaming = nest.count() * sizeof(E) >= kStreamingStoreBytes;
  // Input bytes from one run's row to the next's, when the next run steps the innermost outer dim.
  const int64_t next_row = nest.dims.size() >= 2 ? nest.dims[nest.dims.size() - 2].stride[1] * es : 0;
  auto run = [&](const std::array<int64_t, kMaxStreams>& off, uint64_t first, uint64_t n) {
    const int64_t j = static_cast<int64_t>(first);
    if (row_gather) {
      gather_row_avx2(b.output.data + (off[0] + j) * es, b.input.data + off[1] * es,
                      b.indices.data + (off[2] + j) * xsz, static_cast<int32_t>(axis_size),
                      std::is_signed_v<I>, n, streaming, next_row);
      return;
    }
    gather_run<E, I>(b.output.data + (off[0] + j * inner.stride[0]) * es, inner.stride[0],
                     b.input.data + (off[1] + j * inner.stride[1]) * es, inner.stride[1],
                     b.indices.data + (off[2] + j * inner.stride[2]) * xsz, inner.stride[2], axis_stride,
                     axis_size, n);
  };
  const uint64_t outer = nest.outer_count();
  if (inner.stride[1] != 0 && outer > 1 && inner.size >= 2 * kColumnTile) {
    // The axis is an outer dim, so consecutive runs read rows picked at random: walking a narrow
    // tile of columns down all the runs keeps the input lines of that tile in cache (each is used
    // by every run that picks its row), instead of missing on nearly every element.
    const uint64_t tiles = (inner.size + kColumnTile - 1) / kColumnTile;
    parallel_for(tiles, outer * inner.size * (2 * sizeof(E) + sizeof(I)), [&](uint64_t begin, uint64_t end) {
      for (uint64_t t = begin; t < end; ++t) {
        const uint64_t first = t * kColumnTile, n = std::min(kColumnTile, inner.size - first);
        for_each_outer(nest, 0, outer,
                       [&](const std::array<int64_t, kMaxStreams>& off) { run(off, first, n); });
      }
    });
    return;
  }
  for_each_run_parallel(nest, 2 * sizeof(E) + sizeof(I), run);
}

template <class I>
void gather_by_element_size(const GatherElementsDesc& d, const Bindings& b) {
  switch (element_size(d.input.type)) {
    case 1: return gather<moved<uint8_t>, I>(d, b);
    case 2: return gather<moved<uint16_t>, I>(d, b);
    case 4: return gather<moved<uint32_t>, I>(d, b);
    default: return gather<moved<uint64_t>, I>(d, b);
  }
}

}  // namespace

ExecResult compute(const GatherElementsDesc& d, FeatureLevel level, const Bindings& b) {
  const uint64_t axis_size = d.input.sizes[d.axis];
  const bool allow_negative = negative_indices_allowed(d.indices.type, level);
  return dispatch_index(d.indices.type, [&](auto tag) -> ExecResult {
    using I = typename decltype(tag)::type;
    if (!all_indices_in_range<I>(d.indices, b.indices.data, axis_size, allow_negative))
      return index_range_rejection(
          d, level, b, "GATHERELEMENTS.INDEX_RANGE",
          "tensors.indices holds a value outside [" + std::string(allow_negative ? "-" : "") +
              (allow_negative ? std::to_string(axis_size) : "0") + ", " + std::to_string(axis_size) + ")");
    gather_by_element_size<I>(d, b);
    return {};
  });
}

}  // namespace dmlcert::optimized

#include "optimized/copy.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <type_traits>
#include <utility>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

#include "optimized/cpu.h"
#include "optimized/optimized.h"
#include "optimized/thread_pool.h"

namespace dmlcert::optimized {

namespace {

// The lanes of v in reverse order. __builtin_shufflevector (GCC 12 and clang) takes the lane
// indices as constants.
template <class V, int... Lane>
[[gnu::always_inline]] inline V reversed(V v, std::integer_sequence<int, Lane...>) {
  return __builtin_shufflevector(v, v, (static_cast<int>(sizeof...(Lane)) - 1 - Lane)...);
}

// A block of VB bytes of elements the size of E, as a vector of same-sized unsigned integers
// (the data is only moved, so its type does not matter).
template <class E, int VB>
struct Block {
  static constexpr int N = VB / sizeof(E);
  using Bits = std::conditional_t<
      sizeof(E) == 8, uint64_t,
      std::conditional_t<sizeof(E) == 4, uint32_t, std::conditional_t<sizeof(E) == 2, uint16_t, uint8_t>>>;
  typedef Bits type __attribute__((vector_size(VB)));
};

// How a run kernel stores its blocks. Streaming stores (MOVNTDQ and its wider forms) write whole
// lines to memory without first reading them into the cache, so an output that the cache cannot
// keep costs one pass over memory instead of two (read for ownership, then write back);
// strided_copy chooses them only then (copy_streams_output), since an output that stays in the
// cache is there for its reader.
enum class Store { Cached, Streaming };

#if defined(__x86_64__) || defined(__i386__)
constexpr bool kHasStreamingStores = true;
#else
constexpr bool kHasStreamingStores = false;
#endif

// The streaming store is written as the compiler's builtin rather than as the intrinsic
// (_mm512_stream_si512 and kin): an intrinsic may only be inlined into code compiled for its
// instruction set, and this template is compiled without one until it is inlined into the run
// kernel that has it (run_kernel_avx512 and kin); a builtin is checked where it ends up.
template <Store S, class V, class E>
[[gnu::always_inline]] inline void store_block(E* out, V v) {
  if constexpr (S == Store::Streaming && kHasStreamingStores) {
    void* at = out;  // aligned to sizeof(V) by the caller (unaligned_head)
#if defined(__clang__)
    __builtin_nontemporal_store(v, static_cast<V*>(at));
#elif defined(__x86_64__) || defined(__i386__)
    typedef long long Q8 __attribute__((vector_size(64)));
    typedef long long Q4 __attribute__((vector_size(32)));
    typedef long long Q2 __attribute__((vector_size(16)));
    if constexpr (sizeof(V) == 64)
      __builtin_ia32_movntdq512(static_cast<Q8*>(at), (Q8)v);
    else if constexpr (sizeof(V) == 32)
      __builtin_ia32_movntdq256(static_cast<Q4*>(at), (Q4)v);
    else
      __builtin_ia32_movntdq(static_cast<Q2*>(at), (Q2)v);
#endif
  } else {
    std::memcpy(out, &v, sizeof v);
  }
}

// How many leading elements of a run to store one by one so that the blocks after them start on a
// VB-byte boundary, as streaming stores require; all n when out is not even element-aligned.
template <Store S, int VB, class E>
[[gnu::always_inline]] inline uint64_t unaligned_head(const E* out, uint64_t n) {
  if constexpr (S == Store::Cached) {
    return 0;
  } else {
    const uintptr_t at = reinterpret_cast<uintptr_t>(out);
    if (at % sizeof(E) != 0) return n;
    return std::min<uint64_t>(n, (VB - at % VB) % VB / sizeof(E));
  }
}

// Copies a contiguous run VB bytes at a time (for streaming stores; cached runs use memmove).
template <class E, int VB, Store S>
[[gnu::always_inline]] inline void contiguous_run(E* out, const E* in, uint64_t n) {
  constexpr int N = Block<E, VB>::N;
  using V = typename Block<E, VB>::type;
  uint64_t j = unaligned_head<S, VB>(out, n);
  std::memcpy(out, in, j * sizeof(E));
  for (; j + N <= n; j += N) {
    V v;
    std::memcpy(&v, in + j, sizeof v);
    store_block<S>(out + j, v);
  }
  std::memcpy(out + j, in + j, (n - j) * sizeof(E));
}

// Reverses a run VB bytes at a time: load a block, reverse its elements in the register, store.
// Inlined into callers compiled for wider registers, so the same code serves SSE2 and AVX2.
template <class E, int VB = 16, Store S = Store::Cached>
[[gnu::always_inline]] inline void reverse_run(E* out, const E* in, uint64_t n) {
  constexpr int N = Block<E, VB>::N;
  using V = typename Block<E, VB>::type;
  uint64_t j = 0;
  for (const uint64_t head = unaligned_head<S, VB>(out, n); j < head; ++j)
    out[j] = in[-static_cast<int64_t>(j)];
  for (; j + N <= n; j += N) {
    V v;
    std::memcpy(&v, in - static_cast<int64_t>(j) - (N - 1), sizeof v);
    v = reversed(v, std::make_integer_sequence<int, N>{});
    store_block<S>(out + j, v);
  }
  for (; j < n; ++j) out[j] = in[-static_cast<int64_t>(j)];
}

// The even lanes of a and b, in order: lane i of the result is lane 2i of a:b.
template <class V, int... Lane>
[[gnu::always_inline]] inline V even_lanes(V a, V b, std::integer_sequence<int, Lane...>) {
  return __builtin_shufflevector(a, b, (2 * Lane)...);
}

// Every second element (SLICE with stride 2 along the innermost axis): two blocks in, their even
// elements out, one shuffle per block. An element-by-element loop ran this at a third of the copy
// roofline, no faster than libtorch. A block's second load ends one element past the last one the
// run reads, so the loop stops one block early and the tail goes element by element.
template <class E, int VB = 16, Store S = Store::Cached>
[[gnu::always_inline]] inline void every_second_run(E* out, const E* in, uint64_t n) {
  constexpr int N = Block<E, VB>::N;
  using V = typename Block<E, VB>::type;
  uint64_t j = 0;
  for (const uint64_t head = unaligned_head<S, VB>(out, n); j < head; ++j) out[j] = in[2 * j];
  for (; j + N < n; j += N) {
    V a, b;
    std::memcpy(&a, in + 2 * j, sizeof a);
    std::memcpy(&b, in + 2 * j + N, sizeof b);
    store_block<S>(out + j, even_lanes(a, b, std::make_integer_sequence<int, N>{}));
  }
  for (; j < n; ++j) out[j] = in[2 * j];
}

// A run kernel (one of the two above, as a function of the block width) compiled for the widest
// registers this CPU has: 32-byte reversal (one vpermd/vpermq per block for 4- and 8-byte
// elements) ran rows at twice the rate of 16-byte blocks.
enum class RunKernel { Contiguous, Reverse, EverySecond };
template <RunKernel K, Store S, class E, int VB>
[[gnu::always_inline]] inline void run_kernel(E* out, const E* in, uint64_t n) {
  if constexpr (K == RunKernel::Contiguous)
    contiguous_run<E, VB, S>(out, in, n);
  else if constexpr (K == RunKernel::Reverse)
    reverse_run<E, VB, S>(out, in, n);
  else
    every_second_run<E, VB, S>(out, in, n);
}
#if defined(__x86_64__) || defined(__i386__)
template <RunKernel K, Store S, class E>
__attribute__((target("avx2"))) void run_kernel_avx2(E* out, const E* in, uint64_t n) {
  run_kernel<K, S, E, 32>(out, in, n);
}
template <RunKernel K, Store S, class E>
__attribute__((target("avx512f,avx512bw"))) void run_kernel_avx512(E* out, const E* in, uint64_t n) {
  run_kernel<K, S, E, 64>(out, in, n);
}
#endif
template <RunKernel K, Store S, class E>
void run_kernel_widest(E* out, const E* in, uint64_t n) {
#if defined(__x86_64__) || defined(__i386__)
  if constexpr (sizeof(E) >= 4) {
    if (cpu_has_avx512bw()) return run_kernel_avx512<K, S>(out, in, n);
    if (cpu_has_avx2_f16c()) return run_kernel_avx2<K, S>(out, in, n);
  }
#endif
  run_kernel<K, S, E, 16>(out, in, n);
}

template <class E, Store S = Store::Cached>
[[gnu::always_inline]] inline void copy_run_typed(std::byte* out_bytes, int64_t os, const std::byte* in_bytes,
                                                  int64_t is, uint64_t n) {
  E* out = reinterpret_cast<E*>(out_bytes);
  const E* in = reinterpret_cast<const E*>(in_bytes);
  if (os == 1 && is == 1) {
    if constexpr (S == Store::Streaming)
      run_kernel_widest<RunKernel::Contiguous, S>(out, in, n);
    else
      std::memmove(out, in, n * sizeof(E));
  } else if (os == 1 && is == -1) {
    run_kernel_widest<RunKernel::Reverse, S>(out, in, n);
  } else if (os == 1 && is == 2) {
    run_kernel_widest<RunKernel::EverySecond, S>(out, in, n);
  } else if (os == 1 && is == 0) {
    const E v = in[0];
    for (uint64_t j = 0; j < n; ++j) out[j] = v;
  } else if (os == 1) {
    for (uint64_t j = 0; j < n; ++j) out[j] = in[static_cast<int64_t>(j) * is];
  } else {
    for (uint64_t j = 0; j < n; ++j) out[static_cast<int64_t>(j) * os] = in[static_cast<int64_t>(j) * is];
  }
}

// --- Rows of runs: one call copies `rows` runs of n elements, run r starting out_row and in_row
// elements after run r - 1. The kind of run and the instruction set are chosen once per call of
// strided_copy, not once per run: a SLICE1 of short reversed runs spent more time choosing than
// copying.
// next_in: where the next tile's row 0 starts in the input (null when unknown), for prefetching.
using RowsFn = void (*)(std::byte* out, int64_t out_row, const std::byte* in, int64_t in_row, uint64_t rows,
                        uint64_t n, int64_t os, int64_t is, const std::byte* next_in);

template <class E, Store S>
void rows_general(std::byte* out, int64_t out_row, const std::byte* in, int64_t in_row, uint64_t rows,
                  uint64_t n, int64_t os, int64_t is, const std::byte*) {
  const int64_t es = sizeof(E);
  for (uint64_t r = 0; r < rows; ++r)
    copy_run_typed<E, S>(out + static_cast<int64_t>(r) * out_row * es, os,
                         in + static_cast<int64_t>(r) * in_row * es, is, n);
}

// Short rows are fetched kPrefetchRows rows ahead, into the next tile when it is known: the rows
// of a strided window are too far apart for the hardware prefetchers (a 4-d SLICE1 window with
// short reversed rows ran at a third of memcpy's rate from memory).
constexpr uint64_t kPrefetchRows = 8, kPrefetchMaxBytes = 1024;

template <class E, int VB, Store S>
[[gnu::always_inline]] inline void reverse_rows(std::byte* out, int64_t out_row, const std::byte* in,
                                                int64_t in_row, uint64_t rows, uint64_t n,
                                                const std::byte* next_in) {
  const int64_t es = sizeof(E);
  const bool prefetch = n * sizeof(E) <= kPrefetchMaxBytes;
  for (uint64_t r = 0; r < rows; ++r) {
    const std::byte* src = in + static_cast<int64_t>(r) * in_row * es;
    const uint64_t q = r + kPrefetchRows;
    const std::byte* ahead = q < rows  ? in + static_cast<int64_t>(q) * in_row * es
                             : next_in ? next_in + static_cast<int64_t>(q - rows) * in_row * es
                                       : nullptr;
    if (prefetch && ahead) {
      // A reversed row ends at its start pointer: its bytes are [p - (n-1)*es, p + es).
      for (int64_t b = -static_cast<int64_t>(n - 1) * es; b < es; b += 64) __builtin_prefetch(ahead + b);
      __builtin_prefetch(ahead + es - 1);
    }
    reverse_run<E, VB, S>(reinterpret_cast<E*>(out + static_cast<int64_t>(r) * out_row * es),
                          reinterpret_cast<const E*>(src), n);
  }
}
template <class E, Store S>
void reverse_rows_sse2(std::byte* out, int64_t out_row, const std::byte* in, int64_t in_row, uint64_t rows,
                       uint64_t n, int64_t, int64_t, const std::byte* next_in) {
  reverse_rows<E, 16, S>(out, out_row, in, in_row, rows, n, next_in);
}
#if defined(__x86_64__) || defined(__i386__)
template <class E, Store S>
__attribute__((target("avx2"))) void reverse_rows_avx2(std::byte* out, int64_t out_row, const std::byte* in,
                                                       int64_t in_row, uint64_t rows, uint64_t n, int64_t,
                                                       int64_t, const std::byte* next_in) {
  reverse_rows<E, 32, S>(out, out_row, in, in_row, rows, n, next_in);
}
template <class E, Store S>
__attribute__((target("avx512f,avx512bw"))) void reverse_rows_avx512(std::byte* out, int64_t out_row,
                                                                     const std::byte* in, int64_t in_row,
                                                                     uint64_t rows, uint64_t n, int64_t,
                                                                     int64_t, const std::byte* next_in) {
  reverse_rows<E, 64, S>(out, out_row, in, in_row, rows, n, next_in);
}
#endif

template <class E, Store S>
RowsFn rows_kernel_typed(int64_t os, int64_t is) {
  if (os == 1 && is == -1) {
#if defined(__x86_64__) || defined(__i386__)
    if constexpr (sizeof(E) >= 4) {
      if (cpu_has_avx512bw()) return reverse_rows_avx512<E, S>;
      if (cpu_has_avx2_f16c()) return reverse_rows_avx2<E, S>;
    }
#endif
    return reverse_rows_sse2<E, S>;
  }
  return rows_general<E, S>;
}

template <Store S>
RowsFn rows_kernel(size_t element_bytes, int64_t os, int64_t is) {
  switch (element_bytes) {
    case 1: return rows_kernel_typed<moved<uint8_t>, S>(os, is);
    case 2: return rows_kernel_typed<moved<uint16_t>, S>(os, is);
    case 4: return rows_kernel_typed<moved<uint32_t>, S>(os, is);
    default: return rows_kernel_typed<moved<uint64_t>, S>(os, is);
  }
}

template <Store S>
void copy_run_store(std::byte* out, int64_t out_stride, const std::byte* in, int64_t in_stride, uint64_t n,
                    size_t element_bytes) {
  switch (element_bytes) {
    case 1: return copy_run_typed<moved<uint8_t>, S>(out, out_stride, in, in_stride, n);
    case 2: return copy_run_typed<moved<uint16_t>, S>(out, out_stride, in, in_stride, n);
    case 4: return copy_run_typed<moved<uint32_t>, S>(out, out_stride, in, in_stride, n);
    default: return copy_run_typed<moved<uint64_t>, S>(out, out_stride, in, in_stride, n);
  }
}

// Streaming stores are weakly ordered: each thread fences its own before it reports its range
// done, so that whoever reads the output after the call sees them. Once per range, not once per
// tile: a fence waits for the write-combining buffers to drain, and SLICE1 tiles can be a few KiB.
template <Store S>
[[gnu::always_inline]] inline void fence_stores() {
#if defined(__x86_64__) || defined(__i386__)
  if constexpr (S == Store::Streaming) _mm_sfence();
#endif
}

// Runs shorter than this go through the rows kernels; longer ones are cut into chunks instead
// (a few long rows would not spread over the threads), where the choice per run costs nothing.
constexpr uint64_t kShortRunBytes = uint64_t{64} << 10;

template <Store S>
void strided_copy_store(const LoopNest& nest, size_t es, std::byte* out, const std::byte* in) {
  const Dim& inner = nest.inner();
  const int64_t esz = static_cast<int64_t>(es);
  if (nest.dims.size() >= 2 && inner.size * es <= kShortRunBytes) {
    const Dim& row = nest.dims[nest.dims.size() - 2];
    const RowsFn fn = rows_kernel<S>(es, inner.stride[0], inner.stride[1]);
    for_each_tile_parallel(
        nest, es,
        [&](const std::array<int64_t, kMaxStreams>& off, uint64_t r0, uint64_t r1,
            const std::array<int64_t, kMaxStreams>* next) {
          const int64_t r = static_cast<int64_t>(r0);
          fn(out + (off[0] + r * row.stride[0]) * esz, row.stride[0], in + (off[1] + r * row.stride[1]) * esz,
             row.stride[1], r1 - r0, inner.size, inner.stride[0], inner.stride[1],
             next ? in + (*next)[1] * esz : nullptr);
        },
        [] { fence_stores<S>(); });
    return;
  }
  for_each_run_parallel(
      nest, es,
      [&](const std::array<int64_t, kMaxStreams>& off, uint64_t first, uint64_t n) {
        const int64_t j = static_cast<int64_t>(first);
        copy_run_store<S>(out + (off[0] + j * inner.stride[0]) * esz, inner.stride[0],
                          in + (off[1] + j * inner.stride[1]) * esz, inner.stride[1], n, es);
      },
      [] { fence_stores<S>(); });
}

std::atomic<uint64_t> streaming_min_setting{0};  // 0: the default

}  // namespace

// The default: the last-level cache, but at most kAssumedLastLevelCacheBytes. A reported cache is
// the whole socket's, shared with its other cores (and on a virtual machine with other guests), and
// a copy's output beyond it does not stay. On two cores of an Intel Xeon that reports a 260 MiB L3,
// the cache-sized bench workloads (64 MiB outputs) ran faster streaming, opt/roofline with cached /
// streaming stores, medians of two alternated runs of 3 rounds: SLICE of every second row 0.85 /
// 1.00, of every second column 0.56 / 0.68, SLICE1 reversing rows 0.79 / 1.09, reversing columns
// 0.69 / 1.03, the 4-d mixed window 0.64 / 0.71; the bench's copy roofline itself read 9.5-23 GB/s
// with cached stores and 25-26 with streaming ones.
uint64_t streaming_store_min_bytes() {
  const uint64_t set = streaming_min_setting.load(std::memory_order_relaxed);
  return set != 0 ? set : std::min(last_level_cache_bytes(), kAssumedLastLevelCacheBytes);
}

void set_streaming_store_min_bytes(uint64_t bytes) {
  streaming_min_setting.store(bytes, std::memory_order_relaxed);
}

void copy_run(std::byte* out, int64_t out_stride, const std::byte* in, int64_t in_stride, uint64_t n,
              size_t element_bytes) {
  copy_run_store<Store::Cached>(out, out_stride, in, in_stride, n, element_bytes);
}

uint64_t copy_cache_footprint(const LoopNest& nest, size_t es) {
  constexpr uint64_t kLine = 64, kPage = 4096, kRunOn = 8 * kLine;
  const Dim& inner = nest.inner();
  const uint64_t runs = nest.outer_count();
  const uint64_t out_bytes = runs * inner.size * es;
  const uint64_t in_step_bytes = static_cast<uint64_t>(std::llabs(inner.stride[1])) * es;
  uint64_t in_bytes_per_run;
  if (in_step_bytes >= kLine) {
    in_bytes_per_run = inner.size * kLine;  // one line per element
  } else {
    in_bytes_per_run = (inner.size - 1) * in_step_bytes + es;
    if (nest.dims.size() >= 2 && in_bytes_per_run < kPage) {
      const uint64_t pitch_bytes =
          static_cast<uint64_t>(std::llabs(nest.dims[nest.dims.size() - 2].stride[1])) * es;
      const uint64_t run_on = (in_bytes_per_run + kLine - 1) / kLine * kLine + kRunOn;
      in_bytes_per_run = std::max(in_bytes_per_run, std::min({pitch_bytes, run_on, kPage}));
    }
  }
  uint64_t span_bytes = es;
  for (const Dim& d : nest.dims)
    span_bytes += (d.size - 1) * static_cast<uint64_t>(std::llabs(d.stride[1])) * es;
  return out_bytes + std::min(runs * in_bytes_per_run, span_bytes);
}

bool copy_streams_output(const LoopNest& nest, size_t es, OutputNext next, uint64_t threshold_bytes) {
  // Contiguous copies on two cores with a 32 MiB cache, medians of six: at a 24 MiB footprint,
  // cached stores ran 1.4 times faster than streaming ones; at 32 MiB streaming ran 1.3 times
  // faster, and up to 1.9 times beyond.
  if (next == OutputNext::UpdatedInPlace) return nest.count() * es >= threshold_bytes;
  return copy_cache_footprint(nest, es) >= threshold_bytes;
}

void strided_copy(const LoopNest& nest, size_t es, std::byte* out, const std::byte* in, OutputNext next) {
  if (kHasStreamingStores && copy_streams_output(nest, es, next, streaming_store_min_bytes()))
    strided_copy_store<Store::Streaming>(nest, es, out, in);
  else
    strided_copy_store<Store::Cached>(nest, es, out, in);
}

}  // namespace dmlcert::optimized

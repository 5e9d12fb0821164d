#include "optimized/copy.h"

#include <cstring>
#include <type_traits>
#include <utility>

#include "optimized/cpu.h"
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

// Reverses a run VB bytes at a time: load a block, reverse its elements in the register, store.
// Inlined into callers compiled for wider registers, so the same code serves SSE2 and AVX2.
template <class E, int VB = 16>
[[gnu::always_inline]] inline void reverse_run(E* out, const E* in, uint64_t n) {
  constexpr int N = Block<E, VB>::N;
  using V = typename Block<E, VB>::type;
  uint64_t j = 0;
  for (; j + N <= n; j += N) {
    V v;
    std::memcpy(&v, in - static_cast<int64_t>(j) - (N - 1), sizeof v);
    v = reversed(v, std::make_integer_sequence<int, N>{});
    std::memcpy(out + j, &v, sizeof v);
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
template <class E, int VB = 16>
[[gnu::always_inline]] inline void every_second_run(E* out, const E* in, uint64_t n) {
  constexpr int N = Block<E, VB>::N;
  using V = typename Block<E, VB>::type;
  uint64_t j = 0;
  for (; j + N < n; j += N) {
    V a, b;
    std::memcpy(&a, in + 2 * j, sizeof a);
    std::memcpy(&b, in + 2 * j + N, sizeof b);
    const V v = even_lanes(a, b, std::make_integer_sequence<int, N>{});
    std::memcpy(out + j, &v, sizeof v);
  }
  for (; j < n; ++j) out[j] = in[2 * j];
}

// A run kernel (one of the two above, as a function of the block width) compiled for the widest
// registers this CPU has: 32-byte reversal (one vpermd/vpermq per block for 4- and 8-byte
// elements) ran rows at twice the rate of 16-byte blocks.
enum class RunKernel { Reverse, EverySecond };
template <RunKernel K, class E, int VB>
[[gnu::always_inline]] inline void run_kernel(E* out, const E* in, uint64_t n) {
  if constexpr (K == RunKernel::Reverse)
    reverse_run<E, VB>(out, in, n);
  else
    every_second_run<E, VB>(out, in, n);
}
#if defined(__x86_64__) || defined(__i386__)
template <RunKernel K, class E>
__attribute__((target("avx2"))) void run_kernel_avx2(E* out, const E* in, uint64_t n) {
  run_kernel<K, E, 32>(out, in, n);
}
template <RunKernel K, class E>
__attribute__((target("avx512f,avx512bw"))) void run_kernel_avx512(E* out, const E* in, uint64_t n) {
  run_kernel<K, E, 64>(out, in, n);
}
#endif
template <RunKernel K, class E>
void run_kernel_widest(E* out, const E* in, uint64_t n) {
#if defined(__x86_64__) || defined(__i386__)
  if constexpr (sizeof(E) >= 4) {
    if (cpu_has_avx512bw()) return run_kernel_avx512<K>(out, in, n);
    if (cpu_has_avx2_f16c()) return run_kernel_avx2<K>(out, in, n);
  }
#endif
  run_kernel<K, E, 16>(out, in, n);
}

template <class E>
[[gnu::always_inline]] inline void copy_run_typed(std::byte* out_bytes, int64_t os, const std::byte* in_bytes,
                                                  int64_t is, uint64_t n) {
  E* out = reinterpret_cast<E*>(out_bytes);
  const E* in = reinterpret_cast<const E*>(in_bytes);
  if (os == 1 && is == 1) {
    std::memmove(out, in, n * sizeof(E));
  } else if (os == 1 && is == -1) {
    run_kernel_widest<RunKernel::Reverse>(out, in, n);
  } else if (os == 1 && is == 2) {
    run_kernel_widest<RunKernel::EverySecond>(out, in, n);
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

template <class E>
void rows_general(std::byte* out, int64_t out_row, const std::byte* in, int64_t in_row, uint64_t rows,
                  uint64_t n, int64_t os, int64_t is, const std::byte*) {
  const int64_t es = sizeof(E);
  for (uint64_t r = 0; r < rows; ++r)
    copy_run_typed<E>(out + static_cast<int64_t>(r) * out_row * es, os,
                      in + static_cast<int64_t>(r) * in_row * es, is, n);
}

// Short rows are fetched kPrefetchRows rows ahead, into the next tile when it is known: the rows
// of a strided window are too far apart for the hardware prefetchers (a 4-d SLICE1 window with
// short reversed rows ran at a third of memcpy's rate from memory).
constexpr uint64_t kPrefetchRows = 8, kPrefetchMaxBytes = 1024;

template <class E, int VB>
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
    reverse_run<E, VB>(reinterpret_cast<E*>(out + static_cast<int64_t>(r) * out_row * es),
                       reinterpret_cast<const E*>(src), n);
  }
}
template <class E>
void reverse_rows_sse2(std::byte* out, int64_t out_row, const std::byte* in, int64_t in_row, uint64_t rows,
                       uint64_t n, int64_t, int64_t, const std::byte* next_in) {
  reverse_rows<E, 16>(out, out_row, in, in_row, rows, n, next_in);
}
#if defined(__x86_64__) || defined(__i386__)
template <class E>
__attribute__((target("avx2"))) void reverse_rows_avx2(std::byte* out, int64_t out_row, const std::byte* in,
                                                       int64_t in_row, uint64_t rows, uint64_t n, int64_t,
                                                       int64_t, const std::byte* next_in) {
  reverse_rows<E, 32>(out, out_row, in, in_row, rows, n, next_in);
}
template <class E>
__attribute__((target("avx512f,avx512bw"))) void reverse_rows_avx512(std::byte* out, int64_t out_row,
                                                                     const std::byte* in, int64_t in_row,
                                                                     uint64_t rows, uint64_t n, int64_t,
                                                                     int64_t, const std::byte* next_in) {
  reverse_rows<E, 64>(out, out_row, in, in_row, rows, n, next_in);
}
#endif

template <class E>
RowsFn rows_kernel_typed(int64_t os, int64_t is) {
  if (os == 1 && is == -1) {
#if defined(__x86_64__) || defined(__i386__)
    if constexpr (sizeof(E) >= 4) {
      if (cpu_has_avx512bw()) return reverse_rows_avx512<E>;
      if (cpu_has_avx2_f16c()) return reverse_rows_avx2<E>;
    }
#endif
    return reverse_rows_sse2<E>;
  }
  return rows_general<E>;
}

RowsFn rows_kernel(size_t element_bytes, int64_t os, int64_t is) {
  switch (element_bytes) {
    case 1: return rows_kernel_typed<moved<uint8_t>>(os, is);
    case 2: return rows_kernel_typed<moved<uint16_t>>(os, is);
    case 4: return rows_kernel_typed<moved<uint32_t>>(os, is);
    default: return rows_kernel_typed<moved<uint64_t>>(os, is);
  }
}

// Runs shorter than this go through the rows kernels; longer ones are cut into chunks instead
// (a few long rows would not spread over the threads), where the choice per run costs nothing.
constexpr uint64_t kShortRunBytes = uint64_t{64} << 10;

}  // namespace

void copy_run(std::byte* out, int64_t out_stride, const std::byte* in, int64_t in_stride, uint64_t n,
              size_t element_bytes) {
  switch (element_bytes) {
    case 1: return copy_run_typed<moved<uint8_t>>(out, out_stride, in, in_stride, n);
    case 2: return copy_run_typed<moved<uint16_t>>(out, out_stride, in, in_stride, n);
    case 4: return copy_run_typed<moved<uint32_t>>(out, out_stride, in, in_stride, n);
    default: return copy_run_typed<moved<uint64_t>>(out, out_stride, in, in_stride, n);
  }
}

void strided_copy(const LoopNest& nest, size_t es, std::byte* out, const std::byte* in) {
  const Dim& inner = nest.inner();
  const int64_t esz = static_cast<int64_t>(es);
  if (nest.dims.size() >= 2 && inner.size * es <= kShortRunBytes) {
    const Dim& row = nest.dims[nest.dims.size() - 2];
    const RowsFn fn = rows_kernel(es, inner.stride[0], inner.stride[1]);
    for_each_tile_parallel(nest, es,
                           [&](const std::array<int64_t, kMaxStreams>& off, uint64_t r0, uint64_t r1,
                               const std::array<int64_t, kMaxStreams>* next) {
                             const int64_t r = static_cast<int64_t>(r0);
                             fn(out + (off[0] + r * row.stride[0]) * esz, row.stride[0],
                                in + (off[1] + r * row.stride[1]) * esz, row.stride[1], r1 - r0, inner.size,
                                inner.stride[0], inner.stride[1], next ? in + (*next)[1] * esz : nullptr);
                           });
    return;
  }
  for_each_run_parallel(nest, es,
                        [&](const std::array<int64_t, kMaxStreams>& off, uint64_t first, uint64_t n) {
                          const int64_t j = static_cast<int64_t>(first);
                          copy_run(out + (off[0] + j * inner.stride[0]) * esz, inner.stride[0],
                                   in + (off[1] + j * inner.stride[1]) * esz, inner.stride[1], n, es);
                        });
}

}  // namespace dmlcert::optimized

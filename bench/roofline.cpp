#include "roofline.h"

#include <emmintrin.h>

#include <algorithm>
#include <atomic>
#include <cstring>

#include "optimized/thread_pool.h"

namespace dmlcert::bench {

namespace {
constexpr uint64_t kChunk = uint64_t{1} << 20;  // bytes per work item
// Bytes prefetched ahead: into L1, and into L2 at two distances (roofline_read says why).
constexpr uint64_t kAheadL1 = 2048, kAheadL2 = 4096, kAheadL2Far = 8192;
}  // namespace

namespace {
// Copies [src, src + n) to dst with 16-byte streaming stores (SSE2, which every x86-64 has; the
// width does not matter to a copy bound by memory), the destination aligned first.
void copy_streaming(std::byte* dst, const std::byte* src, uint64_t n) {
  uint64_t head = (16 - reinterpret_cast<uintptr_t>(dst) % 16) % 16;
  head = std::min(head, n);
  std::memcpy(dst, src, head);
  uint64_t i = head;
  for (; i + 64 <= n; i += 64)
    for (int k = 0; k < 64; k += 16)
      _mm_stream_si128(reinterpret_cast<__m128i*>(dst + i + k),
                       _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i + k)));
  std::memcpy(dst + i, src + i, n - i);
  _mm_sfence();  // streaming stores are weakly ordered: done before the thread reports its range
}
}  // namespace

void roofline_copy(std::byte* dst, const std::byte* src, uint64_t bytes, CopyStores stores) {
  const uint64_t chunks = (bytes + kChunk - 1) / kChunk;
  optimized::pool().parallel_for(chunks, [&](uint64_t begin, uint64_t end) {
    const uint64_t b = begin * kChunk, e = std::min(bytes, end * kChunk);
    if (stores == CopyStores::Streaming)
      copy_streaming(dst + b, src + b, e - b);
    else
      std::memcpy(dst + b, src + b, e - b);
  });
}

namespace {
template <bool Prefetch>
uint64_t read_all(const std::byte* src, uint64_t bytes) {
  const uint64_t chunks = (bytes + kChunk - 1) / kChunk;
  std::atomic<uint64_t> total{0};
  optimized::pool().parallel_for(chunks, [&](uint64_t begin, uint64_t end) {
    const uint64_t b = begin * kChunk, e = std::min(bytes, end * kChunk);
    uint64_t lanes[8] = {};
    const uint64_t words = (e - b) / 8;
    for (uint64_t i = 0; i + 8 <= words; i += 8) {
      if constexpr (Prefetch) {
        // The reduction kernels prefetch this way where the CPU wants it (cpu.h:
        // software_prefetch; kernels.inc has the figures), and a roofline that streams with less
        // help than a kernel gets is no roof (FLOAT16 SUM from memory ran at 1.15 of it without
        // any). The far L2 prefetch made this the fastest of the read loops measured on one
        // machine, from memory on two cores (interleaved runs, 2 GB): L1 2 KiB and L2 4 KiB
        // 25.4 GB/s (mean of 6), L2 at 8 KiB instead 26.1, both L2 distances 26.4 (faster in 6
        // of 6 rounds); none 20-22; another L1 prefetch at 1 KiB made it slower (25.6 where
        // 2 KiB and 4 KiB alone read 26.6, means of 5).
        const uintptr_t at = reinterpret_cast<uintptr_t>(src + b + i * 8);
        __builtin_prefetch(reinterpret_cast<const void*>(at + kAheadL1), 0, 3);
        __builtin_prefetch(reinterpret_cast<const void*>(at + kAheadL2), 0, 2);
        __builtin_prefetch(reinterpret_cast<const void*>(at + kAheadL2Far), 0, 2);
      }
      for (int j = 0; j < 8; ++j) {
        uint64_t w;
        std::memcpy(&w, src + b + (i + j) * 8, 8);
        lanes[j] += w;
      }
    }
    uint64_t s = 0;
    for (uint64_t l : lanes) s += l;
    total += s;
  });
  return total.load();
}
}  // namespace

uint64_t roofline_read(const std::byte* src, uint64_t bytes, ReadPrefetch prefetch) {
  return prefetch == ReadPrefetch::Software ? read_all<true>(src, bytes) : read_all<false>(src, bytes);
}

}  // namespace dmlcert::bench

// What this x86-64 CPU can run, asked once: the optimized backend compiles some loops for wider
// registers and picks them at run time.
#pragma once

#include <cpuid.h>

#include <cstdint>

namespace dmlcert::optimized {

// F16C is CPUID leaf 1, ECX bit 29 (clang 14's __builtin_cpu_supports does not know the name).
inline bool cpu_has_f16c() {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  return __get_cpuid(1, &eax, &ebx, &ecx, &edx) && (ecx & bit_F16C) != 0;
}

// AVX2 with FMA and F16C: the isa_avx2 REDUCE kernels and the 32-byte row reversal.
inline bool cpu_has_avx2_f16c() {
  static const bool has = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && cpu_has_f16c();
  return has;
}

// AVX-512 F and BW: the 64-byte row reversal.
inline bool cpu_has_avx512bw() {
  static const bool has = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw");
  return has;
}

// AVX-512 F, BW, DQ and VL next to AVX2, FMA and F16C: the isa_avx512 REDUCE kernels.
inline bool cpu_has_avx512_kernels() {
  static const bool has = cpu_has_avx2_f16c() && cpu_has_avx512bw() && __builtin_cpu_supports("avx512dq") &&
                          __builtin_cpu_supports("avx512vl");
  return has;
}

// Whether this CPU executes 512-bit operations at full width, so that the AVX-512 REDUCE kernels
// stream faster than the narrower ones (reduce_width.h: reduce_kernel_set). Read from the vendor:
// Intel's AVX-512 CPUs have full-width units; AMD's Zen 4 splits each operation into two 256-bit
// halves, and there the AVX-512 kernels streamed no faster.
bool cpu_avx512_full_width();

// Whether this CPU's REDUCE kernels that read one stream in order want software prefetches ahead
// of it where it comes from memory (kernels.inc: prefetch_stream; reduce_width.h:
// stream_prefetch_pays). The hardware prefetchers decide, measured on one CPU of each vendor
// (kernels.inc has the figures): on AMD (Zen 4) the kernels ran faster without them; on Intel
// (Sapphire Rapids generation), whose L2 streamer does not cross a 4 KiB page, they read memory at
// two thirds of the rate they reach with them. DMLCERT_PREFETCH=software or =hardware overrides the
// choice (the bench compares both); any other value is ignored.
enum class PrefetchVendor { Intel, Other };
bool software_prefetch_for(PrefetchVendor vendor, const char* override_value);
// The choice for this CPU and environment, made once.
bool software_prefetch();

// The last-level cache in bytes as the operating system reports it (Linux's sysfs), 0 where it
// does not.
uint64_t reported_last_level_cache_bytes();
// The same, or kAssumedLastLevelCacheBytes where nothing is reported: the footprint past which a
// copy's output cannot stay in the cache for its reader (copy.h: copy_streams_output). The bench
// sizes its memory-sized workloads from the same figure.
inline constexpr uint64_t kAssumedLastLevelCacheBytes = uint64_t{32} << 20;
uint64_t last_level_cache_bytes();

}  // namespace dmlcert::optimized

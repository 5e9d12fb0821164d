// What this x86-64 CPU can run, asked once: the optimized backend compiles some loops for wider
// registers and picks them at run time.
#pragma once

namespace dmlcert::optimized {

// AVX2 with FMA and F16C: the isa_avx2 REDUCE kernels and the 32-byte row reversal.
inline bool cpu_has_avx2_f16c() {
  static const bool has =
      __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && __builtin_cpu_supports("f16c");
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

}  // namespace dmlcert::optimized

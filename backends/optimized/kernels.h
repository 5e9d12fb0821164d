// The REDUCE kernels, compiled twice: for baseline x86-64 (SSE2) and for AVX2+FMA+F16C, and
// chosen at run time, so that the library runs on any x86-64 and uses the wider registers and the
// hardware FLOAT16 conversion where the CPU has them.
//
// Why this and not Highway: the kernels are a handful of plain loops (accumulate, compare and
// select, convert) that GCC vectorizes well on its own; compiling one loop file under two
// `#pragma GCC target` regions gives runtime dispatch with no extra dependency and keeps the
// kernels readable as ordinary C++. Highway would add its own dispatch tables and API for the
// same code. The only intrinsic is the FLOAT16 conversion, which the vectorizer cannot produce
// from Eigen::half's portable code. (Data movement needs no dispatch: memcpy and the copy loops
// are bound by memory bandwidth with SSE2 already.)
#pragma once

#include <immintrin.h>

#include <cstddef>
#include <cstdint>

#include "dmlcert/dtype.h"
#include "optimized/reduce_ops.h"
#include "optimized/unaligned.h"

namespace dmlcert::optimized {

// Scalar binary16 -> float, used for tails and on CPUs without F16C.
inline float half_bits_to_float(uint16_t bits) { return static_cast<float>(Eigen::numext::bit_cast<half>(bits)); }

namespace isa_baseline {
#include "optimized/kernels.inc"
}  // namespace isa_baseline

#pragma GCC push_options
#pragma GCC target("avx2,fma,f16c")
namespace isa_avx2 {
#define DMLCERT_KERNELS_F16C 1
#include "optimized/kernels.inc"
#undef DMLCERT_KERNELS_F16C
}  // namespace isa_avx2
#pragma GCC pop_options

// Whether this CPU can run the isa_avx2 kernels.
inline bool cpu_has_avx2_f16c() {
  static const bool has = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
                          __builtin_cpu_supports("f16c");
  return has;
}

}  // namespace dmlcert::optimized

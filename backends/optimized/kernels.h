// The REDUCE kernels, compiled three times: for baseline x86-64 (SSE2), for AVX2+FMA+F16C and for
// AVX-512, and chosen at run time, so that the library runs on any x86-64 and uses the wider
// registers and the hardware FLOAT16 conversion where the CPU has them.
//
// Why this and not Highway: the kernels are a handful of loops (accumulate, compare and select,
// convert) written with GCC vector types, which compile to full-width registers for whatever
// target is in effect; compiling one kernel file under two `#pragma GCC target` regions gives
// runtime dispatch with no extra dependency and keeps the kernels ordinary C++. Highway would
// bring its own dispatch tables and API for the same code. (Plain loops were tried first: GCC's
// SLP vectorizer left the 16 lane accumulators in scalar registers.) Intrinsics appear only where
// the vector types have no good form: the FLOAT16 conversion (F16C) and, with AVX-512, the exp's
// table lookup and scaling and ARG*'s mask-register selects. (Data movement needs no dispatch:
// memcpy and the copy loops are bound by memory bandwidth with SSE2 already.)
#pragma once

#include <immintrin.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <utility>

#include "dmlcert/dtype.h"
#include "optimized/cpu.h"
#include "optimized/reduce_ops.h"
#include "optimized/unaligned.h"

namespace dmlcert::optimized {

// Scalar binary16 -> float, used for tails and on CPUs without F16C.
inline float half_bits_to_float(uint16_t bits) {
  return static_cast<float>(Eigen::numext::bit_cast<half>(bits));
}

namespace isa_baseline {
#define DMLCERT_VEC_BYTES 16
#include "optimized/kernels.inc"
#undef DMLCERT_VEC_BYTES
}  // namespace isa_baseline

// GCC compiles the AVX2 copy under a target region in every file. clang checks the vector calling
// convention of each call before inlining, so kernels in a target region cannot call the shared
// element operations (reduce_ops.h) with AVX registers: under clang the two files that instantiate
// isa_avx2 are compiled with -mavx2 -mfma -mf16c instead (backends/CMakeLists.txt), and only they
// see it.
#if !defined(__clang__)
#pragma GCC push_options
#pragma GCC target("avx2,fma,f16c")
#define DMLCERT_HAVE_ISA_AVX2 1
#elif defined(__AVX2__) && defined(__FMA__) && defined(__F16C__)
#define DMLCERT_HAVE_ISA_AVX2 1
#endif
#ifdef DMLCERT_HAVE_ISA_AVX2
namespace isa_avx2 {
#define DMLCERT_KERNELS_F16C 1
#define DMLCERT_KERNELS_FMA 1
#define DMLCERT_VEC_BYTES 32
#include "optimized/kernels.inc"
#undef DMLCERT_VEC_BYTES
#undef DMLCERT_KERNELS_F16C
#undef DMLCERT_KERNELS_FMA
}  // namespace isa_avx2
#endif
#if !defined(__clang__)
#pragma GCC pop_options
#endif

// AVX-512 (F, BW, DQ, VL): half the instructions per element of AVX2, which matters where a
// kernel computes rather than streams, and, on a CPU that runs them at full width, where it
// streams too (reduce_width.h says when each set runs).
// As with AVX2: a target region under GCC; under clang only those two files, compiled for
// AVX-512 (backends/CMakeLists.txt), see it.
#if !defined(__clang__)
#pragma GCC push_options
#pragma GCC target("avx512f,avx512bw,avx512dq,avx512vl,avx2,fma,f16c")
#define DMLCERT_HAVE_ISA_AVX512 1
#elif defined(__AVX512F__) && defined(__AVX512BW__) && defined(__AVX512DQ__) && defined(__AVX512VL__) && \
    defined(__AVX2__) && defined(__FMA__) && defined(__F16C__)
#define DMLCERT_HAVE_ISA_AVX512 1
#endif
#ifdef DMLCERT_HAVE_ISA_AVX512
namespace isa_avx512 {
#define DMLCERT_KERNELS_F16C 1
#define DMLCERT_KERNELS_FMA 1
#define DMLCERT_VEC_BYTES 64
#include "optimized/kernels.inc"
#undef DMLCERT_VEC_BYTES
#undef DMLCERT_KERNELS_F16C
#undef DMLCERT_KERNELS_FMA
}  // namespace isa_avx512
#endif
#if !defined(__clang__)
#pragma GCC pop_options
#endif

}  // namespace dmlcert::optimized

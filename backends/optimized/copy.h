// The strided copy every data-movement operator ends in: SLICE and SLICE1 are one copy, and
// SCATTER_ND is a copy of the input followed by one copy per update block.
#pragma once

#include <cstddef>
#include <cstdint>

#include "optimized/canonicalize.h"
#include "optimized/unaligned.h"

namespace dmlcert::optimized {

// Data movement works on element sizes only (u8u..u64u from unaligned.h): it moves bytes and never
// converts, so NaN payloads and -0.0 survive (docs/semantics.md: data movement is bit-exact).

// Copies one run of n elements of `element_bytes` bytes: out[j*out_stride] = in[j*in_stride].
// Contiguous runs become memcpy; reversed and strided runs get loops the compiler vectorizes.
void copy_run(std::byte* out, int64_t out_stride, const std::byte* in, int64_t in_stride, uint64_t n,
              size_t element_bytes);

// Runs a canonical nest (stream 0 = output, stream 1 = input, strides in elements) over the
// thread pool. Every output element is written once per coordinate, so the result does not depend
// on the thread count.
void strided_copy(const LoopNest& nest, size_t element_bytes, std::byte* out, const std::byte* in);

}  // namespace dmlcert::optimized

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

// The bytes a copy passes through the cache: its output, plus the input lines it reads and the
// lines the hardware prefetchers fetch around them. A run shorter than a page whose rows lie
// further apart than its length counts its whole row pitch (up to a page): the stream prefetchers
// run on past the end of each short run, into lines the copy never reads. A 4-d SLICE1 window of
// 256-byte rows every 768 bytes slowed to half the rate of a contiguous copy of the same bytes
// once that larger footprint exceeded the cache. Never more than the input's span (a broadcast
// input is read from the cache again and again). For a canonical nest (canonicalize_for_copy).
uint64_t copy_cache_footprint(const LoopNest& nest, size_t element_bytes);

// Runs a canonical nest (stream 0 = output, stream 1 = input, strides in elements) over the
// thread pool. Every output element is written once per coordinate, so the result does not depend
// on the thread count. The output is written with streaming stores when copy_cache_footprint
// reaches streaming_store_min_bytes (optimized.h).
void strided_copy(const LoopNest& nest, size_t element_bytes, std::byte* out, const std::byte* in);

}  // namespace dmlcert::optimized

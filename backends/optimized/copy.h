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
// lines the hardware prefetchers fetch next to them. Why the prefetched lines count: a 4-d SLICE1
// window of 256-byte rows 768 bytes apart, with cached stores, ran at under half the rate of the
// same bytes read from a contiguous input, though both touched 23 MiB of a 32 MiB cache; with the
// window halved it ran at full rate, and with streaming stores at their (lower) full rate. Most
// likely the stream prefetchers run on past the end of each short run into lines the copy never
// reads, so a contiguous run shorter than a page (where they stop) counts 8 more lines, up to where
// the next run starts; 8 is a model that fits that one shape, not a measured distance. The input's
// part is never more than its span (a broadcast input is read from the cache again and again).
// For a canonical nest (canonicalize_for_copy).
uint64_t copy_cache_footprint(const LoopNest& nest, size_t element_bytes);

// What happens to the output after the copy: handed back to the caller, or updated in place by
// the same operator (SCATTER_ND's update blocks), whose writes then read its lines back.
enum class OutputNext { Returned, UpdatedInPlace };

// Whether strided_copy writes the output with streaming stores: when the copy's footprint reaches
// `threshold_bytes` (the cache: past it, the output's lines would be evicted and written back
// anyway, after a read for ownership each); for an output updated in place, only when the output
// alone does, as an output that fits stays in the cache for the updates.
bool copy_streams_output(const LoopNest& nest, size_t element_bytes, OutputNext next,
                         uint64_t threshold_bytes);

// Runs a canonical nest (stream 0 = output, stream 1 = input, strides in elements) over the
// thread pool. Every output element is written once per coordinate, so the result does not depend
// on the thread count. Streams the output as copy_streams_output says, against
// streaming_store_min_bytes() (optimized.h).
void strided_copy(const LoopNest& nest, size_t element_bytes, std::byte* out, const std::byte* in,
                  OutputNext next = OutputNext::Returned);

}  // namespace dmlcert::optimized

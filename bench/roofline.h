// The roofline: what the memory system allows on the same threads. `copy` streams the same
// number of bytes a data-movement workload writes (read + write); `read` streams the bytes a
// reduction reads. Both run on the optimized backend's thread pool, so the thread count matches.
#pragma once

#include <cstddef>
#include <cstdint>

namespace dmlcert::bench {

void roofline_copy(std::byte* dst, const std::byte* src, uint64_t bytes);
// How the read roofline streams: with software prefetch ahead of its loads (bench `read`), or with
// the hardware prefetchers alone (`read_hw`). Which is faster depends on the machine: on one
// 2-core machine the prefetching loop read memory 20-30% faster (roofline.cpp); on another of the
// same kind the plain loop read within a few percent of it and up to 20% faster (64 MiB from
// cache and memory). A roofline below what a plain loop reads would flatter every kernel, so both
// run, and bench/ratios.py holds each reduction to the faster of the two.
enum class ReadPrefetch { Software, HardwareOnly };
// Returns a checksum, so that the compiler cannot drop the reads.
uint64_t roofline_read(const std::byte* src, uint64_t bytes, ReadPrefetch prefetch);

}  // namespace dmlcert::bench

// The roofline: what the memory system allows on the same threads. `copy` streams the same
// number of bytes a data-movement workload writes (read + write); `read` streams the bytes a
// reduction reads. Both run on the optimized backend's thread pool, so the thread count matches.
#pragma once

#include <cstddef>
#include <cstdint>

namespace dmlcert::bench {

// How the copy roofline stores: memcpy's way (`copy`), or with streaming stores, which write
// whole lines to memory without reading them first (`copy_nt`). memcpy moves 1 MiB at a time here,
// below the size at which glibc switches to streaming stores, so for an output larger than the
// cache memcpy reads every destination line before it writes it: a third more traffic than a copy
// needs. The optimized backend streams such outputs (backends/optimized/copy.h:
// copy_streams_output), so both run, and bench/ratios.py holds each data-movement workload to the
// faster of the two.
enum class CopyStores { Cached, Streaming };
void roofline_copy(std::byte* dst, const std::byte* src, uint64_t bytes, CopyStores stores);
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

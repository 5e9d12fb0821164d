// The roofline: what the memory system allows on the same threads. `copy` streams the same
// number of bytes a data-movement workload writes (read + write); `read` streams the bytes a
// reduction reads. Both run on the optimized backend's thread pool, so the thread count matches.
#pragma once

#include <cstddef>
#include <cstdint>

namespace dmlcert::bench {

void roofline_copy(std::byte* dst, const std::byte* src, uint64_t bytes);
// Returns a checksum, so that the compiler cannot drop the reads.
uint64_t roofline_read(const std::byte* src, uint64_t bytes);

}  // namespace dmlcert::bench

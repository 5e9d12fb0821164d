// The benchmark workloads: one operator descriptor each (FLOAT32 [4096,4096] unless the name says
// otherwise), with deterministic data, and the buffers they run on. Every workload whose roofline
// streams less than four times the last-level cache also has a memory-sized variant,
// `<name>_mem`, whose first dim is scaled up until it streams at least that much, so that its
// roofline measures memory bandwidth whatever the cache holds.
#pragma once

#include <cstdint>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "dmlcert/backend.h"
#include "dmlcert/operators.h"

namespace dmlcert::bench {

// Which roofline a workload is held to: a streaming copy of its output bytes (data movement) or a
// streaming read of its input bytes (reductions).
enum class Roofline { Copy, Read };

struct Workload {
  std::string name;    // what the benchmarks are called: `family`, or `family` + "_mem"
  std::string family;  // the cache-sized workload's name; the peers (Eigen, torch) key on it
  bool memory_sized = false;
  OperatorDesc desc;
  Roofline roofline;
  uint64_t bytes;  // output bytes (Copy) or input bytes (Read): what SetBytesProcessed reports
  // The bytes the roofline streams: read + written for Copy, read for Read.
  uint64_t roofline_bytes() const { return roofline == Roofline::Copy ? 2 * bytes : bytes; }
};

// Allocates on a cache-line (64-byte) boundary, as libtorch's CPU allocator and most frameworks
// place their tensors. std::vector's own allocator leaves large blocks 16 bytes past a page
// boundary here, which made every 256-byte row of slice1_4d_mixed span five cache lines instead of
// four: a fifth more memory traffic than the same tensor costs in the frameworks the bench stands
// in for. The correctness tests run the kernels on unaligned outputs (tests/optimized_test.cpp).
template <class T>
struct LineAligned {
  using value_type = T;
  static constexpr std::align_val_t kAlignment{64};
  LineAligned() = default;
  template <class U>
  LineAligned(const LineAligned<U>&) {}
  T* allocate(size_t n) { return static_cast<T*>(::operator new(n * sizeof(T), kAlignment)); }
  void deallocate(T* p, size_t) { ::operator delete(p, kAlignment); }
  friend bool operator==(const LineAligned&, const LineAligned&) { return true; }
  friend bool operator!=(const LineAligned&, const LineAligned&) { return false; }
};
using Bytes = std::vector<std::byte, LineAligned<std::byte>>;

// The bindings of one workload. The memory is allocated on first use and freed when another
// workload's buffers are requested, so the whole suite never holds more than one set.
struct Buffers {
  Bytes input, indices, updates, output;
  Bindings bindings();
};

// The last-level cache size in bytes: DMLCERT_BENCH_LLC_BYTES when set, otherwise the figure the
// optimized backend streams its large copies by (optimized/cpu.h: the operating system's, or
// 32 MiB with `detected` false), so that the `_mem` workloads and the backend agree on the cache.
struct CacheSize {
  uint64_t bytes;
  bool detected;
};
CacheSize last_level_cache();

// Every workload, each followed by its memory-sized variant (sized from last_level_cache()) if it
// has one.
const std::vector<Workload>& workloads();
Buffers& buffers_for(const Workload& w);

}  // namespace dmlcert::bench

// The optimized backend: a fast CPU implementation of the five operators. Every call is
// validated with the shared validator (validate.h) first, so a class I descriptor is rejected
// with exactly the rule IDs the reference reports; then the call is reduced to its smallest loop
// nest (canonicalize.h) and run with contiguous moves, vector kernels and a thread pool.
#pragma once

#include <cstdint>
#include <memory>

#include "dmlcert/backend.h"

namespace dmlcert::optimized {

std::unique_ptr<Backend> make_backend();

// The number of threads the backend uses (DMLCERT_THREADS, or the hardware threads). Results of
// exact operators and of exact-mode reductions do not depend on it.
unsigned thread_count();
// Replaces the thread pool; 0 restores the default. For tests and benchmarks; not to be called
// while another thread is executing on the backend.
void set_thread_count(unsigned threads);

// SLICE, SLICE1 and SCATTER_ND's copy of the input write their outputs with streaming stores,
// which bypass the cache, when the bytes they pass through the cache (the output and the input
// lines, copy.h: copy_cache_footprint) reach this many: by default the last-level cache size, but
// at most 32 MiB (copy.cpp says why).
uint64_t streaming_store_min_bytes();
// Replaces the threshold; 0 restores the default. For tests (1 sends every copy through the
// streaming kernels) and benchmarks; not to be called while another thread is executing.
void set_streaming_store_min_bytes(uint64_t bytes);

// One entry point per operator, in the operator's own file. The descriptor passed validate()
// without class I findings and each binding holds at least its tensor's minimum implied size.
#define DMLCERT_OPTIMIZED_OPERATOR(KIND, stem, Desc) \
  ExecResult compute(const Desc& d, FeatureLevel level, const Bindings& b);
DMLCERT_FOR_EACH_OPERATOR(DMLCERT_OPTIMIZED_OPERATOR)
#undef DMLCERT_OPTIMIZED_OPERATOR

}  // namespace dmlcert::optimized

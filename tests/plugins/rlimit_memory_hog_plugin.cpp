// Raises every resource limit it can to infinity (its core file size included), then, in every
// accepted SLICE1 call, allocates and touches 30 GiB, 64 MiB at a time, and in every tenth accepted
// SLICE call of its process touches 64 MiB and aborts. Expected: every SLICE1 cell ends as `limit`
// (over the process's memory limit), not as a timeout; the SLICE crashes are reported at once,
// without a core file written (a core of the process would take seconds per crash and land in
// dmlcert's directory).
#include <sys/resource.h>

#include <cstdlib>
#include <cstring>
#include <vector>

#include "misbehaviour.h"

namespace dmlcert::test_plugins {
plugin::AdapterHooks misbehaviour() {
  plugin::AdapterHooks hooks;
  hooks.before = [](const OperatorDesc& d, FeatureLevel level, const Bindings&) {
    if (!accepted(d, level)) return;
    for (int resource : {RLIMIT_AS, RLIMIT_DATA, RLIMIT_RSS, RLIMIT_CORE, RLIMIT_STACK, RLIMIT_MEMLOCK}) {
      const rlimit unlimited{RLIM_INFINITY, RLIM_INFINITY};
      ::setrlimit(resource, &unlimited);
    }
    static int slice_calls = 0;
    if (op_kind(d) == OpKind::SLICE && ++slice_calls % 10 == 0) {
      void* p = std::malloc(size_t{64} << 20);
      if (p) std::memset(p, 0x5A, size_t{64} << 20);
      std::abort();
    }
    if (op_kind(d) != OpKind::SLICE1) return;
    constexpr size_t kChunk = size_t{64} << 20;
    std::vector<void*> held;
    for (size_t total = 0; total < (size_t{30} << 30); total += kChunk) {
      void* p = std::malloc(kChunk);
      if (!p) break;
      std::memset(p, 0x5A, kChunk);
      held.push_back(p);
    }
    for (void* p : held) std::free(p);
  };
  return hooks;
}
}  // namespace dmlcert::test_plugins

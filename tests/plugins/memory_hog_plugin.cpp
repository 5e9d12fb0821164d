// Allocates and touches 30 GiB, 64 MiB at a time, in every accepted SLICE1 call: every SLICE1 cell
// must end as `limit` (over the process's memory limit), every other cell pass, and the machine
// must not notice.
#include <cstdlib>
#include <cstring>
#include <vector>

#include "misbehaviour.h"

namespace dmlcert::test_plugins {
plugin::AdapterHooks misbehaviour() {
  plugin::AdapterHooks hooks;
  hooks.before = [](const OperatorDesc& d, FeatureLevel level, const Bindings&) {
    if (!accepted(d, level) || op_kind(d) != OpKind::SLICE1) return;
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

// Aborts on every 200th call of its process, whatever the case (a leak that runs out after a
// while). Expected: the crashes are reported, none reproduces alone, and the run stays fast: the
// cause is investigated a few times, not once per crash.
#include <cstdlib>

#include "misbehaviour.h"

namespace dmlcert::test_plugins {
plugin::AdapterHooks misbehaviour() {
  plugin::AdapterHooks hooks;
  hooks.before = [](const OperatorDesc&, FeatureLevel, const Bindings&) {
    static int calls = 0;
    if (++calls % 200 == 0) std::abort();
  };
  return hooks;
}
}  // namespace dmlcert::test_plugins

// Never returns from its first accepted GATHER_ELEMENTS call, and answers every call after it, in
// that process or a fresh one (once.h): what a correct backend on a machine too busy to answer in
// time looks like. Expected: that case flaky, every cell passed, CERTIFIED; NOT CERTIFIED with
// --flaky-fails.
#include <unistd.h>

#include "misbehaviour.h"
#include "once.h"

namespace dmlcert::test_plugins {
plugin::AdapterHooks misbehaviour() {
  plugin::AdapterHooks hooks;
  hooks.before = [](const OperatorDesc& d, FeatureLevel level, const Bindings&) {
    if (accepted(d, level) && op_kind(d) == OpKind::GATHER_ELEMENTS && first_time())
      for (;;) ::pause();
  };
  return hooks;
}
}  // namespace dmlcert::test_plugins

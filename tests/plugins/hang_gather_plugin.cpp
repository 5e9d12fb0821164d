// Never returns from an accepted GATHER_ELEMENTS call: expected TIMEOUT in every GATHER_ELEMENTS
// cell.
#include <unistd.h>

#include "misbehaviour.h"

namespace dmlcert::test_plugins {
plugin::AdapterHooks misbehaviour() {
  plugin::AdapterHooks hooks;
  hooks.before = [](const OperatorDesc& d, FeatureLevel level, const Bindings&) {
    if (accepted(d, level) && op_kind(d) == OpKind::GATHER_ELEMENTS)
      for (;;) ::pause();
  };
  return hooks;
}
}  // namespace dmlcert::test_plugins

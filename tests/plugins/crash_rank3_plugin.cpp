// Segfaults on every accepted call whose input has rank 3: expected CRASH in every rank-3 cell.
#include <csignal>

#include "misbehaviour.h"

namespace dmlcert::test_plugins {
plugin::AdapterHooks misbehaviour() {
  plugin::AdapterHooks hooks;
  hooks.before = [](const OperatorDesc& d, FeatureLevel level, const Bindings&) {
    if (accepted(d, level) && tensor(d, Role::INPUT)->rank() == 3) std::raise(SIGSEGV);
  };
  return hooks;
}
}  // namespace dmlcert::test_plugins

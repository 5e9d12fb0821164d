// Behaves like the reference but never returns from destroy(): the run must still end, fail the
// robustness check BACKEND.DESTROY once the child's grace period has passed, and leave no process
// behind.
#include <unistd.h>

#include "misbehaviour.h"

namespace dmlcert::test_plugins {
plugin::AdapterHooks misbehaviour() {
  plugin::AdapterHooks hooks;
  hooks.destroy = [] {
    for (;;) ::pause();
  };
  return hooks;
}
}  // namespace dmlcert::test_plugins

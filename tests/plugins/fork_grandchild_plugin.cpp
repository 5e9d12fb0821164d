// On its first accepted call, forks a process that sleeps forever (a vendor runtime's helper
// daemon): the run must certify and no process may outlive dmlcert.
#include <unistd.h>

#include "misbehaviour.h"

namespace dmlcert::test_plugins {
plugin::AdapterHooks misbehaviour() {
  plugin::AdapterHooks hooks;
  hooks.before = [](const OperatorDesc& d, FeatureLevel level, const Bindings&) {
    static bool forked = false;
    if (forked || !accepted(d, level)) return;
    forked = true;
    if (::fork() == 0)
      for (;;) ::pause();
  };
  return hooks;
}
}  // namespace dmlcert::test_plugins

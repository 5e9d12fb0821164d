// On its first accepted call, forks a process that leaves the process group for a session of its
// own and sleeps forever (a daemon a runtime starts). Expected: the run certifies and nothing
// outlives dmlcert.
#include <unistd.h>

#include "misbehaviour.h"

namespace dmlcert::test_plugins {
plugin::AdapterHooks misbehaviour() {
  plugin::AdapterHooks hooks;
  hooks.before = [](const OperatorDesc& d, FeatureLevel level, const Bindings&) {
    static bool forked = false;
    if (forked || !accepted(d, level)) return;
    forked = true;
    if (::fork() == 0) {
      ::setsid();
      for (;;) ::pause();
    }
  };
  return hooks;
}
}  // namespace dmlcert::test_plugins

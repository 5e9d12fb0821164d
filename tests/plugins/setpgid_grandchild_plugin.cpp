// On its first accepted call, forks a process that moves to a process group of its own and sleeps
// forever, then lets the fork's intermediate parent exit so that it is orphaned. Expected: the run
// certifies and nothing outlives dmlcert.
#include <sys/wait.h>
#include <unistd.h>

#include "misbehaviour.h"

namespace dmlcert::test_plugins {
plugin::AdapterHooks misbehaviour() {
  plugin::AdapterHooks hooks;
  hooks.before = [](const OperatorDesc& d, FeatureLevel level, const Bindings&) {
    static bool forked = false;
    if (forked || !accepted(d, level)) return;
    forked = true;
    const pid_t middle = ::fork();
    if (middle == 0) {
      if (::fork() == 0) {
        ::setpgid(0, 0);
        for (;;) ::pause();
      }
      ::_exit(0);
    }
    ::waitpid(middle, nullptr, 0);
  };
  return hooks;
}
}  // namespace dmlcert::test_plugins

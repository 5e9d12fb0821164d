// On its first accepted call, sends SIGKILL to its parent process (a runtime that "cleans up" the
// process that started it). Expected: dmlcert is out of its reach, runs to the end, certifies (every
// call is the reference's), writes its report and leaves no process behind.
#include <signal.h>
#include <unistd.h>

#include "misbehaviour.h"

namespace dmlcert::test_plugins {
plugin::AdapterHooks misbehaviour() {
  plugin::AdapterHooks hooks;
  hooks.before = [](const OperatorDesc& d, FeatureLevel level, const Bindings&) {
    static bool done = false;
    if (done || !accepted(d, level)) return;
    done = true;
    ::kill(::getppid(), SIGKILL);
  };
  return hooks;
}
}  // namespace dmlcert::test_plugins

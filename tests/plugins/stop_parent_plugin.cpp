// In every accepted call, sends SIGSTOP to its parent process. Expected: dmlcert is out of its
// reach, is never stopped, certifies (every call is the reference's) and leaves no process behind.
#include <signal.h>
#include <unistd.h>

#include "misbehaviour.h"

namespace dmlcert::test_plugins {
plugin::AdapterHooks misbehaviour() {
  plugin::AdapterHooks hooks;
  hooks.before = [](const OperatorDesc& d, FeatureLevel level, const Bindings&) {
    if (accepted(d, level)) ::kill(::getppid(), SIGSTOP);
  };
  return hooks;
}
}  // namespace dmlcert::test_plugins

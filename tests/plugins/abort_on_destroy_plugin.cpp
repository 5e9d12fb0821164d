// Behaves like the reference but aborts in destroy(), when the harness is done with it: the run
// must finish, certify, and leave no process behind.
#include <cstdlib>

#include "misbehaviour.h"

namespace dmlcert::test_plugins {
plugin::AdapterHooks misbehaviour() {
  plugin::AdapterHooks hooks;
  hooks.destroy = [] { std::abort(); };
  return hooks;
}
}  // namespace dmlcert::test_plugins

// Never returns from any call, valid, invalid or unspecified: every cell and every rule check must
// end as a timeout or as not run after timeouts, in bounded time.
#include <unistd.h>

#include "misbehaviour.h"

namespace dmlcert::test_plugins {
plugin::AdapterHooks misbehaviour() {
  plugin::AdapterHooks hooks;
  hooks.before = [](const OperatorDesc&, FeatureLevel, const Bindings&) {
    for (;;) ::pause();
  };
  return hooks;
}
}  // namespace dmlcert::test_plugins

// On its first accepted call, writes bytes into every descriptor from 3 to 10 (a runtime that writes
// to descriptors it does not own, say one it closed and that was reused). Descriptor 3 is dmlcert's
// channel to the process. Expected: a failure that says the backend wrote into dmlcert's channel.
#include <unistd.h>

#include "misbehaviour.h"

namespace dmlcert::test_plugins {
plugin::AdapterHooks misbehaviour() {
  plugin::AdapterHooks hooks;
  hooks.before = [](const OperatorDesc& d, FeatureLevel level, const Bindings&) {
    static bool done = false;
    if (done || !accepted(d, level)) return;
    done = true;
    static const char kGarbage[] = "\xff\xfe garbage from the plugin \x01\x02";
    for (int fd = 3; fd <= 10; ++fd) (void)!::write(fd, kGarbage, sizeof kGarbage - 1);
  };
  return hooks;
}
}  // namespace dmlcert::test_plugins

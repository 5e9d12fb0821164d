// Correct, and takes 1 ms more for every call: a backend that spends real time per call (a
// device round trip). Expected: CERTIFIED, on an idle machine and on a loaded one alike, with no
// timeout counted against it.
#include <chrono>
#include <thread>

#include "misbehaviour.h"

namespace dmlcert::test_plugins {
plugin::AdapterHooks misbehaviour() {
  plugin::AdapterHooks hooks;
  hooks.before = [](const OperatorDesc&, FeatureLevel, const Bindings&) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  };
  return hooks;
}
}  // namespace dmlcert::test_plugins

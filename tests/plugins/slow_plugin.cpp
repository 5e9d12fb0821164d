// Correct, but takes 4 s per accepted call. Expected: a run that ends at its time bound, with a
// verdict that says what did not run and why, and the backend reported as slow with its time per
// call.
#include <chrono>
#include <thread>

#include "misbehaviour.h"

namespace dmlcert::test_plugins {
plugin::AdapterHooks misbehaviour() {
  plugin::AdapterHooks hooks;
  hooks.before = [](const OperatorDesc& d, FeatureLevel level, const Bindings&) {
    if (accepted(d, level)) std::this_thread::sleep_for(std::chrono::seconds(4));
  };
  return hooks;
}
}  // namespace dmlcert::test_plugins

// Takes 20 s to load (dmlcert_get_backend), then is the reference. Expected: "did not start", with
// a message that names the option that sets the loading deadline.
#include <chrono>
#include <thread>

#include "misbehaviour.h"

namespace dmlcert::test_plugins {
plugin::AdapterHooks misbehaviour() {
  std::this_thread::sleep_for(std::chrono::seconds(20));
  return {};
}
}  // namespace dmlcert::test_plugins

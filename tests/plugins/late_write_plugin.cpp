// After every accepted call whose input has rank 2, leaves a thread behind that writes into the
// output binding a few milliseconds after the call returned, for 50 ms. Expected: `late-write` in
// exactly the rank-2 cells, each failure blamed on the case whose call it was (never on a later
// case), and every repro reproduces alone.
#include <chrono>
#include <thread>

#include "misbehaviour.h"

namespace dmlcert::test_plugins {
plugin::AdapterHooks misbehaviour() {
  plugin::AdapterHooks hooks;
  hooks.after = [](const OperatorDesc& d, FeatureLevel level, const Bindings& b) {
    if (!accepted(d, level) || tensor(d, Role::INPUT)->rank() != 2 || b.output.size == 0) return;
    volatile std::byte* out = b.output.data;
    std::thread([out] {
      std::this_thread::sleep_for(std::chrono::milliseconds(3));
      for (int i = 0; i < 500; ++i) {
        out[0] = std::byte{0x5A};
        std::this_thread::sleep_for(std::chrono::microseconds(100));
      }
    }).detach();
  };
  return hooks;
}
}  // namespace dmlcert::test_plugins

// On outputs of 64 KiB and more, returns with the last output element not yet written (its bytes
// as the harness left them) and writes it from a thread from 2 ms after the call on, every
// millisecond for 20 ms (a streaming copy whose last part is still in flight): the output is right
// a moment later, wrong at the instant of return. The writes go on for a while so that some land
// after the return whatever the load (the thread cannot see the call return; a machine busy enough
// can keep the call from returning for the first 2 ms). Smaller outputs are the reference's.
// Expected: every such case fails as `late-write` (or as a wrong output), never passes; every other
// case passes.
#include <chrono>
#include <cstring>
#include <thread>
#include <vector>

#include "misbehaviour.h"

namespace dmlcert::test_plugins {
namespace {
constexpr uint64_t kLargeOutputBytes = 64 << 10;
}  // namespace

plugin::AdapterHooks misbehaviour() {
  plugin::AdapterHooks hooks;
  // The output as it was before the call, to put its last element back.
  static thread_local std::vector<std::byte> before;
  hooks.before = [](const OperatorDesc&, FeatureLevel, const Bindings& b) {
    if (b.output.size >= kLargeOutputBytes) before.assign(b.output.data, b.output.data + b.output.size);
  };
  hooks.after = [](const OperatorDesc& d, FeatureLevel level, const Bindings& b) {
    if (!accepted(d, level) || b.output.size < kLargeOutputBytes || before.size() != b.output.size) return;
    const size_t element = element_size(tensor(d, Role::OUTPUT)->type);
    const size_t last = b.output.size - element;
    std::vector<std::byte> result(b.output.data + last, b.output.data + b.output.size);
    std::memcpy(b.output.data + last, before.data() + last, element);
    volatile std::byte* out = b.output.data + last;
    std::thread([out, result] {
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
      for (int repeat = 0; repeat < 20; ++repeat) {
        for (size_t i = 0; i < result.size(); ++i) out[i] = result[i];
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      }
    }).detach();
  };
  return hooks;
}
}  // namespace dmlcert::test_plugins

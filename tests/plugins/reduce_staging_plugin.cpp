// Copies every accepted REDUCE input into a staging buffer it allocated on its first REDUCE call,
// sized by that call: each later, larger input runs over the end of the buffer and corrupts the
// heap, and the process dies of it sooner or later (glibc's "corrupted size", "double free or
// corruption"). Expected: REDUCE cells crash, the run stays fast (a cause already confirmed is not
// confirmed and bisected again in fresh processes), and other operators pass.
#include <cstdlib>
#include <cstring>

#include "misbehaviour.h"

namespace dmlcert::test_plugins {
plugin::AdapterHooks misbehaviour() {
  plugin::AdapterHooks hooks;
  hooks.before = [](const OperatorDesc& d, FeatureLevel level, const Bindings& b) {
    static std::byte* staging = nullptr;
    if (!accepted(d, level) || op_kind(d) != OpKind::REDUCE || b.input.size == 0) return;
    if (!staging) staging = static_cast<std::byte*>(std::malloc(b.input.size));
    std::memcpy(staging, b.input.data, b.input.size);
    // What a kernel would do next with scratch memory: allocate and free around the buffer.
    std::free(std::malloc(b.input.size / 2 + 16));
  };
  return hooks;
}
}  // namespace dmlcert::test_plugins

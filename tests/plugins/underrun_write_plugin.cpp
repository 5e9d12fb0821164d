// After a successful SLICE1, writes the byte just before the output binding: expected OOB in every
// SLICE1 cell. Such a write lands in the canary bytes in front of the binding (a write past it
// faults on the guard page instead, oob_write_plugin.cpp), which only a check after the call sees.
#include "misbehaviour.h"

namespace dmlcert::test_plugins {
plugin::AdapterHooks misbehaviour() {
  plugin::AdapterHooks hooks;
  hooks.after = [](const OperatorDesc& d, FeatureLevel, const Bindings& b) {
    if (op_kind(d) != OpKind::SLICE1) return;
    volatile std::byte* before = b.output.data - 1;
    *before = std::byte{0x7F};
  };
  return hooks;
}
}  // namespace dmlcert::test_plugins

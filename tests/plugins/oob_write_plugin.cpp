// After a successful SLICE1, writes one element past the end of the output binding: expected OOB
// in every SLICE1 cell.
#include "misbehaviour.h"

namespace dmlcert::test_plugins {
plugin::AdapterHooks misbehaviour() {
  plugin::AdapterHooks hooks;
  hooks.after = [](const OperatorDesc& d, FeatureLevel, const Bindings& b) {
    if (op_kind(d) != OpKind::SLICE1) return;
    size_t element = element_size(std::get<Slice1Desc>(d).output.type);
    volatile std::byte* past_end = b.output.data + b.output.size;
    for (size_t i = 0; i < element; ++i) past_end[i] = std::byte{0x7F};
  };
  return hooks;
}
}  // namespace dmlcert::test_plugins

// Scatters into its input binding before computing the output (an in-place SCATTER_ND):
// expected OOB (input written) in every SCATTER_ND cell.
#include "misbehaviour.h"

namespace dmlcert::test_plugins {
plugin::AdapterHooks misbehaviour() {
  plugin::AdapterHooks hooks;
  hooks.before = [](const OperatorDesc& d, FeatureLevel level, const Bindings& b) {
    if (!accepted(d, level) || op_kind(d) != OpKind::SCATTER_ND || b.input.size == 0) return;
    auto* first = const_cast<volatile std::byte*>(b.input.data);
    *first = *first;  // the same value: only the write itself is wrong
  };
  return hooks;
}
}  // namespace dmlcert::test_plugins

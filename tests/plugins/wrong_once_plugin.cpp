// Gives a wrong output for its first valid GATHER_ELEMENTS case and right ones ever after, in that
// process or a fresh one (once.h): a result that depends on timing (a race between threads) and
// never comes back. Expected: that case flaky, every cell passed, CERTIFIED.
#include "misbehaviour.h"
#include "once.h"

namespace dmlcert::test_plugins {
plugin::AdapterHooks misbehaviour() {
  plugin::AdapterHooks hooks;
  hooks.after = [](const OperatorDesc& d, FeatureLevel level, const Bindings& b) {
    if (op_kind(d) != OpKind::GATHER_ELEMENTS || b.output.size == 0 ||
        validate(d, level).case_class() != CaseClass::Valid || !first_time())
      return;
    // Every byte inverted: no element keeps its value, whatever the type and tolerance.
    for (size_t i = 0; i < b.output.size; ++i) b.output.data[i] = ~b.output.data[i];
  };
  return hooks;
}
}  // namespace dmlcert::test_plugins

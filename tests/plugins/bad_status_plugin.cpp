// Returns 7, a status outside DMLCERT_STATUS_*, from every accepted SLICE1 call (with a message)
// and every accepted SLICE call (without one). Expected: those cells fail, and the report gives
// the value and the message, or says there was none.
#include "misbehaviour.h"

namespace dmlcert::test_plugins {
plugin::AdapterHooks misbehaviour() {
  plugin::AdapterHooks hooks;
  hooks.status = [](uint32_t status, const OperatorDesc& d, std::string& message) -> uint32_t {
    if (status != DMLCERT_STATUS_OK) return status;
    if (op_kind(d) == OpKind::SLICE1) {
      message = "vendor status 7: command queue lost";
      return 7;
    }
    if (op_kind(d) == OpKind::SLICE) {
      message.clear();
      return 7;
    }
    return status;
  };
  return hooks;
}
}  // namespace dmlcert::test_plugins

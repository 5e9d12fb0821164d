// Test plugins: the reference backend behind the C ABI with exactly one misbehaviour, which
// certification must catch and report in the right cells. Each plugin's .cpp defines
// misbehaviour() and includes this file once.
#pragma once

#include "dmlcert/validate.h"
#include "plugin/backend_adapter.h"
#include "reference/reference.h"

namespace dmlcert::test_plugins {

// Only descriptors the reference accepts (valid and class U) trigger the misbehaviour, so that
// invalid-argument checks keep passing and the failures land in the support-table cells.
inline bool accepted(const OperatorDesc& desc, FeatureLevel level) {
  return validate(desc, level).case_class() != CaseClass::Invalid;
}

plugin::AdapterHooks misbehaviour();

}  // namespace dmlcert::test_plugins

extern "C" DMLCERT_PLUGIN_EXPORT const dmlcert_backend_v1* dmlcert_get_backend(uint32_t abi_version) {
  return dmlcert::plugin::export_backend(abi_version, dmlcert::reference::make_backend(), "test plugin",
                                         dmlcert::test_plugins::misbehaviour());
}

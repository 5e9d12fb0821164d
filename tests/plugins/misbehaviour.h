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
// The backend the hooks wrap: the reference, unless a plugin defines its own.
std::unique_ptr<Backend> backend() __attribute__((weak));

}  // namespace dmlcert::test_plugins

extern "C" DMLCERT_PLUGIN_EXPORT const dmlcert_backend_v1* dmlcert_get_backend(uint32_t abi_version) {
  using namespace dmlcert;
  auto wrapped = test_plugins::backend ? test_plugins::backend() : reference::make_backend();
  return plugin::export_backend(abi_version, std::move(wrapped), "test plugin", test_plugins::misbehaviour());
}

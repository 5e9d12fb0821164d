// A plugin written as plugins built from the first version of the ABI header often are: it answers
// the version it was written for and no other (as tests/external_project's does). A harness of any
// later version still loads it, and asks it only about the operators version 1 has
// (dmlcert_backend_abi.h, "Versioning").
#include "plugin/backend_adapter.h"
#include "reference/reference.h"

extern "C" DMLCERT_PLUGIN_EXPORT const dmlcert_backend_v1* dmlcert_get_backend(uint32_t abi_version) {
  if (abi_version != 1) return nullptr;
  return dmlcert::plugin::export_backend(abi_version, dmlcert::reference::make_backend(), "version-1 plugin");
}

// The reference backend shipped as a plugin: what a vendor's library looks like from the
// harness's side, and a known-good plugin for testing the loader and the isolation.
#include "plugin/backend_adapter.h"
#include "reference/reference.h"

extern "C" DMLCERT_PLUGIN_EXPORT const dmlcert_backend_v1* dmlcert_get_backend(uint32_t abi_version) {
  return dmlcert::plugin::export_backend(abi_version, dmlcert::reference::make_backend(),
                                         "dmlcert-reference (plugin)");
}

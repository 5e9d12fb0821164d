// oneDNN behind the C ABI: the plugin `dmlcert certify --backend plugin:...` loads.
#include "onednn_mapping.h"

extern "C" DMLCERT_PLUGIN_EXPORT const dmlcert_backend_v1* dmlcert_get_backend(uint32_t abi_version) {
  return dmlcert_adapter::onednn_adapter::backend_table(abi_version);
}

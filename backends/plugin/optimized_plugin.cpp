// The optimized backend shipped as a plugin through the C ABI: the README's certification
// example, and the form in which it is certified.
#include "optimized/optimized.h"
#include "plugin/backend_adapter.h"

extern "C" DMLCERT_PLUGIN_EXPORT const dmlcert_backend_v1* dmlcert_get_backend(uint32_t abi_version) {
  return dmlcert::plugin::export_backend(abi_version, dmlcert::optimized::make_backend(),
                                         "dmlcert-optimized (plugin)");
}

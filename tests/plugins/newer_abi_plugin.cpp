// A plugin that answers with a table of a newer ABI version than the harness asked for: the harness
// cannot know what such a table holds, and refuses it with both versions named.
#include "plugin/backend_adapter.h"
#include "reference/reference.h"

extern "C" DMLCERT_PLUGIN_EXPORT const dmlcert_backend_v1* dmlcert_get_backend(uint32_t abi_version) {
  auto* table = const_cast<dmlcert_backend_v1*>(dmlcert::plugin::export_backend(
      abi_version, dmlcert::reference::make_backend(), "newer-version plugin"));
  if (table) table->abi_version = abi_version + 1;
  return table;
}

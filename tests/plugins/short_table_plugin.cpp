// A plugin that says it serves ABI version 2 but hands over a table of the version-1 size, as a
// plugin built against a header of mixed versions would: the harness reads no field past
// struct_size, whatever the version says (dmlcert_backend_abi.h, DMLCERT_BACKEND_V1_SIZE).
#include <cstdint>

#include "plugin/backend_adapter.h"
#include "reference/reference.h"

extern "C" DMLCERT_PLUGIN_EXPORT const dmlcert_backend_v1* dmlcert_get_backend(uint32_t abi_version) {
  static dmlcert_backend_v1 table;
  const dmlcert_backend_v1* full =
      dmlcert::plugin::export_backend(abi_version, dmlcert::reference::make_backend(), "short-table plugin");
  if (!full) return nullptr;
  table = *full;
  table.struct_size = DMLCERT_BACKEND_V1_SIZE;
  // What lies past a version-1 table is not the plugin's: a harness that called it would crash.
  table.implements_index_type = reinterpret_cast<int (*)(void*, uint32_t, uint32_t)>(uintptr_t{16});
  return &table;
}

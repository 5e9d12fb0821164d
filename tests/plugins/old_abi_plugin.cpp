// A plugin written as plugins built from the first version of the ABI header often are: it answers
// the version it was written for and no other (as tests/external_project's does), with a table of
// the version-1 size. A harness of any later version still loads it, reads nothing past
// struct_size, and asks it only about the operators version 1 has (dmlcert_backend_abi.h,
// "Versioning").
#include <cstdint>

#include "plugin/backend_adapter.h"
#include "reference/reference.h"

extern "C" DMLCERT_PLUGIN_EXPORT const dmlcert_backend_v1* dmlcert_get_backend(uint32_t abi_version) {
  if (abi_version != 1) return nullptr;
  static dmlcert_backend_v1 table;
  table =
      *dmlcert::plugin::export_backend(abi_version, dmlcert::reference::make_backend(), "version-1 plugin");
  table.struct_size = DMLCERT_BACKEND_V1_SIZE;
  // Past the version-1 table lies whatever memory follows it in the plugin; a harness that read it
  // would call this address and crash.
  table.implements_index_type = reinterpret_cast<int (*)(void*, uint32_t, uint32_t)>(uintptr_t{16});
  return &table;
}

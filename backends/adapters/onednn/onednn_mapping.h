// What oneDNN has for the five operators, as a vendor wraps a library behind the C ABI: REDUCE
// through its reduction primitive, SLICE and SLICE1 with non-negative strides through a reorder
// from a strided sub-view of the input into the output. GATHER_ELEMENTS and SCATTER_ND have no
// oneDNN primitive and are declared unimplemented. docs/third-party.md lists the mapping and what
// certification found.
#pragma once

#include <dmlcert_backend_abi.h>

namespace dmlcert_adapter::onednn_adapter {

// The adapter's C ABI table (the plugin exports it).
const dmlcert_backend_v1* backend_table(uint32_t abi_version);

}  // namespace dmlcert_adapter::onednn_adapter

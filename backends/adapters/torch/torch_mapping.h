// The five operators on libtorch (ATen), as a vendor wraps a library behind the C ABI: tensors
// become strided views of the caller's memory (from_blob with strides), each operator becomes
// the torch operation a torch user would reach for, and the result is copied into the output
// view only once torch has produced all of it, so a call torch refuses writes nothing.
// docs/third-party.md lists the mapping, what it does not claim and what certification found.
// Both the plugin (torch_plugin.cpp) and bench/ use it, so what is timed is what was certified.
#pragma once

#include <dmlcert_backend_abi.h>

namespace dmlcert_adapter::torch_adapter {

// The adapter's C ABI table (the plugin exports it; bench calls it directly).
const dmlcert_backend_v1* backend_table(uint32_t abi_version);

}  // namespace dmlcert_adapter::torch_adapter

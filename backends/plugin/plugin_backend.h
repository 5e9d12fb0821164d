// A plugin's C function table seen as a C++ Backend. This runs inside the isolation host; the
// harness itself never loads a plugin into its own process.
#pragma once

#include <memory>
#include <string>

#include "dmlcert/backend.h"
#include "dmlcert/dmlcert_backend_abi.h"

namespace dmlcert::plugin {

// dlopens `path`, finds dmlcert_get_backend, agrees on an ABI version (this harness's,
// `harness_abi`, or an older one the plugin answers) and checks the table. Returns nullptr and
// says why on any failure.
std::unique_ptr<Backend> load_plugin(const std::string& path, std::string* error,
                                     uint32_t harness_abi = DMLCERT_ABI_VERSION);

}  // namespace dmlcert::plugin

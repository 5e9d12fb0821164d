// A plugin's C function table seen as a C++ Backend. This runs inside the isolation host; the
// harness itself never loads a plugin into its own process.
#pragma once

#include <memory>
#include <string>

#include "dmlcert/backend.h"

namespace dmlcert::plugin {

// dlopens `path`, finds dmlcert_get_backend, and checks the ABI version and table. Returns
// nullptr and says why on any failure.
std::unique_ptr<Backend> load_plugin(const std::string& path, std::string* error);

}  // namespace dmlcert::plugin

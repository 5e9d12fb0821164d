// Backends by name, as `--backend` spells them:
//   reference, optimized           built in, run in-process
//   isolated:reference|optimized   built in, run in the isolation child behind guard pages
//   plugin:/path/libbackend.so     a plugin, always run in the isolation child
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "dmlcert/backend.h"
#include "plugin/isolated_backend.h"

namespace dmlcert::backends {

// A built-in backend by name ("reference", "optimized"), or nullptr.
std::unique_ptr<Backend> make_builtin(std::string_view name);

// Any spec above. Returns nullptr and says why when the spec names no backend or the plugin
// cannot be loaded.
std::unique_ptr<Backend> open(std::string_view spec, const plugin::IsolationOptions& isolation,
                              std::string* error);

// The specs `open` understands, for messages: "reference, optimized, isolated:..., plugin:...".
std::string known_specs();

}  // namespace dmlcert::backends

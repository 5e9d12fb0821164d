#include "registry.h"

#include "reference/reference.h"
#ifdef DMLCERT_HAVE_OPTIMIZED
#include "optimized/optimized.h"
#endif

namespace dmlcert::backends {

std::unique_ptr<Backend> make_builtin(std::string_view name) {
  if (name == "reference") return reference::make_backend();
#ifdef DMLCERT_HAVE_OPTIMIZED
  if (name == "optimized") return optimized::make_backend();
#endif
  return nullptr;
}

std::string known_specs() {
  return "reference, optimized, isolated:reference, isolated:optimized or plugin:/path/lib.so";
}

std::unique_ptr<Backend> open(std::string_view spec, const plugin::IsolationOptions& isolation,
                              std::string* error) {
  if (auto builtin = make_builtin(spec)) return builtin;
  // A plugin never runs inside dmlcert: it is loaded by an isolation child (backends/plugin).
  if (spec.starts_with("plugin:")) return plugin::make_isolated_backend(std::string(spec), isolation, error);
  // A built-in behind the same isolation and guard pages as a plugin: `isolated:optimized`.
  constexpr std::string_view kIsolated = "isolated:";
  if (spec.starts_with(kIsolated)) {
    const std::string_view name = spec.substr(kIsolated.size());
    if (make_builtin(name)) return plugin::make_isolated_backend(std::string(name), isolation, error);
  }
  if (error) {
    *error = "unknown backend '" + std::string(spec) + "' (expected " + known_specs() + ")";
#ifndef DMLCERT_HAVE_OPTIMIZED
    if (spec.find("optimized") != std::string_view::npos)
      *error += "; the optimized backend is not built into this dmlcert";
#endif
  }
  return nullptr;
}

}  // namespace dmlcert::backends

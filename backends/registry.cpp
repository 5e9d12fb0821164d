#include <string>

#include "dmlcert/backend.h"
#include "plugin/isolated_backend.h"
#include "reference/reference.h"
#ifdef DMLCERT_HAVE_OPTIMIZED
#include "optimized/optimized.h"
#endif

namespace dmlcert {

std::unique_ptr<Backend> make_backend(std::string_view spec, std::string* error) {
  if (spec == "reference") return reference::make_backend();
#ifdef DMLCERT_HAVE_OPTIMIZED
  if (spec == "optimized") return optimized::make_backend();
#endif
  // A plugin never runs inside dmlcert: it is loaded by an isolation child (backends/plugin).
  if (spec.rfind("plugin:", 0) == 0) return plugin::make_isolated_backend(std::string(spec), {}, error);
  // A built-in behind the same isolation and guard pages as a plugin: `isolated:optimized`.
  // (certify always isolates; run, replay and fuzz run built-ins in-process unless asked.)
  constexpr std::string_view kIsolated = "isolated:";
  if (spec.rfind(kIsolated, 0) == 0) {
    const std::string_view name = spec.substr(kIsolated.size());
    if (name == "reference" || name == "optimized")
      return plugin::make_isolated_backend(std::string(name), {}, error);
  }
  if (error)
    *error =
        "unknown backend '" + std::string(spec) +
        "' (expected reference, optimized, isolated:reference, isolated:optimized or plugin:/path/lib.so)";
  return nullptr;
}

}  // namespace dmlcert

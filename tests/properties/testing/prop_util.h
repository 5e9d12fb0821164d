// Helpers shared by the property tests: the feature levels under test, backends by name, and
// running one case on one backend to get its logical output.
#pragma once

#include <rapidcheck.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "dmlcert/backend.h"
#include "dmlcert/case.h"
#include "dmlcert/case_buffers.h"
#include "fuzz.h"
#include "registry.h"

namespace dmlcert::props::proptest {

using engine::kFuzzLevels;

inline std::vector<FeatureLevel> tested_levels() {
  return {std::begin(kFuzzLevels), std::end(kFuzzLevels)};
}

// Backends the differential and rejection properties run on: the names make_backend knows.
// "optimized" is skipped when it is not built yet.
inline std::vector<std::string> backend_names() {
  return {"reference", "optimized"};
}

inline std::unique_ptr<Backend> backend_or_null(const std::string& name) {
  return backends::make_builtin(name);
}

// Executes a case the validator finds valid on a backend; the logical output, or nullopt when the
// backend did not return Ok.
inline std::optional<Bytes> execute_logical(Backend& b, const Case& c) {
  std::string why;
  auto buffers = allocate_case_buffers(c, CaseClass::Valid, uint64_t{1} << 28, &why);
  if (!buffers) return std::nullopt;
  const ExecResult r = b.execute(c.op, c.level, buffers->bindings());
  if (r.status != Status::Ok) return std::nullopt;
  return buffers->output();
}

// The reference's logical output for a valid case (a property fails when it does not execute).
inline Bytes run_reference(const Case& c) {
  static const std::unique_ptr<Backend> reference = backend_or_null("reference");
  auto out = execute_logical(*reference, c);
  RC_ASSERT(out.has_value());
  return *out;
}

inline rc::Gen<FeatureLevel> level_gen() {
  return rc::gen::elementOf(tested_levels());
}

}  // namespace dmlcert::props::proptest

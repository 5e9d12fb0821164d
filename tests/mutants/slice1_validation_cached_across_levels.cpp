// SLICE1 that remembers which descriptors passed its checks, so that a graph running one
// operator many times validates it once. BUG: the feature level is not part of what it
// remembers: a descriptor accepted at one level is executed unchecked at every other level,
// including levels whose tables reject it.
#include <set>

#include "mutant_util.h"

namespace dmlcert::mutants {
namespace {

class Slice1ValidationCachedAcrossLevels final : public PatchedReference {
  std::set<std::string> accepted_;

  std::optional<ExecResult> intercept(const OperatorDesc& desc, FeatureLevel level,
                                      const Bindings& b) override {
    if (!std::holds_alternative<Slice1Desc>(desc)) return std::nullopt;
    const std::string key = descriptor_key(desc);  // BUG: without the level
    if (accepted_.count(key)) return run_kernel(desc, level, b);
    ExecResult r = reference().execute(desc, level, b);
    if (r.status == Status::Ok) accepted_.insert(key);
    return r;
  }
};

}  // namespace
}  // namespace dmlcert::mutants

DMLCERT_EXPORT_MUTANT(slice1_validation_cached_across_levels,
                      dmlcert::mutants::Slice1ValidationCachedAcrossLevels)

// SLICE whose validation keeps the rank limit of feature levels before 3_0 (4 or 5) at every
// level: valid rank 6-8 descriptors are rejected.
#include "mutant_util.h"

namespace dmlcert::mutants {
namespace {

class SliceRejectsRankAbove5 final : public PatchedReference {
  std::optional<ExecResult> intercept(const OperatorDesc& desc, FeatureLevel, const Bindings&) override {
    const auto* d = std::get_if<SliceDesc>(&desc);
    if (d && d->input.rank() > 5) return rejected("SLICE.DIMCOUNT: DimensionCount must be 4 or 5");  // BUG
    return std::nullopt;
  }
};

}  // namespace
}  // namespace dmlcert::mutants

DMLCERT_EXPORT_MUTANT(slice_rejects_rank_above_5, dmlcert::mutants::SliceRejectsRankAbove5)

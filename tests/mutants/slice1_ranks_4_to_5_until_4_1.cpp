// SLICE1 with its rank table transcribed one step late: ranks 4-5 until 4_1, 1-8 from then on.
// BUG: at 3_0, 3_1 and 4_0 valid descriptors of rank 1-3 and 6-8 are rejected.
#include "mutant_util.h"

namespace dmlcert::mutants {
namespace {

class Slice1Ranks4To5Until4_1 final : public PatchedReference {
  std::optional<ExecResult> intercept(const OperatorDesc& desc, FeatureLevel level,
                                      const Bindings&) override {
    const auto* d = std::get_if<Slice1Desc>(&desc);
    const uint32_t rank = d ? d->input.rank() : 0;
    if (d && level < FeatureLevel::L4_1 && (rank < 4 || rank > 5))  // BUG: 3_0 allows 1-8
      return rejected("SLICE1.DIMCOUNT: DimensionCount must be 4 or 5 before 4_1");
    return std::nullopt;
  }
};

}  // namespace
}  // namespace dmlcert::mutants

DMLCERT_EXPORT_MUTANT(slice1_ranks_4_to_5_until_4_1, dmlcert::mutants::Slice1Ranks4To5Until4_1)

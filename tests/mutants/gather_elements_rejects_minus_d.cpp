// GATHER_ELEMENTS whose range check for negative indices (legal from 3_0 for signed index types)
// is -d < index instead of -d <= index. BUG: the index -d, which names element 0, is rejected.
#include "mutant_util.h"

namespace dmlcert::mutants {
namespace {

class GatherElementsRejectsMinusD final : public PatchedReference {
  std::optional<ExecResult> mutated(const OperatorDesc& desc, FeatureLevel level,
                                    const Bindings& b) override {
    const auto* d = std::get_if<GatherElementsDesc>(&desc);
    if (!d) return std::nullopt;
    const int64_t extent = d->input.sizes[d->axis];
    const bool negatives = negative_indices_allowed(d->indices.type, level);
    return gather_elements_with(*d, b, [&](const std::byte* p) -> std::optional<uint32_t> {
      const auto v = static_cast<int64_t>(integer_value(d->indices.type, p).value_or(-1));
      if (v >= 0 && v < extent) return static_cast<uint32_t>(v);
      if (negatives && v > -extent && v < 0) return static_cast<uint32_t>(v + extent);  // BUG: -d
      return std::nullopt;
    });
  }
};

}  // namespace
}  // namespace dmlcert::mutants

DMLCERT_EXPORT_MUTANT(gather_elements_rejects_minus_d, dmlcert::mutants::GatherElementsRejectsMinusD)

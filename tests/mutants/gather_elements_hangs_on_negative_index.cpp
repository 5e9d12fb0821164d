// GATHER_ELEMENTS whose index normalization loops forever on a negative index (it waits for a
// wrap-around that never comes).
#include <unistd.h>

#include "mutant_util.h"

namespace dmlcert::mutants {
namespace {

bool negative(DataType t, const std::byte* p) {
  if (t == DataType::INT64) return load<int64_t>(p) < 0;
  if (t == DataType::INT32) return load<int32_t>(p) < 0;
  return false;
}

class GatherElementsHangsOnNegativeIndex final : public PatchedReference {
  std::optional<ExecResult> mutated(const OperatorDesc& desc, FeatureLevel, const Bindings& b) override {
    const auto* d = std::get_if<GatherElementsDesc>(&desc);
    if (!d) return std::nullopt;
    const InputTensor indices(d->indices, b.indices.data);
    bool any = false;
    for_each_coord(d->indices.sizes,
                   [&](const Coord& c) { any = any || negative(d->indices.type, indices.at(c)); });
    if (any)
      for (;;) ::pause();  // BUG: never returns
    return std::nullopt;
  }
};

}  // namespace
}  // namespace dmlcert::mutants

DMLCERT_EXPORT_MUTANT(gather_elements_hangs_on_negative_index,
                      dmlcert::mutants::GatherElementsHangsOnNegativeIndex)

// SLICE whose type check asks whether the device has 64-bit types at all, not whether the level's
// table lists them. BUG: FLOAT64, INT64 and UINT64 are executed at every level, though the table
// adds them at 4_1.
#include "mutant_util.h"

namespace dmlcert::mutants {
namespace {

class Slice64bitTypesAtEveryLevel final : public PatchedReference {
  std::optional<ExecResult> intercept(const OperatorDesc& desc, FeatureLevel level,
                                      const Bindings& b) override {
    const auto* d = std::get_if<SliceDesc>(&desc);
    if (!d || element_size(d->input.type) != 8 || !only_broken(validate(desc, level), {"T.DTYPE"}))
      return std::nullopt;
    return run_kernel(desc, level, b);  // BUG: accepted below 4_1
  }
};

}  // namespace
}  // namespace dmlcert::mutants

DMLCERT_EXPORT_MUTANT(slice_64bit_types_at_every_level, dmlcert::mutants::Slice64bitTypesAtEveryLevel)

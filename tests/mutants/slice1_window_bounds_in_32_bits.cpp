// SLICE1 that checks InputWindowOffsets[i] + InputWindowSizes[i] <= Input.Sizes[i] in 32-bit
// unsigned arithmetic. BUG: an offset near 2^32 wraps the sum into range, and the window it
// accepts lies far past the input.
#include "mutant_util.h"

namespace dmlcert::mutants {
namespace {

class Slice1WindowBoundsIn32Bits final : public PatchedReference {
  std::optional<ExecResult> intercept(const OperatorDesc& desc, FeatureLevel level,
                                      const Bindings& b) override {
    const auto* d = std::get_if<Slice1Desc>(&desc);
    if (!d || !only_broken(validate(desc, level), {"SLICE1.WINDOW_BOUNDS"})) return std::nullopt;
    for (size_t i = 0; i < d->input_window_offsets.size(); ++i) {
      const uint32_t end = d->input_window_offsets[i] + d->input_window_sizes[i];  // BUG: wraps
      if (end > d->input.sizes[i]) return std::nullopt;
    }
    return run_kernel(desc, level, b);
  }
};

}  // namespace
}  // namespace dmlcert::mutants

DMLCERT_EXPORT_MUTANT(slice1_window_bounds_in_32_bits, dmlcert::mutants::Slice1WindowBoundsIn32Bits)

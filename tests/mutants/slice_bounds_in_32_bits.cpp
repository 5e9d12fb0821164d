// SLICE that checks Offsets[i] + Strides[i] * (Sizes[i] - 1) < Input.Sizes[i] in the 32-bit
// unsigned arithmetic its members are declared in, and walks the window the same way. BUG: the
// sum wraps past 2^32, so a window that ends 2^32 elements past its offset passes the check.
#include "mutant_util.h"

namespace dmlcert::mutants {
namespace {

class SliceBoundsIn32Bits final : public PatchedReference {
  std::optional<ExecResult> intercept(const OperatorDesc& desc, FeatureLevel level,
                                      const Bindings& b) override {
    const auto* d = std::get_if<SliceDesc>(&desc);
    if (!d || !only_broken(validate(desc, level), {"SLICE.IN_BOUNDS"})) return std::nullopt;
    for (size_t i = 0; i < d->sizes.size(); ++i) {
      const uint32_t last = d->offsets[i] + d->strides[i] * (d->sizes[i] - 1);  // BUG: wraps
      if (last >= d->input.sizes[i]) return std::nullopt;                       // rejected, as it should be
    }
    const InputTensor input(d->input, b.input.data);
    const OutputTensor output(d->output, b.output.data);
    for_each_coord(d->output.sizes, [&](const Coord& c) {
      Coord from(c.size());
      for (size_t i = 0; i < c.size(); ++i) from[i] = d->offsets[i] + d->strides[i] * c[i];
      copy_element(output.at(c), input.at(from), output.element_bytes());
    });
    return ok();
  }
};

}  // namespace
}  // namespace dmlcert::mutants

DMLCERT_EXPORT_MUTANT(slice_bounds_in_32_bits, dmlcert::mutants::SliceBoundsIn32Bits)

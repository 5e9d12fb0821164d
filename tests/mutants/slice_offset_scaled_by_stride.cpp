// SLICE with the window offset scaled by the stride: from = (Offsets + c) * Strides.
#include "mutant_util.h"

namespace dmlcert::mutants {
namespace {

class SliceOffsetScaledByStride final : public PatchedReference {
  std::optional<ExecResult> mutated(const OperatorDesc& desc, FeatureLevel, const Bindings& b) override {
    const auto* d = std::get_if<SliceDesc>(&desc);
    if (!d) return std::nullopt;
    const InputTensor input(d->input, b.input.data);
    const OutputTensor output(d->output, b.output.data);
    for_each_coord(d->output.sizes, [&](const Coord& c) {
      Coord from(c.size());
      for (std::size_t i = 0; i < c.size(); ++i) {
        // BUG: the reference computes Offsets + Strides * c. Kept inside the input dimension so
        // the bug shows as wrong values, not as a stray read.
        from[i] = static_cast<uint32_t>((uint64_t{d->offsets[i]} + c[i]) * d->strides[i] % d->input.sizes[i]);
      }
      copy_element(output.at(c), input.at(from), output.element_bytes());
    });
    return ok();
  }
};

}  // namespace
}  // namespace dmlcert::mutants

DMLCERT_EXPORT_MUTANT(slice_offset_scaled_by_stride, dmlcert::mutants::SliceOffsetScaledByStride)

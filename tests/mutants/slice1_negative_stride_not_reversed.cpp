// SLICE1 that forgets to start a negative-stride dimension at the window's end: it walks forwards
// from InputWindowOffsets with |stride|, so the dimension is not reversed.
#include <cstdlib>

#include "mutant_util.h"

namespace dmlcert::mutants {
namespace {

class Slice1NegativeStrideNotReversed final : public PatchedReference {
  std::optional<ExecResult> mutated(const OperatorDesc& desc, FeatureLevel, const Bindings& b) override {
    const auto* d = std::get_if<Slice1Desc>(&desc);
    if (!d) return std::nullopt;
    const InputTensor input(d->input, b.input.data);
    const OutputTensor output(d->output, b.output.data);
    const std::size_t rank = d->input_window_offsets.size();
    for_each_coord(d->output.sizes, [&](const Coord& c) {
      Coord from(rank);
      for (std::size_t i = 0; i < rank; ++i)  // BUG: abs(stride) from the window's start
        from[i] =
            static_cast<uint32_t>(d->input_window_offsets[i] + std::llabs(d->input_window_strides[i]) * c[i]);
      copy_element(output.at(c), input.at(from), output.element_bytes());
    });
    return ok();
  }
};

}  // namespace
}  // namespace dmlcert::mutants

DMLCERT_EXPORT_MUTANT(slice1_negative_stride_not_reversed, dmlcert::mutants::Slice1NegativeStrideNotReversed)

// SLICE that reads its input as packed row-major whatever Input.Strides says.
#include "mutant_util.h"

namespace dmlcert::mutants {
namespace {

class SliceInputStridesIgnored final : public PatchedReference {
  std::optional<ExecResult> mutated(const OperatorDesc& desc, FeatureLevel, const Bindings& b) override {
    const auto* d = std::get_if<SliceDesc>(&desc);
    if (!d) return std::nullopt;
    TensorDesc packed_input = d->input;
    packed_input.strides.reset();  // BUG: Input.Strides dropped
    const uint64_t packed_bytes = min_implied_bytes(packed_input).value_or(0);
    const InputTensor input(packed_input, b.input.data);
    const OutputTensor output(d->output, b.output.data);
    const uint64_t element = element_size(d->input.type);
    for_each_coord(d->output.sizes, [&](const Coord& c) {
      Coord from(c.size());
      for (std::size_t i = 0; i < c.size(); ++i)
        from[i] = static_cast<uint32_t>(uint64_t{d->offsets[i]} + uint64_t{d->strides[i]} * c[i]);
      // Reads that the packed layout puts past the binding come back as zeros.
      const uint64_t at = static_cast<uint64_t>(input.at(from) - b.input.data);
      if (at + element <= b.input.size && at + element <= packed_bytes)
        copy_element(output.at(c), input.at(from), element);
      else
        std::memset(output.at(c), 0, element);
    });
    return ok();
  }
};

}  // namespace
}  // namespace dmlcert::mutants

DMLCERT_EXPORT_MUTANT(slice_input_strides_ignored, dmlcert::mutants::SliceInputStridesIgnored)

// SLICE1 that writes its output packed row-major, whatever Output.Strides says (padded and
// permuted output layouts come out wrong).
#include "mutant_util.h"

namespace dmlcert::mutants {
namespace {

class Slice1OutputStridesIgnored final : public PatchedReference {
  std::optional<ExecResult> mutated(const OperatorDesc& desc, FeatureLevel, const Bindings& b) override {
    const auto* d = std::get_if<Slice1Desc>(&desc);
    if (!d) return std::nullopt;
    TensorDesc packed_output = d->output;
    packed_output.strides.reset();  // BUG: Output.Strides dropped
    const InputTensor input(d->input, b.input.data);
    const OutputTensor output(packed_output, b.output.data);
    const std::size_t rank = d->input_window_offsets.size();
    std::vector<int64_t> copy_start(rank);
    for (std::size_t i = 0; i < rank; ++i) {
      copy_start[i] = d->input_window_offsets[i];
      if (d->input_window_strides[i] < 0) copy_start[i] += int64_t{d->input_window_sizes[i]} - 1;
    }
    for_each_coord(d->output.sizes, [&](const Coord& c) {
      Coord from(rank);
      for (std::size_t i = 0; i < rank; ++i)
        from[i] = static_cast<uint32_t>(copy_start[i] + int64_t{d->input_window_strides[i]} * c[i]);
      copy_element(output.at(c), input.at(from), output.element_bytes());
    });
    return ok();
  }
};

}  // namespace
}  // namespace dmlcert::mutants

DMLCERT_EXPORT_MUTANT(slice1_output_strides_ignored, dmlcert::mutants::Slice1OutputStridesIgnored)

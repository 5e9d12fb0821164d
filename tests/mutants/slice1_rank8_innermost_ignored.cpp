// SLICE1 whose rank-8 path (added when the limit went from 5 to 8) walks seven dimensions and
// takes the innermost coordinate from the window's start alone. BUG: at rank 8 only the first
// element of each innermost output row is written.
#include "mutant_util.h"

namespace dmlcert::mutants {
namespace {

class Slice1Rank8InnermostIgnored final : public PatchedReference {
  std::optional<ExecResult> mutated(const OperatorDesc& desc, FeatureLevel, const Bindings& b) override {
    const auto* d = std::get_if<Slice1Desc>(&desc);
    if (!d || d->input.rank() != 8) return std::nullopt;
    const InputTensor input(d->input, b.input.data);
    const OutputTensor output(d->output, b.output.data);
    for_each_coord(d->output.sizes, [&](const Coord& c) {
      if (c[7] != 0) return;  // BUG: the innermost dimension is walked as if it had one element
      Coord from(8);
      for (size_t i = 0; i < 8; ++i) {
        const int64_t stride = d->input_window_strides[i];
        const int64_t start =
            int64_t{d->input_window_offsets[i]} + (stride < 0 ? d->input_window_sizes[i] - 1 : 0);
        from[i] = static_cast<uint32_t>(start + stride * c[i]);
      }
      copy_element(output.at(c), input.at(from), output.element_bytes());
    });
    return ok();
  }
};

}  // namespace
}  // namespace dmlcert::mutants

DMLCERT_EXPORT_MUTANT(slice1_rank8_innermost_ignored, dmlcert::mutants::Slice1Rank8InnermostIgnored)

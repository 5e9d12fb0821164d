// SLICE1 whose vector path for reversed rows (a negative innermost stride) of 1024 elements and
// more moves 8 elements at a time and writes the last block whole: up to 7 elements past the end of
// each output row (the next row's, or past the output's TotalTensorSizeInBytes for the last one).
#include "mutant_util.h"

namespace dmlcert::mutants {
namespace {

constexpr uint32_t kVectorRow = 1024, kLanes = 8;

class Slice1ReversedTailWrittenWhole final : public PatchedReference {
  std::optional<ExecResult> mutated(const OperatorDesc& desc, FeatureLevel, const Bindings& b) override {
    const auto* d = std::get_if<Slice1Desc>(&desc);
    if (!d) return std::nullopt;
    const size_t rank = d->output.sizes.size();
    const uint32_t row = d->output.sizes.back();
    if (d->input_window_strides.back() >= 0 || row < kVectorRow) return std::nullopt;
    const InputTensor input(d->input, b.input.data);
    const OutputTensor output(d->output, b.output.data);
    const size_t es = output.element_bytes();
    const int64_t out_step = static_cast<int64_t>(effective_strides(d->output).back());
    auto source = [&](const Coord& c) {
      Coord from(rank);
      for (size_t i = 0; i < rank; ++i) {
        const int64_t s = d->input_window_strides[i];
        const int64_t start =
            int64_t{d->input_window_offsets[i]} + (s < 0 ? d->input_window_sizes[i] - 1 : 0);
        from[i] = static_cast<uint32_t>(start + s * c[i]);
      }
      return input.at(from);
    };
    for_each_coord(d->output.sizes, [&](const Coord& c) {
      copy_element(output.at(c), source(c), es);
      if (c.back() + 1 != row) return;
      // BUG: the last block is stored whole; its lanes past the row repeat the row's last element.
      for (uint32_t j = row; j % kLanes != 0; ++j)
        copy_element(
            output.at(c) + (static_cast<int64_t>(j - c.back()) * out_step) * static_cast<int64_t>(es),
            source(c), es);
    });
    return ok();
  }
};

}  // namespace
}  // namespace dmlcert::mutants

DMLCERT_EXPORT_MUTANT(slice1_reversed_tail_written_whole, dmlcert::mutants::Slice1ReversedTailWrittenWhole)

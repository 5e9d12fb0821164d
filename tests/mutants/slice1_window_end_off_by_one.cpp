// SLICE1 that starts a negative-stride walk one past the window's end (offset + size instead of
// offset + size - 1). Coordinates that land outside the input dimension wrap around it, so the
// bug shows as wrong values rather than as a stray read.
#include "mutant_util.h"

namespace dmlcert::mutants {
namespace {

class Slice1WindowEndOffByOne final : public PatchedReference {
  std::optional<ExecResult> mutated(const OperatorDesc& desc, FeatureLevel, const Bindings& b) override {
    const auto* d = std::get_if<Slice1Desc>(&desc);
    if (!d) return std::nullopt;
    const InputTensor input(d->input, b.input.data);
    const OutputTensor output(d->output, b.output.data);
    const std::size_t rank = d->input_window_offsets.size();
    std::vector<int64_t> copy_start(rank);
    for (std::size_t i = 0; i < rank; ++i) {
      copy_start[i] = d->input_window_offsets[i];
      if (d->input_window_strides[i] < 0) copy_start[i] += d->input_window_sizes[i];  // BUG: no - 1
    }
    for_each_coord(d->output.sizes, [&](const Coord& c) {
      Coord from(rank);
      for (std::size_t i = 0; i < rank; ++i) {
        const int64_t at = copy_start[i] + int64_t{d->input_window_strides[i]} * c[i];
        const int64_t n = d->input.sizes[i];
        from[i] = static_cast<uint32_t>(((at % n) + n) % n);
      }
      copy_element(output.at(c), input.at(from), output.element_bytes());
    });
    return ok();
  }
};

}  // namespace
}  // namespace dmlcert::mutants

DMLCERT_EXPORT_MUTANT(slice1_window_end_off_by_one, dmlcert::mutants::Slice1WindowEndOffByOne)

// SLICE1 that keeps each window's size in 16 bits: a negative-stride dimension whose window holds
// 65536 elements or more starts its walk from the wrong end.
#include "mutant_util.h"

namespace dmlcert::mutants {
namespace {

class Slice1WindowSizeIn16Bits final : public PatchedReference {
  std::optional<ExecResult> mutated(const OperatorDesc& desc, FeatureLevel, const Bindings& b) override {
    const auto* d = std::get_if<Slice1Desc>(&desc);
    if (!d) return std::nullopt;
    const InputTensor input(d->input, b.input.data);
    const OutputTensor output(d->output, b.output.data);
    const size_t rank = d->input_window_offsets.size();
    for_each_coord(d->output.sizes, [&](const Coord& c) {
      Coord from(rank);
      for (size_t i = 0; i < rank; ++i) {
        const int64_t s = d->input_window_strides[i];
        const uint16_t window = static_cast<uint16_t>(d->input_window_sizes[i]);  // BUG: 16 bits
        const int64_t at = int64_t{d->input_window_offsets[i]} + (s < 0 ? int64_t{window} - 1 : 0) + s * c[i];
        // A walk that would leave the input is clamped into it (the kernel's own guard).
        from[i] = static_cast<uint32_t>(std::clamp<int64_t>(at, 0, d->input.sizes[i] - 1));
      }
      copy_element(output.at(c), input.at(from), output.element_bytes());
    });
    return ok();
  }
};

}  // namespace
}  // namespace dmlcert::mutants

DMLCERT_EXPORT_MUTANT(slice1_window_size_in_16_bits, dmlcert::mutants::Slice1WindowSizeIn16Bits)

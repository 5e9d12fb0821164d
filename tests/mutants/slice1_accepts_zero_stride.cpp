// SLICE1 whose validation forgets SLICE1.STRIDE_ZERO: a 0 window stride (class I) is executed,
// repeating the window's first element.
#include "mutant_util.h"

namespace dmlcert::mutants {
namespace {

bool only_zero_stride_broken(const Validation& v) {
  if (v.invalid.empty()) return false;
  for (const Violation& x : v.invalid)
    if (x.rule != "SLICE1.STRIDE_ZERO") return false;
  return true;
}

class Slice1AcceptsZeroStride final : public PatchedReference {
  std::optional<ExecResult> intercept(const OperatorDesc& desc, FeatureLevel level,
                                      const Bindings& b) override {
    const auto* d = std::get_if<Slice1Desc>(&desc);
    if (!d || !only_zero_stride_broken(validate(desc, level))) return std::nullopt;
    // BUG: executed instead of rejected.
    const InputTensor input(d->input, b.input.data);
    const OutputTensor output(d->output, b.output.data);
    const std::size_t rank = d->input_window_offsets.size();
    for_each_coord(d->output.sizes, [&](const Coord& c) {
      Coord from(rank);
      for (std::size_t i = 0; i < rank; ++i) {
        int64_t start = d->input_window_offsets[i];
        if (d->input_window_strides[i] < 0) start += int64_t{d->input_window_sizes[i]} - 1;
        from[i] = static_cast<uint32_t>(start + int64_t{d->input_window_strides[i]} * c[i]);
      }
      copy_element(output.at(c), input.at(from), output.element_bytes());
    });
    return ok();
  }
};

}  // namespace
}  // namespace dmlcert::mutants

DMLCERT_EXPORT_MUTANT(slice1_accepts_zero_stride, dmlcert::mutants::Slice1AcceptsZeroStride)

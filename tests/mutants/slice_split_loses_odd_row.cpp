// SLICE that splits outputs of 64 KiB and more between two threads by rows, each taking rows / 2
// of them: with an odd number of rows (every output dimension but the innermost), the last row is
// nobody's and is never written.
#include "mutant_util.h"

namespace dmlcert::mutants {
namespace {

constexpr uint64_t kThreadedBytes = uint64_t{64} << 10;
constexpr uint64_t kThreads = 2;

class SliceSplitLosesOddRow final : public PatchedReference {
  std::optional<ExecResult> mutated(const OperatorDesc& desc, FeatureLevel, const Bindings& b) override {
    const auto* d = std::get_if<SliceDesc>(&desc);
    if (!d) return std::nullopt;
    const size_t es = element_size(d->output.type);
    const uint64_t count = element_count(d->output.sizes).value_or(0);
    if (count * es < kThreadedBytes) return std::nullopt;
    const InputTensor input(d->input, b.input.data);
    const OutputTensor output(d->output, b.output.data);
    const uint64_t row = d->output.sizes.back(), rows = count / row;
    const uint64_t share = rows / kThreads;  // BUG: the remainder of the division is nobody's
    uint64_t i = 0;
    for_each_coord(d->output.sizes, [&](const Coord& c) {
      if (i++ / row >= share * kThreads) return;
      Coord from(c.size());
      for (size_t k = 0; k < c.size(); ++k)
        from[k] = static_cast<uint32_t>(uint64_t{d->offsets[k]} + uint64_t{d->strides[k]} * c[k]);
      copy_element(output.at(c), input.at(from), es);
    });
    return ok();
  }
};

}  // namespace
}  // namespace dmlcert::mutants

DMLCERT_EXPORT_MUTANT(slice_split_loses_odd_row, dmlcert::mutants::SliceSplitLosesOddRow)

// SLICE whose fast path, for outputs of 64 KiB and more, copies each innermost output row in
// 16-byte blocks and forgets the last partial block: the elements past the row's last whole block
// are never written.
#include "mutant_util.h"

namespace dmlcert::mutants {
namespace {

constexpr uint64_t kFastPathBytes = uint64_t{64} << 10, kBlockBytes = 16;

class SliceRowsTailDroppedAbove64k final : public PatchedReference {
  std::optional<ExecResult> mutated(const OperatorDesc& desc, FeatureLevel, const Bindings& b) override {
    const auto* d = std::get_if<SliceDesc>(&desc);
    if (!d) return std::nullopt;
    const size_t es = element_size(d->output.type);
    if (element_count(d->output.sizes).value_or(0) * es < kFastPathBytes) return std::nullopt;
    const InputTensor input(d->input, b.input.data);
    const OutputTensor output(d->output, b.output.data);
    const uint64_t per_block = kBlockBytes / es;
    const uint64_t whole = d->output.sizes.back() / per_block * per_block;  // BUG: the tail is dropped
    for_each_coord(d->output.sizes, [&](const Coord& c) {
      if (c.back() >= whole) return;
      Coord from(c.size());
      for (size_t i = 0; i < c.size(); ++i)
        from[i] = static_cast<uint32_t>(uint64_t{d->offsets[i]} + uint64_t{d->strides[i]} * c[i]);
      copy_element(output.at(c), input.at(from), es);
    });
    return ok();
  }
};

}  // namespace
}  // namespace dmlcert::mutants

DMLCERT_EXPORT_MUTANT(slice_rows_tail_dropped_above_64k, dmlcert::mutants::SliceRowsTailDroppedAbove64k)

// SLICE that packs each dimension's offset into 16 bits: an offset of 65536 or more is read
// modulo 2^16, from the wrong place.
#include "mutant_util.h"

namespace dmlcert::mutants {
namespace {

class SliceOffsetsIn16Bits final : public PatchedReference {
  std::optional<ExecResult> mutated(const OperatorDesc& desc, FeatureLevel, const Bindings& b) override {
    const auto* d = std::get_if<SliceDesc>(&desc);
    if (!d) return std::nullopt;
    const InputTensor input(d->input, b.input.data);
    const OutputTensor output(d->output, b.output.data);
    for_each_coord(d->output.sizes, [&](const Coord& c) {
      Coord from(c.size());
      for (size_t i = 0; i < c.size(); ++i)
        from[i] = static_cast<uint32_t>(uint64_t{static_cast<uint16_t>(d->offsets[i])} +  // BUG: 16 bits
                                        uint64_t{d->strides[i]} * c[i]);
      copy_element(output.at(c), input.at(from), output.element_bytes());
    });
    return ok();
  }
};

}  // namespace
}  // namespace dmlcert::mutants

DMLCERT_EXPORT_MUTANT(slice_offsets_in_16_bits, dmlcert::mutants::SliceOffsetsIn16Bits)

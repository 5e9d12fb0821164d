// SCATTER_ND that flattens each index tuple to an element offset kept in 16 bits: in an output of
// more than 65536 elements, an update meant for offset 65536 or beyond lands 2^16 elements (or a
// multiple) earlier.
#include "mutant_util.h"

namespace dmlcert::mutants {
namespace {

class ScatterNdOffsetsIn16Bits final : public PatchedReference {
  std::optional<ExecResult> mutated(const OperatorDesc& desc, FeatureLevel level,
                                    const Bindings& b) override {
    const auto* d = std::get_if<ScatterNdDesc>(&desc);
    if (!d) return std::nullopt;
    const auto plan = mutants::plan_scatter_nd(*d, level, b.indices);
    if (plan.error) return rejected("SCATTERND.INDEX_RANGE: " + plan.error->message);
    const InputTensor input(d->input, b.input.data);
    const InputTensor updates(d->updates, b.updates.data);
    const OutputTensor output(d->output, b.output.data);
    const size_t es = output.element_bytes();
    for_each_coord(d->output.sizes, [&](const Coord& c) { copy_element(output.at(c), input.at(c), es); });
    const auto packed = packed_strides(d->output.sizes);
    for (const auto& w : plan.writes) {
      const uint16_t flat = static_cast<uint16_t>(element_offset(w.output, packed));  // BUG: 16 bits
      copy_element(output.at(unravel(flat, d->output.sizes)), updates.at(w.update), es);
    }
    return ok();
  }
};

}  // namespace
}  // namespace dmlcert::mutants

DMLCERT_EXPORT_MUTANT(scatter_nd_offsets_in_16_bits, dmlcert::mutants::ScatterNdOffsetsIn16Bits)

// GATHER_ELEMENTS that counts Axis from the last dimension (a port from a library whose
// dimensions are stored innermost first): it gathers along rank - 1 - Axis.
#include "mutant_util.h"

namespace dmlcert::mutants {
namespace {

class GatherElementsAxisFromEnd final : public PatchedReference {
  std::optional<ExecResult> mutated(const OperatorDesc& desc, FeatureLevel level,
                                    const Bindings& b) override {
    const auto* d = std::get_if<GatherElementsDesc>(&desc);
    if (!d) return std::nullopt;
    const uint32_t axis = d->input.rank() - 1 - d->axis;  // BUG: reversed axis order
    const InputTensor input(d->input, b.input.data);
    const InputTensor indices(d->indices, b.indices.data);
    const OutputTensor output(d->output, b.output.data);
    std::vector<uint32_t> resolved;
    bool out_of_range = false;
    for_each_coord(d->indices.sizes, [&](const Coord& c) {
      const auto index = resolve_index(d->indices.type, indices.at(c), d->input.sizes[axis], level);
      out_of_range = out_of_range || !index;
      resolved.push_back(index.value_or(0));
    });
    if (out_of_range) return rejected("GATHERELEMENTS.INDEX_RANGE: index data out of range");
    std::size_t next = 0;
    for_each_coord(d->output.sizes, [&](const Coord& c) {
      Coord from = c;
      from[axis] = resolved[next++];
      from[d->axis] %= d->input.sizes[d->axis];  // Indices may be longer than Input along Axis
      copy_element(output.at(c), input.at(from), output.element_bytes());
    });
    return ok();
  }
};

}  // namespace
}  // namespace dmlcert::mutants

DMLCERT_EXPORT_MUTANT(gather_elements_axis_from_end, dmlcert::mutants::GatherElementsAxisFromEnd)

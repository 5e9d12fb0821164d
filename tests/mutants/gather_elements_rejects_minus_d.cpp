// GATHER_ELEMENTS whose range check for negative indices (legal from 3_0 for signed index types)
// is -d < index instead of -d <= index. BUG: the index -d, which names element 0, is rejected.
#include "mutant_util.h"

namespace dmlcert::mutants {
namespace {

class GatherElementsRejectsMinusD final : public PatchedReference {
  std::optional<ExecResult> mutated(const OperatorDesc& desc, FeatureLevel level, const Bindings& b) override {
    const auto* d = std::get_if<GatherElementsDesc>(&desc);
    if (!d) return std::nullopt;
    const InputTensor input(d->input, b.input.data);
    const InputTensor indices(d->indices, b.indices.data);
    const OutputTensor output(d->output, b.output.data);
    const int64_t extent = d->input.sizes[d->axis];
    const bool negatives = negative_indices_allowed(d->indices.type, level);
    std::vector<uint32_t> resolved;
    bool out_of_range = false;
    for_each_coord(d->indices.sizes, [&](const Coord& c) {
      const int64_t v = integer_value(d->indices.type, indices.at(c)).value_or(-1);
      const bool in_range = (v >= 0 && v < extent) || (negatives && v > -extent && v < 0);  // BUG: -d
      out_of_range = out_of_range || !in_range;
      resolved.push_back(static_cast<uint32_t>(v < 0 ? v + extent : v));
    });
    if (out_of_range) return rejected("GATHERELEMENTS.INDEX_RANGE: index data out of range");
    std::size_t next = 0;
    for_each_coord(d->output.sizes, [&](const Coord& c) {
      Coord from = c;
      from[d->axis] = resolved[next++];
      copy_element(output.at(c), input.at(from), output.element_bytes());
    });
    return ok();
  }
};

}  // namespace
}  // namespace dmlcert::mutants

DMLCERT_EXPORT_MUTANT(gather_elements_rejects_minus_d, dmlcert::mutants::GatherElementsRejectsMinusD)

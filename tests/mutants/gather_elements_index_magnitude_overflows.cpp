// GATHER_ELEMENTS that range-checks an index by its magnitude, -index for a negative one, in
// signed 64-bit arithmetic, then adds d to negative indices. BUG: -INT64_MIN wraps back to
// INT64_MIN, which is below d and passes; the index, still negative after adding d, is read far
// before the input.
#include "mutant_util.h"

namespace dmlcert::mutants {
namespace {

class GatherElementsIndexMagnitudeOverflows final : public PatchedReference {
  std::optional<ExecResult> mutated(const OperatorDesc& desc, FeatureLevel level,
                                    const Bindings& b) override {
    const auto* d = std::get_if<GatherElementsDesc>(&desc);
    if (!d) return std::nullopt;
    const InputTensor indices(d->indices, b.indices.data);
    const int64_t extent = d->input.sizes[d->axis];
    const bool negatives = negative_indices_allowed(d->indices.type, level);
    std::vector<int64_t> resolved;
    bool out_of_range = false;
    for_each_coord(d->indices.sizes, [&](const Coord& c) {
      const auto v = static_cast<int64_t>(integer_value(d->indices.type, indices.at(c)).value_or(0));
      const auto magnitude = static_cast<int64_t>(0 - static_cast<uint64_t>(v));  // BUG: wraps for INT64_MIN
      out_of_range = out_of_range || (v < 0 ? !negatives || magnitude > extent : v >= extent);
      resolved.push_back(v < 0 ? v + extent : v);
    });
    if (out_of_range) return rejected("GATHERELEMENTS.INDEX_RANGE: index data out of range");
    const auto strides = effective_strides(d->input);
    const size_t element = element_size(d->input.type);
    const OutputTensor output(d->output, b.output.data);
    std::size_t next = 0;
    for_each_coord(d->output.sizes, [&](const Coord& c) {
      Coord row = c;
      row[d->axis] = 0;
      const int64_t at = static_cast<int64_t>(element_offset(row, strides)) +
                         resolved[next++] * static_cast<int64_t>(strides[d->axis]);
      copy_element(output.at(c), b.input.data + at * static_cast<int64_t>(element), element);
    });
    return ok();
  }
};

}  // namespace
}  // namespace dmlcert::mutants

DMLCERT_EXPORT_MUTANT(gather_elements_index_magnitude_overflows,
                      dmlcert::mutants::GatherElementsIndexMagnitudeOverflows)

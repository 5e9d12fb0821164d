// GATHER_ELEMENTS that reads signed index types as the unsigned type of the same width, so a
// legal negative index (from 3_0) looks huge and the valid case is rejected.
#include "mutant_util.h"

namespace dmlcert::mutants {
namespace {

// The index element read as unsigned: INT32 -1 becomes 4294967295.
uint64_t index_as_unsigned(DataType t, const std::byte* p) {
  switch (t) {
    case DataType::INT64:
    case DataType::UINT64: return load<uint64_t>(p);
    default: return load<uint32_t>(p);  // BUG for INT64/INT32 negatives: no sign
  }
}

class GatherElementsNegativeIndexUnsigned final : public PatchedReference {
  std::optional<ExecResult> mutated(const OperatorDesc& desc, FeatureLevel, const Bindings& b) override {
    const auto* d = std::get_if<GatherElementsDesc>(&desc);
    if (!d) return std::nullopt;
    const InputTensor input(d->input, b.input.data);
    const InputTensor indices(d->indices, b.indices.data);
    const OutputTensor output(d->output, b.output.data);
    const uint32_t axis_size = d->input.sizes[d->axis];
    std::vector<uint32_t> resolved;
    bool out_of_range = false;
    for_each_coord(d->indices.sizes, [&](const Coord& c) {
      const uint64_t v = index_as_unsigned(d->indices.type, indices.at(c));
      out_of_range = out_of_range || v >= axis_size;
      resolved.push_back(static_cast<uint32_t>(v));
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

DMLCERT_EXPORT_MUTANT(gather_elements_negative_index_unsigned,
                      dmlcert::mutants::GatherElementsNegativeIndexUnsigned)

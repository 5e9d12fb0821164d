// GATHER_ELEMENTS whose streaming path, for outputs of 1 MiB and more, gathers 8 elements at a
// time over the output in row-major order and stops before the last partial group: the last
// count % 8 output elements are never written.
#include "mutant_util.h"

namespace dmlcert::mutants {
namespace {

constexpr uint64_t kStreamingBytes = uint64_t{1} << 20, kLanes = 8;

class GatherElementsTailDroppedAbove1m final : public PatchedReference {
  std::optional<ExecResult> mutated(const OperatorDesc& desc, FeatureLevel level,
                                    const Bindings& b) override {
    const auto* d = std::get_if<GatherElementsDesc>(&desc);
    if (!d) return std::nullopt;
    const uint64_t count = element_count(d->output.sizes).value_or(0);
    if (count * element_size(d->output.type) < kStreamingBytes) return std::nullopt;
    const uint32_t extent = d->input.sizes[d->axis];
    const InputTensor input(d->input, b.input.data);
    const InputTensor indices(d->indices, b.indices.data);
    const OutputTensor output(d->output, b.output.data);
    std::vector<uint32_t> at;
    at.reserve(count);
    bool out_of_range = false;
    for_each_coord(d->indices.sizes, [&](const Coord& c) {
      const auto k = resolve_index(d->indices.type, indices.at(c), extent, level);
      out_of_range = out_of_range || !k;
      at.push_back(k.value_or(0));
    });
    if (out_of_range) return rejected("GATHERELEMENTS.INDEX_RANGE: index data out of range");
    const uint64_t gathered = count / kLanes * kLanes;  // BUG: the last partial group is dropped
    uint64_t i = 0;
    for_each_coord(d->output.sizes, [&](const Coord& c) {
      if (i >= gathered) return;
      Coord from = c;
      from[d->axis] = at[i++];
      copy_element(output.at(c), input.at(from), output.element_bytes());
    });
    return ok();
  }
};

}  // namespace
}  // namespace dmlcert::mutants

DMLCERT_EXPORT_MUTANT(gather_elements_tail_dropped_above_1m,
                      dmlcert::mutants::GatherElementsTailDroppedAbove1m)

// GATHER_ELEMENTS that copies float elements through arithmetic (x + 0.0) instead of as bits:
// -0.0 becomes +0.0 (data movement is bit-exact).
#include "mutant_util.h"

namespace dmlcert::mutants {
namespace {

void copy_through_add(DataType t, std::byte* dst, const std::byte* src) {
  dispatch(t, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (is_float_v<T>) {
      if (!element_is_nan<T>(src)) {
        store<T>(dst, static_cast<T>(element_value<T>(src) + 0.0f));  // BUG: -0 + 0 is +0
        return;
      }
    }
    copy_element(dst, src, sizeof(T));
  });
}

class GatherElementsNegativeZeroLost final : public PatchedReference {
  std::optional<ExecResult> mutated(const OperatorDesc& desc, FeatureLevel level,
                                    const Bindings& b) override {
    const auto* d = std::get_if<GatherElementsDesc>(&desc);
    if (!d || !is_float(d->input.type)) return std::nullopt;
    const InputTensor input(d->input, b.input.data);
    const InputTensor indices(d->indices, b.indices.data);
    const OutputTensor output(d->output, b.output.data);
    std::vector<uint32_t> resolved;
    bool out_of_range = false;
    for_each_coord(d->indices.sizes, [&](const Coord& c) {
      const auto index = resolve_index(d->indices.type, indices.at(c), d->input.sizes[d->axis], level);
      out_of_range = out_of_range || !index;
      resolved.push_back(index.value_or(0));
    });
    if (out_of_range) return rejected("GATHERELEMENTS.INDEX_RANGE: index data out of range");
    std::size_t next = 0;
    for_each_coord(d->output.sizes, [&](const Coord& c) {
      Coord from = c;
      from[d->axis] = resolved[next++];
      copy_through_add(d->input.type, output.at(c), input.at(from));
    });
    return ok();
  }
};

}  // namespace
}  // namespace dmlcert::mutants

DMLCERT_EXPORT_MUTANT(gather_elements_negative_zero_lost, dmlcert::mutants::GatherElementsNegativeZeroLost)

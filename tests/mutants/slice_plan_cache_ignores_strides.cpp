// SLICE that compiles each descriptor into a plan, the byte offsets of every element it reads and
// writes, and keeps the plans of earlier calls for reuse. The cache is keyed on what the author
// took a plan to depend on: the sizes, the window and the data type. BUG: the tensors' strides
// and sizes in bytes are not part of the key, so a later call with the same sizes and another
// layout runs the first call's offsets.
#include <map>

#include "mutant_util.h"

namespace dmlcert::mutants {
namespace {

struct Plan {
  std::vector<std::pair<uint64_t, uint64_t>> moves;  // (input byte, output byte)
  size_t element = 0;
};

Plan compile(const SliceDesc& d) {
  Plan plan;
  plan.element = element_size(d.input.type);
  const auto in_strides = effective_strides(d.input), out_strides = effective_strides(d.output);
  for_each_coord(d.output.sizes, [&](const Coord& c) {
    Coord from(c.size());
    for (std::size_t i = 0; i < c.size(); ++i)
      from[i] = static_cast<uint32_t>(uint64_t{d.offsets[i]} + uint64_t{d.strides[i]} * c[i]);
    plan.moves.emplace_back(element_offset(from, in_strides) * plan.element,
                            element_offset(c, out_strides) * plan.element);
  });
  return plan;
}

class SlicePlanCacheIgnoresStrides final : public PatchedReference {
  std::map<std::string, Plan> plans_;

  std::optional<ExecResult> mutated(const OperatorDesc& desc, FeatureLevel, const Bindings& b) override {
    const auto* d = std::get_if<SliceDesc>(&desc);
    if (!d) return std::nullopt;
    SliceDesc key = *d;
    for (TensorDesc* t : {&key.input, &key.output}) t->strides.reset(), t->total_bytes = 0;  // BUG
    auto [it, fresh] = plans_.try_emplace(descriptor_key(key));
    if (fresh) it->second = compile(*d);
    for (const auto& [from, to] : it->second.moves)
      copy_element(b.output.data + to, b.input.data + from, it->second.element);
    return ok();
  }
};

}  // namespace
}  // namespace dmlcert::mutants

DMLCERT_EXPORT_MUTANT(slice_plan_cache_ignores_strides, dmlcert::mutants::SlicePlanCacheIgnoresStrides)

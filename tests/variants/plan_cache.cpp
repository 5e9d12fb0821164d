// SLICE and SLICE1 that compile each descriptor into a plan (the byte offsets of every element
// read and written) and keep the plans of recent calls, keyed on the whole descriptor and the
// feature level. A cache with the right key changes nothing a caller can see.
#include <map>

#include "mutant_util.h"
#include "variant_catalog.h"

namespace dmlcert::variants {
namespace {

struct Plan {
  std::vector<std::pair<uint64_t, uint64_t>> moves;  // (input byte, output byte)
  size_t element = 0;
};

// Where output coordinate c reads: Offsets + Strides * c (SLICE), or from the window's start,
// its end for negative strides (SLICE1).
Coord source(const SliceDesc& d, const Coord& c) {
  Coord from(c.size());
  for (size_t i = 0; i < c.size(); ++i)
    from[i] = static_cast<uint32_t>(d.offsets[i] + uint64_t{d.strides[i]} * c[i]);
  return from;
}
Coord source(const Slice1Desc& d, const Coord& c) {
  Coord from(c.size());
  for (size_t i = 0; i < c.size(); ++i) {
    const int64_t stride = d.input_window_strides[i];
    const int64_t start = int64_t{d.input_window_offsets[i]} + (stride < 0 ? d.input_window_sizes[i] - 1 : 0);
    from[i] = static_cast<uint32_t>(start + stride * c[i]);
  }
  return from;
}

template <class D>
Plan compile(const D& d) {
  Plan plan;
  plan.element = element_size(d.input.type);
  const auto in_strides = effective_strides(d.input), out_strides = effective_strides(d.output);
  for_each_coord(d.output.sizes, [&](const Coord& c) {
    plan.moves.emplace_back(element_offset(source(d, c), in_strides) * plan.element,
                            element_offset(c, out_strides) * plan.element);
  });
  return plan;
}

class PlanCache final : public mutants::PatchedReference {
  static constexpr size_t kPlans = 64;
  std::map<std::string, Plan> plans_;

  std::optional<ExecResult> mutated(const OperatorDesc& desc, FeatureLevel level,
                                    const Bindings& b) override {
    if (!std::holds_alternative<SliceDesc>(desc) && !std::holds_alternative<Slice1Desc>(desc))
      return std::nullopt;
    const std::string key = mutants::descriptor_key(desc) + std::string(dmlcert::name(level));
    auto it = plans_.find(key);
    if (it == plans_.end()) {
      if (plans_.size() == kPlans) plans_.clear();
      Plan plan = std::holds_alternative<SliceDesc>(desc) ? compile(std::get<SliceDesc>(desc))
                                                          : compile(std::get<Slice1Desc>(desc));
      it = plans_.emplace(key, std::move(plan)).first;
    }
    for (const auto& [from, to] : it->second.moves)
      mutants::copy_element(b.output.data + to, b.input.data + from, it->second.element);
    return mutants::ok();
  }
};

}  // namespace
}  // namespace dmlcert::variants

DMLCERT_EXPORT_VARIANT(plan_cache, dmlcert::variants::PlanCache)

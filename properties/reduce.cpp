// Valid REDUCE cases for every function: a nonempty set of distinct axes (empty or repeated axes
// are class U), listed in any order, output sizes 1 on reduced axes (REDUCE.OUTPUT_SIZES), and
// data that keeps every result and partial result valid (fill.cpp).
#include <algorithm>

#include "build.h"

namespace dmlcert::props {
namespace {

struct ReduceDim {
  uint32_t size = 0;
  bool reduced = false;
};
struct AxisOrder {
  bool shuffled = false;
  uint32_t seed = 0;
};

rc::Gen<ReduceDim> reduce_dim_gen() {
  return rc::gen::construct<ReduceDim>(raw(), rc::gen::arbitrary<bool>());
}

Case realize(const CaseSpec& spec, ReduceFunction f, DataType type, DataType out_type,
             const std::vector<ReduceDim>& dims, const AxisOrder& order, uint64_t budget,
             const LayoutSpec& in_layout, const LayoutSpec& out_layout, const FillSpec& fill) {
  ReduceDesc d;
  d.function = f;
  Sizes in_sizes, out_sizes;
  uint64_t remaining = budget;
  for (uint32_t i = 0; i < dims.size(); ++i) {
    in_sizes.push_back(budgeted_size(dims[i].size, remaining));
    if (dims[i].reduced) d.axes.push_back(i);
  }
  // At least one axis (AxisCount == 0 is class U, REDUCE.AXES_EMPTY): the last one.
  if (d.axes.empty()) d.axes.push_back(static_cast<uint32_t>(dims.size() - 1));
  out_sizes = in_sizes;
  uint64_t n = 1;
  for (uint32_t a : d.axes) out_sizes[a] = 1, n *= in_sizes[a];
  if (order.shuffled) {
    Prng prng(mix_seed(order.seed, 0xa7e5u));
    for (size_t i = d.axes.size(); i > 1; --i) std::swap(d.axes[i - 1], d.axes[prng.below(i)]);
  }
  d.input = realize_layout(type, in_sizes, in_layout, true);
  d.output = realize_layout(out_type, out_sizes, out_layout, false);
  Case c = new_case(spec, d);
  c.data.input = fill_reduce(f, type, element_count(in_sizes).value_or(0), n, fill);
  share_broadcast_elements(d.input, c.data.input);
  return c;
}

rc::Gen<Case> reduce_case_with(const CaseSpec& spec, ReduceFunction f) {
  CaseSpec s = spec;
  s.function = f;
  const RankRange ranks = rank_range(s);
  const auto in_types = role_types(s, Role::INPUT);
  // MULTIPLY's exact fill bounds the product over the whole tensor; a 0-stride input would repeat
  // elements past that bound.
  const bool broadcast = s.allow_broadcast_inputs && f != ReduceFunction::MULTIPLY;
  rc::Gen<DataType> out_type = is_arg_function(f) ? type_gen(s.index_type, role_types(s, Role::OUTPUT))
                                                  : rc::gen::just(DataType::FLOAT32);
  return rc::gen::apply(
      [s, f](DataType type, DataType arg_out, const std::vector<ReduceDim>& dims, const AxisOrder& order,
             uint64_t budget, const LayoutSpec& in_layout, const LayoutSpec& out_layout,
             const FillSpec& fill) {
        return realize(s, f, type, is_arg_function(f) ? arg_out : type, dims, order, budget, in_layout,
                       out_layout, fill);
      },
      type_gen(s.data_type, in_types), out_type, ranked(ranks, reduce_dim_gen()),
      rc::gen::construct<AxisOrder>(rc::gen::arbitrary<bool>(), raw()), budget_gen(),
      layout_gen(true, broadcast), layout_gen(false), fill_gen(s.mode));
}

}  // namespace

// The functions that can produce a case matching the spec (its fixed types) at its level.
std::vector<ReduceFunction> reduce_functions_for(const CaseSpec& spec) {
  std::vector<ReduceFunction> out;
  for (ReduceFunction f : kAllReduceFunctions) {
    if (spec.function && f != *spec.function) continue;
    CaseSpec s = spec;
    s.function = f;
    const auto in = role_types(s, Role::INPUT);
    if (in.empty()) continue;
    if (spec.data_type && std::find(in.begin(), in.end(), *spec.data_type) == in.end()) continue;
    if (spec.index_type) {
      const auto out_types = role_types(s, Role::OUTPUT);
      if (!is_arg_function(f) ||
          std::find(out_types.begin(), out_types.end(), *spec.index_type) == out_types.end())
        continue;
    }
    out.push_back(f);
  }
  return out;
}

rc::Gen<Case> reduce_case(const CaseSpec& spec) {
  if (spec.function) return reduce_case_with(spec, *spec.function);
  return rc::gen::mapcat(rc::gen::elementOf(reduce_functions_for(spec)),
                         [spec](ReduceFunction f) { return reduce_case_with(spec, f); });
}

}  // namespace dmlcert::props

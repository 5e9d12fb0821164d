// Valid REDUCE cases for every function: a nonempty set of distinct axes (empty or repeated axes
// are class U), listed in any order, output sizes 1 on reduced axes (REDUCE.OUTPUT_SIZES), and
// data that keeps every result and partial result valid (fill.cpp).
#include <algorithm>
#include <cmath>
#include <limits>

#include "build.h"
#include "dmlcert/reduce_groups.h"

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
  return rc::gen::construct<ReduceDim>(raw_size(), rc::gen::arbitrary<bool>());
}

Case realize(const CaseSpec& spec, ReduceFunction f, DataType type, DataType out_type,
             const std::vector<ReduceDim>& dims, const AxisOrder& order, const SizeBudget& budget,
             const LayoutSpec& in_layout, const LayoutSpec& out_layout, const FillSpec& fill) {
  ReduceDesc d;
  d.function = f;
  std::vector<uint32_t> raw_sizes;
  for (uint32_t i = 0; i < dims.size(); ++i) {
    raw_sizes.push_back(dims[i].size);
    if (dims[i].reduced) d.axes.push_back(i);
  }
  const Sizes in_sizes = budgeted_sizes(raw_sizes, budget);
  Sizes out_sizes;
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

rc::Gen<Case> valid(const CaseSpec& spec) {
  CaseSpec s = spec;
  const ReduceFunction f = *spec.function;  // case_for_spec picks one
  const RankRange ranks = rank_range(s);
  const auto in_types = role_types(s, Role::INPUT);
  // MULTIPLY's exact fill bounds the product over the whole tensor; a 0-stride input would repeat
  // elements past that bound.
  const bool broadcast = s.allow_broadcast_inputs && f != ReduceFunction::MULTIPLY;
  rc::Gen<DataType> out_type = is_arg_function(f) ? type_gen(s.index_type, role_types(s, Role::OUTPUT))
                                                  : rc::gen::just(DataType::FLOAT32);
  return rc::gen::apply(
      [s, f](DataType type, DataType arg_out, const std::vector<ReduceDim>& dims, const AxisOrder& order,
             const SizeBudget& budget, const LayoutSpec& in_layout, const LayoutSpec& out_layout,
             const FillSpec& fill) {
        return realize(s, f, type, is_arg_function(f) ? arg_out : type, dims, order, budget, in_layout,
                       out_layout, fill);
      },
      type_gen(s.data_type, in_types), out_type, ranked(ranks, reduce_dim_gen()),
      rc::gen::construct<AxisOrder>(rc::gen::arbitrary<bool>(), raw()), budget_gen(),
      layout_gen(true, broadcast, s.layout_salt), layout_gen(false, true, s.layout_salt),
      fill_gen(s.mode, s.data_salt));
}

std::vector<DataType> integer_types(const std::vector<DataType>& types) {
  std::vector<DataType> out;
  for (DataType t : types)
    if (!is_float(t)) out.push_back(t);
  return out;
}

uint64_t reduced_count(const ReduceDesc& d) {
  uint64_t n = 1;
  for (uint32_t a : axis_set(d.axes)) n *= d.input.sizes[a];
  return n;
}

void fill_with_max(Case& c) {
  TensorDesc& in = *tensor(c.op, Role::INPUT);
  const size_t es = element_size(in.type);
  for (size_t i = 0; i + es <= c.data.input.size(); i += es)
    dispatch(in.type, [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (!is_float_v<T>) store<T>(c.data.input.data() + i, std::numeric_limits<T>::max());
    });
}

}  // namespace

OperatorGenerators reduce_generators() {
  OperatorGenerators g;
  g.valid = valid;
  g.invalid = {
      {"OP.FUNCTION", nullptr, nullptr, nullptr,
       [](Case& c, Choices& choices) {
         as<ReduceDesc>(c).function = static_cast<ReduceFunction>(kReduceFunctionCount + choices.below(100));
       }},
      {"REDUCE.DIMCOUNT", nullptr, nullptr, nullptr,
       [](Case& c, Choices&) { prepend_unit(*tensor(c.op, Role::OUTPUT)); }},
      {"REDUCE.AXIS_RANGE", nullptr, nullptr, nullptr,
       [](Case& c, Choices& choices) {
         auto& d = as<ReduceDesc>(c);
         d.axes[choices.below(d.axes.size())] = d.input.rank() + static_cast<uint32_t>(choices.below(3));
       }},
      {"REDUCE.OUTPUT_SIZES", nullptr, nullptr, nullptr,
       [](Case& c, Choices& choices) {
         auto& d = as<ReduceDesc>(c);
         const uint32_t i = pick_dim(d.output, choices);
         const bool reduced = std::find(d.axes.begin(), d.axes.end(), i) != d.axes.end();
         resize(c, Role::OUTPUT, i, reduced ? 2 : d.output.sizes[i] + 1, choices);
       }},
      {"REDUCE.DTYPE_MATCH", nullptr, nullptr, nullptr,
       [](Case& c, Choices& choices) {
         auto& d = as<ReduceDesc>(c);
         if (is_arg_function(d.function))
           retype(c, Role::OUTPUT, choices.coin() ? DataType::FLOAT16 : DataType::FLOAT32, choices);
         else
           retype(c, Role::OUTPUT, other_type(c, Role::OUTPUT, d.input.type, choices), choices);
       }},
  };
  g.unspecified = {
      {"REDUCE.AXES_EMPTY", nullptr, nullptr, nullptr,
       [](Case& c, Choices&) {
         auto& d = as<ReduceDesc>(c);
         d.axes.clear();
         d.output.sizes = d.input.sizes;
         d.output.strides.reset();
         refresh_total_bytes(d.output);
       }},
      {"REDUCE.AXES_DUPLICATE", nullptr, nullptr, nullptr,
       [](Case& c, Choices& choices) {
         auto& d = as<ReduceDesc>(c);
         const uint32_t a = d.axes[choices.below(d.axes.size())];
         d.axes.insert(d.axes.begin() + static_cast<ptrdiff_t>(choices.below(d.axes.size() + 1)), a);
       }},
      {"REDUCE.INT_OVERFLOW",
       [](OpKind op, FeatureLevel l) {
         if (l < introduced_at(op)) return false;
         CaseSpec s;
         s.level = l, s.op = op, s.function = ReduceFunction::SUM;
         return !integer_types(role_types(s, Role::INPUT)).empty();
       },
       [](CaseSpec& s) { s.function = ReduceFunction::SUM; },
       [](const Case& c) {
         const auto& d = std::get<ReduceDesc>(c.op);
         return !is_float(d.input.type) && reduced_count(d) >= 2;
       },
       // Two maxima in every group already leave the type's range.
       [](Case& c, Choices&) { fill_with_max(c); }},
      {"REDUCE.NONFINITE", nullptr, [](CaseSpec& s) { s.data_type = DataType::FLOAT32; }, nullptr,
       [](Case& c, Choices& choices) {
         TensorDesc& in = *tensor(c.op, Role::INPUT);
         in.type = choices.coin() ? DataType::FLOAT16 : DataType::FLOAT32;
         refresh_total_bytes(in);
         auto& d = as<ReduceDesc>(c);
         if (!is_arg_function(d.function)) {  // ARG* outputs keep their index type
           d.output.type = in.type;
           refresh_total_bytes(d.output);
         }
         const uint64_t n = element_count(in.sizes).value_or(0);
         c.data.input = fill_reduce(d.function, in.type, n, reduced_count(d),
                                    FillSpec{DataMode::Exact, choices.next(), 3});
         const double specials[] = {std::nan(""), INFINITY, -INFINITY};
         const size_t es = element_size(in.type);
         // Element 0 always keeps its value under 0-stride sharing.
         from_double(in.type, specials[choices.below(3)], c.data.input.data());
         for (uint64_t i = 1; i < n; ++i)
           if (choices.below(4) == 0)
             from_double(in.type, specials[choices.below(3)], c.data.input.data() + i * es);
         share_broadcast_elements(in, c.data.input);
       }},
  };
  return g;
}

}  // namespace dmlcert::props

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

constexpr uint32_t kMaxReduceExponent = 17;

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

// The input sizes at the case's scale. Large: the elements each output folds (N) and the outputs
// (M) each near a power of two, the exponent shared between them; sparse: one reduced axis at an
// integer width's edge, the others within four elements; huge: most elements in one reduced axis.
Sizes input_sizes(const std::vector<ReduceDim>& dims, const std::vector<uint32_t>& axes,
                  const SizeBudget& budget, const Magnitude& m, uint64_t huge) {
  const uint32_t rank = static_cast<uint32_t>(dims.size());
  std::vector<uint32_t> raw_sizes;
  for (const ReduceDim& dim : dims) raw_sizes.push_back(dim.size);
  std::vector<uint32_t> kept;
  for (uint32_t i = 0; i < rank; ++i)
    if (std::find(axes.begin(), axes.end(), i) == axes.end()) kept.push_back(i);
  // The axis a sparse case stretches: the first listed; a huge one: the last (realize() shuffles
  // the list after).
  const uint32_t main_axis = m.scale == Scale::Huge ? axes.back() : axes.front();
  switch (m.scale) {
    case Scale::Ordinary: break;
    case Scale::Large: {
      // Every element costs the reference and the comparison model a walk of its group: a REDUCE
      // stops at 2^17 elements (folds of up to 2^17, past the 2^15-element blocks of a blocked
      // reduction).
      const uint32_t k = std::min(large_exponent(m), kMaxReduceExponent);
      const uint32_t folded = kept.empty() ? k : k * ((m.split / 8) % 5) / 4;
      Magnitude outputs = m;
      outputs.nudge = m.nudge / 8, outputs.split = m.split / 3;
      const Sizes n = shape_near_power(m, folded, static_cast<uint32_t>(axes.size()));
      const Sizes rest = shape_near_power(outputs, k - folded, static_cast<uint32_t>(kept.size()));
      Sizes sizes(rank, 1);
      for (size_t j = 0; j < axes.size(); ++j) sizes[axes[j]] = n[j];
      for (size_t j = 0; j < kept.size(); ++j) sizes[kept[j]] = rest[j];
      return sizes;
    }
    case Scale::Sparse: {
      Sizes sizes = budgeted_sizes(raw_sizes, SizeBudget{4, budget.order, budget.spread});
      sizes[main_axis] = static_cast<uint32_t>(sparse_extent(m));
      return sizes;
    }
    case Scale::Huge: {
      // One long reduced axis and, where a dimension is kept, 8 to 64 outputs: more outputs than
      // a few per thread, each of many blocks.
      Sizes sizes(rank, 1);
      uint64_t outputs = 1;
      if (!kept.empty()) outputs = sizes[kept[m.split % kept.size()]] = 8u << (m.split / 8) % 4;
      sizes[main_axis] = static_cast<uint32_t>(std::max<uint64_t>(1, huge / outputs));
      return sizes;
    }
  }
  return budgeted_sizes(raw_sizes, budget);
}

Case realize(const CaseSpec& spec, ReduceFunction f, DataType type, DataType out_type,
             const std::vector<ReduceDim>& dims, const AxisOrder& order, const SizeBudget& budget,
             const Magnitude& m, const LayoutSpec& in_layout, const LayoutSpec& out_layout,
             const FillSpec& fill, bool broadcast, uint64_t huge = 0, bool with_data = true) {
  ReduceDesc d;
  d.function = f;
  for (uint32_t i = 0; i < dims.size(); ++i)
    if (dims[i].reduced) d.axes.push_back(i);
  // At least one axis (AxisCount == 0 is class U, REDUCE.AXES_EMPTY): the last one. A huge case
  // reduces the last one, its long axis, over rows (reduce_width.h: the rows a backend may read
  // past the cache with other kernels).
  const uint32_t last = static_cast<uint32_t>(dims.size() - 1);
  if (d.axes.empty() || (m.scale == Scale::Huge && d.axes.back() != last)) d.axes.push_back(last);
  // And it keeps a dimension where it has two: its outputs (8 to 64) take the pool.
  if (m.scale == Scale::Huge && d.axes.size() == dims.size() && d.axes.size() >= 2)
    d.axes.erase(d.axes.begin());
  const Sizes in_sizes = input_sizes(dims, d.axes, budget, m, huge);
  Sizes out_sizes = in_sizes;
  uint64_t n = 1;
  for (uint32_t a : d.axes) out_sizes[a] = 1, n *= in_sizes[a];
  if (order.shuffled) {
    Prng prng(mix_seed(order.seed, 0xa7e5u));
    for (size_t i = d.axes.size(); i > 1; --i) std::swap(d.axes[i - 1], d.axes[prng.below(i)]);
  }
  d.input = realize_layout(type, in_sizes, in_layout, true);
  if (m.scale == Scale::Huge && broadcast) {
    // Read past the caches from a few lines: the long axis broadcast, the others packed.
    const uint32_t main_axis =
        static_cast<uint32_t>(std::max_element(in_sizes.begin(), in_sizes.end()) - in_sizes.begin());
    Sizes rest = in_sizes;
    rest[main_axis] = 1;
    const auto packed = packed_strides(rest);
    d.input.strides = std::vector<uint32_t>(packed.begin(), packed.end());
    (*d.input.strides)[main_axis] = 0;
    refresh_total_bytes(d.input);
  }
  d.output = realize_layout(out_type, out_sizes, out_layout, false);
  Case c = new_case(spec, d);
  if (!with_data) return c;
  c.data.input = fill_reduce(f, type, element_count(in_sizes).value_or(0), n, fill);
  const auto strides = effective_strides(d.input);
  if (std::find(strides.begin(), strides.end(), uint64_t{0}) == strides.end()) {
    widen_some(f, type, c.data.input, fill);
    plant_lone_element(f, type, in_sizes, d.axes, c.data.input, fill, m.edge);
  }
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
      [s, f, broadcast](DataType type, DataType arg_out, const std::vector<ReduceDim>& dims,
                        const AxisOrder& order, const SizeBudget& budget, const Magnitude& m,
                        const LayoutSpec& in_layout, const LayoutSpec& out_layout, const FillSpec& fill) {
        const DataType out = is_arg_function(f) ? arg_out : type;
        if (m.scale != Scale::Huge)
          return realize(s, f, type, out, dims, order, budget, m, in_layout, out_layout, fill, broadcast);
        const Case sized =
            huge_case((huge_reduce_elements(type) >> m.halvings) - m.nudge % 61, [&](uint64_t elements) {
              return realize(s, f, type, out, dims, order, budget, m, in_layout, out_layout, fill, broadcast,
                             elements, false);
            });
        return realize(s, f, type, out, dims, order, budget, m, in_layout, out_layout, fill, broadcast,
                       element_count(tensor(sized.op, Role::INPUT)->sizes).value_or(1));
      },
      type_gen(s.data_type, in_types), out_type, ranked(ranks, reduce_dim_gen()),
      rc::gen::construct<AxisOrder>(rc::gen::arbitrary<bool>(), raw()), budget_gen(), magnitude_gen(s),
      layout_gen(true, broadcast, s.layout_salt, s.packed), layout_gen(false, true, s.layout_salt, s.packed),
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
         ReduceFunction& f = as<ReduceDesc>(c).function;
         f = static_cast<ReduceFunction>(choices.coin() ? past_a_width(static_cast<uint32_t>(f), choices)
                                                        : kReduceFunctionCount + choices.below(100));
       }},
      {"REDUCE.DIMCOUNT", nullptr, nullptr, nullptr,
       [](Case& c, Choices&) { prepend_unit(*tensor(c.op, Role::OUTPUT)); }},
      {"REDUCE.AXIS_RANGE", nullptr, nullptr, nullptr,
       [](Case& c, Choices& choices) {
         auto& d = as<ReduceDesc>(c);
         uint32_t& axis = d.axes[choices.below(d.axes.size())];
         axis = choices.coin() ? past_a_width(axis, choices)
                               : d.input.rank() + static_cast<uint32_t>(choices.below(3));
       }},
      {"REDUCE.OUTPUT_SIZES", nullptr, nullptr, nullptr,
       [](Case& c, Choices& choices) {
         auto& d = as<ReduceDesc>(c);
         const uint32_t i = pick_dim(d.output, choices);
         const bool reduced = std::find(d.axes.begin(), d.axes.end(), i) != d.axes.end();
         // A reduced axis of 1 + 2^8 or 1 + 2^16 is 1 again in a narrow field.
         const uint32_t wide = choices.below(4) == 0 ? 1 + (choices.coin() ? 1u << 16 : 1u << 8) : 2;
         resize(c, Role::OUTPUT, i, reduced ? wide : grown_size(d.output, i, kMostGrownOutput, choices),
                choices);
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
         if (choices.coin()) {
           // Every element one infinity: the only data that tells an accumulator started at the
           // type's largest finite value (MIN) or lowest (MAX) from one started at an infinity or
           // at the first element. The sign is the one that accumulator never reaches.
           const bool max_like = d.function == ReduceFunction::MAX || d.function == ReduceFunction::ARGMAX;
           const bool min_like = d.function == ReduceFunction::MIN || d.function == ReduceFunction::ARGMIN;
           const double inf = max_like ? -INFINITY : min_like ? INFINITY : specials[1 + choices.below(2)];
           for (uint64_t i = 0; i < n; ++i) from_double(in.type, inf, c.data.input.data() + i * es);
           return;
         }
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

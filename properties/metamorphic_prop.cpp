// Metamorphic properties of the reference backend itself: relations between the results of two
// related cases that hold whatever the right answer is, so they check the oracle without one.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>

#include "build.h"
#include "dmlcert/reduce_groups.h"
#include "testing/prop_util.h"

namespace dmlcert::props {
namespace {

Backend& reference() {
  static const std::unique_ptr<Backend> b = proptest::backend_or_null("reference");
  return *b;
}

Bytes run(const Case& c) {
  auto out = proptest::execute_logical(reference(), c);
  RC_ASSERT(out.has_value());
  return *out;
}

rc::Gen<FeatureLevel> level_gen() {
  return rc::gen::elementOf(proptest::tested_levels());
}

// The same logical tensors in other memory layouts (strides, padding, permutation, slack bytes)
// give the same logical result, bit for bit.
RC_GTEST_PROP(ReferenceMetamorphic, LayoutDoesNotChangeTheResult, ()) {
  const Case c = *valid_case(*level_gen());
  Case other = c;
  for (Role r : roles(op_kind(c.op))) {
    TensorDesc& t = *tensor(other.op, r);
    t = realize_layout(t.type, t.sizes, *layout_gen(r != Role::OUTPUT, false), r != Role::OUTPUT);
  }
  RC_ASSERT(run(c) == run(other));
}

// SLICE1 with stride -s equals the stride-s result reversed in that dimension, for windows that
// end exactly on the last element read (InputWindowSizes = |s| * (OutputSize-1) + 1).
RC_GTEST_PROP(ReferenceMetamorphic, NegativeStrideReversesThePositiveOne, ()) {
  CaseSpec spec;
  spec.level = *level_gen();
  spec.op = OpKind::SLICE1;
  Case pos = *case_for_spec(spec);
  auto& d = std::get<Slice1Desc>(pos.op);
  const uint32_t rank = d.input.rank();
  for (uint32_t i = 0; i < rank; ++i) {
    const int64_t s = std::abs(static_cast<int64_t>(d.input_window_strides[i]));
    d.input_window_strides[i] = static_cast<int32_t>(s);
    d.input_window_sizes[i] = static_cast<uint32_t>(s * (d.output.sizes[i] - 1) + 1);
  }
  const auto flip = *rc::gen::container<std::vector<bool>>(rank, rc::gen::arbitrary<bool>());
  Case neg = pos;
  auto& dn = std::get<Slice1Desc>(neg.op);
  for (uint32_t i = 0; i < rank; ++i)
    if (flip[i]) dn.input_window_strides[i] = -dn.input_window_strides[i];

  const Bytes a = run(pos), b = run(neg);
  const Sizes& sizes = d.output.sizes;
  const size_t es = element_size(d.output.type);
  Bytes reversed(a.size());
  for_each_coord(sizes, [&](const Coord& c) {
    Coord r = c;
    for (uint32_t i = 0; i < rank; ++i)
      if (flip[i]) r[i] = sizes[i] - 1 - c[i];
    std::copy_n(a.begin() + static_cast<ptrdiff_t>(flat_index(r, sizes) * es), es,
                reversed.begin() + static_cast<ptrdiff_t>(flat_index(c, sizes) * es));
  });
  RC_ASSERT(b == reversed);
}

// A negative index -d..-1 means d+value (from 3_0, signed index types): writing every index in
// the other form gives the same result.
RC_GTEST_PROP(ReferenceMetamorphic, NegativeIndexEqualsItsNormalizedForm, ()) {
  CaseSpec spec;
  spec.level = *rc::gen::element(FeatureLevel::L3_0, FeatureLevel::L4_1, FeatureLevel::L5_0);
  spec.op = *rc::gen::element(OpKind::GATHER_ELEMENTS, OpKind::SCATTER_ND);
  spec.index_type = *rc::gen::element(DataType::INT32, DataType::INT64);
  const Case c = *case_for_spec(spec);
  Case flipped = c;
  const TensorDesc& idx = *tensor(c.op, Role::INDICES);
  auto values = decode_indices(idx.type, c.data.indices);
  for (size_t i = 0; i < values.size(); ++i) {
    int64_t d = 0;
    if (const auto* g = std::get_if<GatherElementsDesc>(&c.op)) {
      d = g->input.sizes[g->axis];
    } else {
      const auto& s = std::get<ScatterNdDesc>(c.op);
      const uint32_t k = s.indices.sizes.back();
      const uint32_t m = std::max(s.input_dimension_count, k);
      d = s.input.sizes[s.input.rank() - m + i % k];
    }
    values[i] = values[i] < 0 ? values[i] + d : values[i] - d;
  }
  flipped.data.indices = encode_indices(idx.type, values);
  RC_ASSERT(run(c) == run(flipped));
}

// Reducing axes {a, b} equals reducing a, then b, for functions that compose with themselves,
// on Exact-mode data (every order of summation is exact, so the results are bitwise equal).
RC_GTEST_PROP(ReferenceMetamorphic, ReducingTwoAxesEqualsReducingOneThenTheOther, ()) {
  CaseSpec spec;
  spec.level = *level_gen();
  spec.op = OpKind::REDUCE;
  spec.function = *rc::gen::element(ReduceFunction::SUM, ReduceFunction::MULTIPLY, ReduceFunction::MAX,
                                    ReduceFunction::MIN, ReduceFunction::L1);
  spec.mode = DataMode::Exact;
  spec.min_rank = 2;
  spec.allow_broadcast_inputs = false;
  Case both = *case_for_spec(spec);
  auto& d = std::get<ReduceDesc>(both.op);
  const uint32_t rank = d.input.rank();
  const uint32_t a = *rc::gen::inRange<uint32_t>(0, rank - 1);
  const uint32_t b = *rc::gen::inRange<uint32_t>(a + 1, rank);
  // Data bounded for groups of sizes[a]*sizes[b] elements.
  both.data.input = fill_reduce(d.function, d.input.type, element_count(d.input.sizes).value_or(0),
                                uint64_t{d.input.sizes[a]} * d.input.sizes[b], *fill_gen(DataMode::Exact));
  // The same case over other axes; the output follows the input's sizes (packed).
  auto with_axes = [](Case c, std::vector<uint32_t> axes) {
    auto& r = std::get<ReduceDesc>(c.op);
    r.axes = axes;
    Sizes out = r.input.sizes;
    for (uint32_t x : axes) out[x] = 1;
    r.output = packed_desc(r.output.type, out);
    return c;
  };
  const Case ab = with_axes(both, {a, b});
  const Case first = with_axes(both, {a});
  // The second step reduces the first step's output (packed) over b.
  Case second = first;
  std::get<ReduceDesc>(second.op).input = std::get<ReduceDesc>(first.op).output;
  second = with_axes(second, {b});
  second.data.input = run(first);
  RC_ASSERT(run(ab) == run(second));
}

// ARGMAX of x equals ARGMIN of -x for signed and float data (first index on ties on both sides).
RC_GTEST_PROP(ReferenceMetamorphic, ArgmaxIsArgminOfTheNegation, ()) {
  CaseSpec spec;
  spec.level = *level_gen();
  spec.op = OpKind::REDUCE;
  spec.function = ReduceFunction::ARGMAX;
  std::vector<DataType> signed_types;
  for (DataType t : role_types(spec, Role::INPUT))
    if (is_float(t) || is_signed_integer(t)) signed_types.push_back(t);
  spec.data_type = *rc::gen::elementOf(signed_types);
  Case max_case = *case_for_spec(spec);
  const TensorDesc in = std::get<ReduceDesc>(max_case.op).input;
  const size_t es = element_size(in.type);
  Case min_case = max_case;
  std::get<ReduceDesc>(min_case.op).function = ReduceFunction::ARGMIN;
  for (size_t i = 0; i + es <= max_case.data.input.size(); i += es) {
    dispatch(in.type, [&](auto tag) {
      using T = typename decltype(tag)::type;
      std::byte* x = max_case.data.input.data() + i;
      std::byte* y = min_case.data.input.data() + i;
      if constexpr (is_float_v<T>) {
        // Negation flips the sign bit (the top bit of the element).
        y[es - 1] = x[es - 1] ^ std::byte{0x80};
      } else if constexpr (std::is_signed_v<T>) {
        T v = load<T>(x);
        if (v == std::numeric_limits<T>::min()) v = static_cast<T>(v + 1);  // -min overflows
        store<T>(x, v);
        store<T>(y, static_cast<T>(-v));
      }
    });
  }
  RC_ASSERT(run(max_case) == run(min_case));
}

}  // namespace
}  // namespace dmlcert::props

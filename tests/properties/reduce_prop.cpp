// REDUCE's metamorphic properties: reductions compose over axes, and ARGMAX is ARGMIN of the
// negation.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>

#include "build.h"
#include "dmlcert/reduce_groups.h"
#include "testing/prop_util.h"

namespace dmlcert::props {
namespace {

using proptest::level_gen;
using proptest::run_reference;

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
  second.data.input = run_reference(first);
  RC_ASSERT(run_reference(ab) == run_reference(second));
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
  RC_ASSERT(run_reference(max_case) == run_reference(min_case));
}

}  // namespace
}  // namespace dmlcert::props

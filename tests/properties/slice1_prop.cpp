// SLICE1's metamorphic property: a negative stride reverses the positive one.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <limits>

#include "build.h"
#include "testing/prop_util.h"

namespace dmlcert::props {
namespace {

using proptest::level_gen;
using proptest::run_reference;

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
    // |INT32_MIN| has no int32; the property holds for any positive stride.
    const int64_t s = std::min<int64_t>(std::abs(static_cast<int64_t>(d.input_window_strides[i])),
                                        std::numeric_limits<int32_t>::max());
    d.input_window_strides[i] = static_cast<int32_t>(s);
    d.input_window_sizes[i] = static_cast<uint32_t>(s * (d.output.sizes[i] - 1) + 1);
  }
  const auto flip = *rc::gen::container<std::vector<bool>>(rank, rc::gen::arbitrary<bool>());
  Case neg = pos;
  auto& dn = std::get<Slice1Desc>(neg.op);
  for (uint32_t i = 0; i < rank; ++i)
    if (flip[i]) dn.input_window_strides[i] = -dn.input_window_strides[i];

  const Bytes a = run_reference(pos), b = run_reference(neg);
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

}  // namespace
}  // namespace dmlcert::props

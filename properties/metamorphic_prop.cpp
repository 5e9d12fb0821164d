// Metamorphic properties of the reference backend every operator shares: relations between the
// results of two related cases that hold whatever the right answer is, so they check the oracle
// without one. Each operator's own relations are in its <operator>_prop.cpp.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>

#include "build.h"
#include "testing/prop_util.h"

namespace dmlcert::props {
namespace {

using proptest::level_gen;
using proptest::run_reference;

// The same logical tensors in other memory layouts (strides, padding, permutation, slack bytes)
// give the same logical result, bit for bit.
RC_GTEST_PROP(ReferenceMetamorphic, LayoutDoesNotChangeTheResult, ()) {
  const Case c = *valid_case(*level_gen());
  Case other = c;
  for (Role r : roles(op_kind(c.op))) {
    TensorDesc& t = *tensor(other.op, r);
    t = realize_layout(t.type, t.sizes, *layout_gen(r != Role::OUTPUT, false), r != Role::OUTPUT);
  }
  RC_ASSERT(run_reference(c) == run_reference(other));
}

}  // namespace
}  // namespace dmlcert::props

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

// The shrinker's last step (shrink.cpp): a leading dimension of 1 on every tensor comes and goes
// without changing the descriptor, or the result where the smaller case is valid.
RC_GTEST_PROP(ReferenceMetamorphic, LeadingUnitDimensionComesAndGoes, ()) {
  const Case c = *valid_case(*level_gen());
  Case dropped = c;
  if (drop_leading_unit_dim_everywhere(dropped)) {
    // It may leave the level's table (some start at rank 4) or the operator's rules (a SCATTER_ND
    // tuple that spans every dimension): the shrinker keeps it only when its class stays.
    const bool valid = classify(dropped.op, dropped.level, dropped.data).case_class == CaseClass::Valid;
    RC_TAG(valid ? "dropped a leading 1" : "the 1 was needed");
    if (valid) RC_ASSERT(run_reference(c) == run_reference(dropped));
  }
  Case padded = c;
  prepend_unit_dim_everywhere(padded);
  RC_ASSERT(drop_leading_unit_dim_everywhere(padded));
  RC_ASSERT(padded.op == c.op);
}

}  // namespace
}  // namespace dmlcert::props

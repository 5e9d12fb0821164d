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

// One of the shrinker's last steps (shrink.cpp): a leading dimension of 1 on every tensor comes and
// goes without changing the descriptor, or the result where the smaller case is valid.
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

// The shrinker's other last step (shrink.cpp): strides of dimensions of 1 rewritten and packed
// strides dropped address the same elements at the same offsets (any layout gives the same
// result, so comparing results alone would not show a moved element), and keep the findings.
std::vector<uint64_t> offsets(const TensorDesc& t) {
  std::vector<uint64_t> all;
  for_each_offset(t.sizes, effective_strides(t), [&](uint64_t offset) { all.push_back(offset); });
  return all;
}

RC_GTEST_PROP(ReferenceMetamorphic, TidyStridesKeepsEveryOffsetAndFinding, ()) {
  const Case c = *valid_case(*level_gen());
  Case tidy = c;
  const bool changed = tidy_strides(tidy);
  RC_TAG(changed ? "tidied" : "nothing to tidy");
  for (Role r : roles(op_kind(c.op))) {
    RC_ASSERT(offsets(*tensor(tidy.op, r)) == offsets(*tensor(c.op, r)));
    RC_ASSERT(min_implied_bytes(*tensor(tidy.op, r)) == min_implied_bytes(*tensor(c.op, r)));
  }
  const Classification before = classify(c.op, c.level, c.data),
                       after = classify(tidy.op, tidy.level, tidy.data);
  RC_ASSERT(after.case_class == before.case_class);
  RC_ASSERT(after.rule_list() == before.rule_list());
  RC_ASSERT(run_reference(c) == run_reference(tidy));
}

struct StrideTidying {
  const char* name;
  Sizes sizes;
  std::optional<std::vector<uint32_t>> strides, tidied;  // tidied: nullopt when dropped
  bool changed;
};

TEST(TidyStrides, NamedLayouts) {
  using S = std::vector<uint32_t>;
  const StrideTidying cases[] = {
      {"drawn_stride_on_a_leading_1_then_packed", {1, 3, 4}, S{2147483648u, 4, 1}, std::nullopt, true},
      {"padded_rows_keep_their_strides", {1, 3, 4}, S{7, 8, 2}, S{24, 8, 2}, true},
      {"a_1_between_two_dimensions", {3, 1, 4}, S{9, 100, 2}, S{9, 8, 2}, true},
      {"a_trailing_1", {2, 1}, S{5, 77}, S{5, 1}, true},
      {"packed_strides_written_out", {2, 3}, S{3, 1}, std::nullopt, true},
      {"nothing_to_tidy", {2, 3}, S{6, 2}, S{6, 2}, false},
      {"no_strides", {1, 5}, std::nullopt, std::nullopt, false},
      // 2^20 * 2^13 does not fit a stride: that 1 keeps what it has.
      {"packed_stride_too_large_for_32_bits", {1, 8192, 1048576}, S{3, 1048576, 1}, S{3, 1048576, 1}, false},
      // ... and passes nothing on to the 1 outside it.
      {"a_kept_stride_does_not_spread",
       {1, 1, 2},
       S{5, 0x80000000u, 0x80000001u},
       S{5, 0x80000000u, 0x80000001u},
       false},
      {"broadcast_inner_dimension", {1, 4}, S{3, 0}, S{0, 0}, true},
      {"a_dimension_of_0", {1, 0}, S{7, 3}, S{0, 3}, true},
      {"rank_0_with_empty_strides", {}, S{}, std::nullopt, true},
      {"stride_count_is_not_the_rank", {1, 3}, S{7}, S{7}, false},  // T.STRIDES_COUNT stays broken
  };
  for (const StrideTidying& t : cases) {
    SCOPED_TRACE(t.name);
    Case c;
    Slice1Desc d;
    d.input = TensorDesc{DataType::FLOAT32, t.sizes, t.strides};
    c.op = d;
    EXPECT_EQ(tidy_strides(c), t.changed);
    EXPECT_EQ(std::get<Slice1Desc>(c.op).input.strides, t.tidied);
    EXPECT_EQ(std::get<Slice1Desc>(c.op).input.sizes, t.sizes);
  }
}

}  // namespace
}  // namespace dmlcert::props

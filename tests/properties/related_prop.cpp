// What the generators promise the engine's sequences (generators.h, Variation) and what the size
// budgets promise every rank (build.h, SizeBudget): checked over many seeds, for every operator.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>

#include "build.h"
#include "dmlcert/validate.h"

namespace dmlcert::props {
namespace {

constexpr FeatureLevel kLevel = FeatureLevel::L5_0;
constexpr int kSize = 25;
constexpr uint64_t kSeeds = 200;

// The first cell of the operator's role at the rank.
SupportCell cell_of(OpKind op, Role role, uint32_t rank) {
  for (const SupportCell& c : support_cells(kLevel))
    if (c.op == op && c.role == role && c.rank == rank) return c;
  ADD_FAILURE() << "no cell for " << name(op) << " rank " << rank;
  return {};
}

Case sampled(const rc::Gen<Case>& gen, uint64_t seed) {
  return sample(gen, seed, kSize).value();
}

// The descriptor with its layouts and types taken out: the sizes and the parameters.
OperatorDesc shape_of(OperatorDesc d) {
  for (Role r : roles(op_kind(d))) {
    TensorDesc& t = *tensor(d, r);
    t.strides.reset();
    t.total_bytes = 0;
    t.type = DataType::FLOAT32;
  }
  return d;
}

bool same_layout(const Case& a, const Case& b) {
  for (Role r : roles(op_kind(a.op))) {
    const TensorDesc &x = *tensor(a.op, r), &y = *tensor(b.op, r);
    if (effective_strides(x) != effective_strides(y) || x.total_bytes != y.total_bytes) return false;
  }
  return true;
}

class RelatedCases : public ::testing::TestWithParam<OpKind> {};

TEST_P(RelatedCases, KeepTheShapeAndChangeWhatTheyName) {
  const SupportCell cell = cell_of(GetParam(), Role::INPUT, 3);
  SupportCell other_type = cell;
  other_type.type = cell.type == DataType::INT32 ? DataType::UINT32 : DataType::INT32;
  uint64_t layouts_differ = 0, data_differ = 0;
  for (uint64_t seed = 0; seed < kSeeds; ++seed) {
    const Case base = sampled(valid_case_for_cell(cell, kLevel, DataMode::Random), seed);
    const Case layout = sampled(valid_case_for_cell(cell, kLevel, DataMode::Random, {seed + 1, 0}), seed);
    const Case data = sampled(valid_case_for_cell(cell, kLevel, DataMode::Random, {0, seed + 1}), seed);
    const Case typed = sampled(valid_case_for_cell(other_type, kLevel, DataMode::Random), seed);
    for (const Case* related : {&layout, &data, &typed}) {
      ASSERT_EQ(shape_of(related->op), shape_of(base.op)) << "seed " << seed << "\n"
                                                          << to_json(base) << "\n"
                                                          << to_json(*related);
      EXPECT_EQ(classify(related->op, kLevel, related->data).case_class, CaseClass::Valid)
          << to_json(*related);
    }
    EXPECT_EQ(tensor(typed.op, Role::INPUT)->type, other_type.type);
    EXPECT_EQ(data.op, base.op) << "other data keeps the layouts";
    layouts_differ += !same_layout(layout, base);
    data_differ += !(data.data == base.data);
  }
  EXPECT_GT(layouts_differ, kSeeds * 3 / 4);
  EXPECT_GT(data_differ, kSeeds * 3 / 4);
}

// At a larger size the same seed grows: the input has more elements in nearly every case.
TEST_P(RelatedCases, GrowWithTheSize) {
  const SupportCell cell = cell_of(GetParam(), Role::INPUT, 4);
  uint64_t grew = 0;
  for (uint64_t seed = 0; seed < kSeeds; ++seed) {
    const rc::Gen<Case> gen = valid_case_for_cell(cell, kLevel, DataMode::Exact);
    const Case small = sample(gen, seed, 3).value(), large = sample(gen, seed, 50).value();
    const Sizes &s = tensor(small.op, Role::INPUT)->sizes, &l = tensor(large.op, Role::INPUT)->sizes;
    ASSERT_EQ(s.size(), l.size());
    grew += element_count(s).value_or(0) < element_count(l).value_or(0);
  }
  EXPECT_GE(grew, kSeeds * 9 / 10);
}

INSTANTIATE_TEST_SUITE_P(EveryOperator, RelatedCases, ::testing::ValuesIn(all_ops()),
                         [](const ::testing::TestParamInfo<OpKind>& row) {
                           return std::string(name(row.param));
                         });

// At rank 8 every dimension, the innermost included, is larger than 1 in a fair share of cases:
// for the input, where the size budget is spent, and for the output, which the operator derives.
class SizeBudgets : public ::testing::TestWithParam<OpKind> {};

TEST_P(SizeBudgets, EveryDimensionOfRank8IsLargerThanOneInAFairShare) {
  const SupportCell cell = cell_of(GetParam(), Role::INPUT, 8);
  std::array<uint64_t, 8> input{}, output{};
  for (uint64_t seed = 0; seed < kSeeds * 2; ++seed) {
    const Case c = sampled(valid_case_for_cell(cell, kLevel, DataMode::Exact), seed);
    for (size_t i = 0; i < 8; ++i) {
      input[i] += tensor(c.op, Role::INPUT)->sizes[i] > 1;
      output[i] += tensor(c.op, Role::OUTPUT)->sizes[i] > 1;
    }
  }
  // An output dimension is larger than 1 less often than an input one (SLICE and SLICE1 take part
  // of the input, REDUCE gives 1 on every reduced axis, SCATTER_ND's leading ones stay 1), but no
  // position, the innermost included, gets much less than the others.
  const uint64_t most = *std::max_element(output.begin(), output.end());
  for (size_t i = 0; i < 8; ++i) {
    EXPECT_GE(input[i], kSeeds * 2 * 30 / 100) << "input dimension " << i << " of 8";
    EXPECT_GE(output[i], kSeeds * 2 * 5 / 100) << "output dimension " << i << " of 8";
    EXPECT_GE(output[i], most / 3) << "output dimension " << i << " of 8, against " << most;
  }
}

INSTANTIATE_TEST_SUITE_P(EveryOperator, SizeBudgets, ::testing::ValuesIn(all_ops()),
                         [](const ::testing::TestParamInfo<OpKind>& row) {
                           return std::string(name(row.param));
                         });

}  // namespace
}  // namespace dmlcert::props

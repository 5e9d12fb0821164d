// The support tables of docs/semantics.md, checked row by row against the seed pages' "Tensor support"
// tables, including the levels in between table levels.
#include "dmlcert/support.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <ostream>
#include <set>
#include <string>
#include <tuple>
#include <vector>

namespace dmlcert {
namespace {

using enum DataType;
using L = FeatureLevel;
using F = ReduceFunction;

template <class T>
std::string case_name(const ::testing::TestParamInfo<T>& info) {
  return info.param.name;
}

const std::vector<DataType> kF32F16 = {FLOAT32, FLOAT16};
const std::vector<DataType> k8 = {FLOAT32, FLOAT16, INT32, INT16, INT8, UINT32, UINT16, UINT8};
const std::vector<DataType> k11 = {FLOAT64, FLOAT32, FLOAT16, INT64,  INT32, INT16,
                                   INT8,    UINT64,  UINT32,  UINT16, UINT8};
const std::vector<DataType> kNoF64 = {FLOAT32, FLOAT16, INT64,  INT32,  INT16,
                                      INT8,    UINT64,  UINT32, UINT16, UINT8};
const std::vector<DataType> kIdx = {INT64, INT32, UINT64, UINT32};
const std::vector<DataType> kF32F16I32U32 = {FLOAT32, FLOAT16, INT32, UINT32};
const std::vector<DataType> kF32F16I64I32U64U32 = {FLOAT32, FLOAT16, INT64, INT32, UINT64, UINT32};

struct SupportCase {
  std::string name;
  OpKind op;
  std::optional<ReduceFunction> function;
  Role role;
  FeatureLevel level;
  std::optional<RoleSupport> expected;  // nullopt: no support entry
};

RoleSupport ranks(uint32_t lo, uint32_t hi, std::vector<DataType> types) {
  return {lo, hi, std::move(types)};
}

void PrintTo(const SupportCase& c, std::ostream* os) {
  *os << c.name;
}

class SupportTable : public ::testing::TestWithParam<SupportCase> {};

TEST_P(SupportTable, MatchesTheSeedTable) {
  const auto& c = GetParam();
  const auto s = support(c.op, c.function, c.role, c.level);
  ASSERT_EQ(s.has_value(), c.expected.has_value());
  if (!s) return;
  EXPECT_EQ(s->min_rank, c.expected->min_rank);
  EXPECT_EQ(s->max_rank, c.expected->max_rank);
  auto sorted = [](std::vector<DataType> v) {
    std::sort(v.begin(), v.end());
    return v;
  };
  EXPECT_EQ(sorted(s->types), sorted(c.expected->types));
  for (DataType t : kAllDataTypes)
    EXPECT_EQ(s->allows(t), std::count(c.expected->types.begin(), c.expected->types.end(), t) == 1)
        << name(t);
}

using enum Role;
using O = OpKind;
const std::nullopt_t kNone = std::nullopt;

INSTANTIATE_TEST_SUITE_P(
    SupportSlice, SupportTable,
    ::testing::Values(SupportCase{"L1_0", O::SLICE, kNone, INPUT, L::L1_0,
                                  ranks(4, 5, {FLOAT32, FLOAT16, INT32, INT16, UINT32, UINT16})},
                      SupportCase{"L2_0UsesL1_0", O::SLICE, kNone, OUTPUT, L::L2_0,
                                  ranks(4, 5, {FLOAT32, FLOAT16, INT32, INT16, UINT32, UINT16})},
                      SupportCase{"L2_1", O::SLICE, kNone, OUTPUT, L::L2_1, ranks(4, 5, k8)},
                      SupportCase{"L3_0", O::SLICE, kNone, INPUT, L::L3_0, ranks(1, 8, k8)},
                      SupportCase{"L4_0UsesL3_0", O::SLICE, kNone, INPUT, L::L4_0, ranks(1, 8, k8)},
                      SupportCase{"L4_1", O::SLICE, kNone, INPUT, L::L4_1, ranks(1, 8, k11)},
                      SupportCase{"L6_4UsesL4_1", O::SLICE, kNone, OUTPUT, L::L6_4, ranks(1, 8, k11)},
                      SupportCase{"NoIndicesRole", O::SLICE, kNone, INDICES, L::L5_0, kNone}),
    case_name<SupportCase>);

INSTANTIATE_TEST_SUITE_P(
    SupportSlice1, SupportTable,
    ::testing::Values(SupportCase{"AbsentAtL1_0", O::SLICE1, kNone, INPUT, L::L1_0, kNone},
                      SupportCase{"AbsentAtL2_0", O::SLICE1, kNone, INPUT, L::L2_0, kNone},
                      SupportCase{"L2_1", O::SLICE1, kNone, INPUT, L::L2_1, ranks(4, 5, k8)},
                      SupportCase{"L3_0", O::SLICE1, kNone, OUTPUT, L::L3_0, ranks(1, 8, k8)},
                      SupportCase{"L4_1", O::SLICE1, kNone, OUTPUT, L::L4_1, ranks(1, 8, k11)},
                      SupportCase{"L5_2UsesL4_1", O::SLICE1, kNone, INPUT, L::L5_2, ranks(1, 8, k11)}),
    case_name<SupportCase>);

INSTANTIATE_TEST_SUITE_P(
    SupportScatterNd, SupportTable,
    ::testing::Values(
        SupportCase{"AbsentAtL2_0", O::SCATTER_ND, kNone, INPUT, L::L2_0, kNone},
        SupportCase{"InputL2_1", O::SCATTER_ND, kNone, INPUT, L::L2_1, ranks(4, 4, k8)},
        SupportCase{"IndicesL2_1", O::SCATTER_ND, kNone, INDICES, L::L2_1, ranks(4, 4, {UINT32})},
        SupportCase{"UpdatesL2_1", O::SCATTER_ND, kNone, UPDATES, L::L2_1, ranks(4, 4, k8)},
        SupportCase{"OutputL2_1", O::SCATTER_ND, kNone, OUTPUT, L::L2_1, ranks(4, 4, k8)},
        SupportCase{"IndicesL3_0", O::SCATTER_ND, kNone, INDICES, L::L3_0, ranks(1, 8, kIdx)},
        SupportCase{"UpdatesL3_1UsesL3_0", O::SCATTER_ND, kNone, UPDATES, L::L3_1, ranks(1, 8, k8)},
        SupportCase{"InputL4_1", O::SCATTER_ND, kNone, INPUT, L::L4_1, ranks(1, 8, k11)},
        SupportCase{"IndicesL4_1", O::SCATTER_ND, kNone, INDICES, L::L4_1, ranks(1, 8, kIdx)},
        SupportCase{"OutputL5_0", O::SCATTER_ND, kNone, OUTPUT, L::L5_0, ranks(1, 8, k11)}),
    case_name<SupportCase>);

INSTANTIATE_TEST_SUITE_P(
    SupportGatherElements, SupportTable,
    ::testing::Values(
        SupportCase{"AbsentAtL1_0", O::GATHER_ELEMENTS, kNone, INPUT, L::L1_0, kNone},
        SupportCase{"InputL2_1", O::GATHER_ELEMENTS, kNone, INPUT, L::L2_1, ranks(4, 4, k8)},
        SupportCase{"IndicesL2_1", O::GATHER_ELEMENTS, kNone, INDICES, L::L2_1, ranks(4, 4, {UINT32})},
        SupportCase{"IndicesL3_0", O::GATHER_ELEMENTS, kNone, INDICES, L::L3_0, ranks(1, 8, kIdx)},
        SupportCase{"OutputL3_0", O::GATHER_ELEMENTS, kNone, OUTPUT, L::L3_0, ranks(1, 8, k8)},
        SupportCase{"OutputL4_1", O::GATHER_ELEMENTS, kNone, OUTPUT, L::L4_1, ranks(1, 8, k11)},
        SupportCase{"NoUpdatesRole", O::GATHER_ELEMENTS, kNone, UPDATES, L::L4_1, kNone}),
    case_name<SupportCase>);

INSTANTIATE_TEST_SUITE_P(
    SupportReduce, SupportTable,
    ::testing::Values(
        // ARGMIN, ARGMAX
        SupportCase{"ArgmaxInL1_0", O::REDUCE, F::ARGMAX, INPUT, L::L1_0, ranks(4, 4, kF32F16)},
        SupportCase{"ArgmaxOutL1_0", O::REDUCE, F::ARGMAX, OUTPUT, L::L1_0, ranks(4, 4, {UINT32})},
        SupportCase{"ArgminInL2_1", O::REDUCE, F::ARGMIN, INPUT, L::L2_1, ranks(4, 4, k8)},
        SupportCase{"ArgminOutL2_1", O::REDUCE, F::ARGMIN, OUTPUT, L::L2_1, ranks(4, 4, {UINT32})},
        SupportCase{"ArgmaxInL3_0", O::REDUCE, F::ARGMAX, INPUT, L::L3_0, ranks(1, 8, k8)},
        SupportCase{"ArgmaxOutL3_0", O::REDUCE, F::ARGMAX, OUTPUT, L::L3_0, ranks(1, 8, kIdx)},
        SupportCase{"ArgminInL4_1", O::REDUCE, F::ARGMIN, INPUT, L::L4_1, ranks(1, 8, kNoF64)},
        SupportCase{"ArgminOutL5_0", O::REDUCE, F::ARGMIN, OUTPUT, L::L5_0, ranks(1, 8, kIdx)},
        // AVERAGE, L2, LOG_SUM, LOG_SUM_EXP
        SupportCase{"AverageL1_0", O::REDUCE, F::AVERAGE, INPUT, L::L1_0, ranks(4, 4, kF32F16)},
        SupportCase{"L2L2_1UsesL1_0", O::REDUCE, F::L2, OUTPUT, L::L2_1, ranks(4, 4, kF32F16)},
        SupportCase{"LogSumL3_0", O::REDUCE, F::LOG_SUM, INPUT, L::L3_0, ranks(1, 8, kF32F16)},
        SupportCase{"LogSumExpL5_0UsesL3_0", O::REDUCE, F::LOG_SUM_EXP, OUTPUT, L::L5_0,
                    ranks(1, 8, kF32F16)},
        // L1, SUM_SQUARE
        SupportCase{"L1L1_0", O::REDUCE, F::L1, INPUT, L::L1_0, ranks(4, 4, kF32F16)},
        SupportCase{"SumSquareL3_0", O::REDUCE, F::SUM_SQUARE, OUTPUT, L::L3_0, ranks(1, 8, kF32F16)},
        SupportCase{"SumSquareL4_1UsesL3_0", O::REDUCE, F::SUM_SQUARE, INPUT, L::L4_1, ranks(1, 8, kF32F16)},
        SupportCase{"L1L5_0", O::REDUCE, F::L1, INPUT, L::L5_0, ranks(1, 8, kF32F16I64I32U64U32)},
        // MIN, MAX
        SupportCase{"MinL1_0", O::REDUCE, F::MIN, INPUT, L::L1_0, ranks(4, 4, kF32F16)},
        SupportCase{"MaxL2_1", O::REDUCE, F::MAX, OUTPUT, L::L2_1, ranks(4, 4, kF32F16I32U32)},
        SupportCase{"MinInL2_1", O::REDUCE, F::MIN, INPUT, L::L2_1, ranks(4, 4, kF32F16I32U32)},
        SupportCase{"MinL3_0", O::REDUCE, F::MIN, INPUT, L::L3_0, ranks(1, 8, k8)},
        SupportCase{"MaxL4_1UsesL3_0", O::REDUCE, F::MAX, INPUT, L::L4_1, ranks(1, 8, k8)},
        SupportCase{"MaxL5_0", O::REDUCE, F::MAX, OUTPUT, L::L5_0, ranks(1, 8, kNoF64)},
        // MULTIPLY, SUM
        SupportCase{"SumL1_0", O::REDUCE, F::SUM, INPUT, L::L1_0, ranks(4, 4, kF32F16)},
        SupportCase{"MultiplyL2_1", O::REDUCE, F::MULTIPLY, INPUT, L::L2_1, ranks(4, 4, kF32F16I32U32)},
        SupportCase{"SumL3_0", O::REDUCE, F::SUM, OUTPUT, L::L3_0, ranks(1, 8, kF32F16I32U32)},
        SupportCase{"SumL4_1UsesL3_0", O::REDUCE, F::SUM, OUTPUT, L::L4_1, ranks(1, 8, kF32F16I32U32)},
        SupportCase{"MultiplyL5_0", O::REDUCE, F::MULTIPLY, OUTPUT, L::L5_0,
                    ranks(1, 8, kF32F16I64I32U64U32)},
        SupportCase{"SumL6_4UsesL5_0", O::REDUCE, F::SUM, INPUT, L::L6_4, ranks(1, 8, kF32F16I64I32U64U32)},
        // No table without one of the 12 functions.
        SupportCase{"InvalidFunction", O::REDUCE, static_cast<ReduceFunction>(12), INPUT, L::L5_0, kNone},
        SupportCase{"NoFunction", O::REDUCE, kNone, INPUT, L::L5_0, kNone},
        SupportCase{"NoIndicesRole", O::REDUCE, F::SUM, INDICES, L::L5_0, kNone}),
    case_name<SupportCase>);

struct IntroducedCase {
  std::string name;
  OpKind op;
  FeatureLevel level;
};
void PrintTo(const IntroducedCase& c, std::ostream* os) {
  *os << c.name;
}
class SupportIntroducedAt : public ::testing::TestWithParam<IntroducedCase> {};
TEST_P(SupportIntroducedAt, GivesTheFirstLevel) {
  EXPECT_EQ(introduced_at(GetParam().op), GetParam().level);
}
INSTANTIATE_TEST_SUITE_P(Support, SupportIntroducedAt,
                         ::testing::Values(IntroducedCase{"Slice", O::SLICE, L::L1_0},
                                           IntroducedCase{"Reduce", O::REDUCE, L::L1_0},
                                           IntroducedCase{"Slice1", O::SLICE1, L::L2_1},
                                           IntroducedCase{"ScatterNd", O::SCATTER_ND, L::L2_1},
                                           IntroducedCase{"GatherElements", O::GATHER_ELEMENTS, L::L2_1}),
                         case_name<IntroducedCase>);

// ---- support_cells ----

struct CellsCase {
  std::string name;
  FeatureLevel level;
  size_t count;  // number of cells of the operators the specification defines (kSpecOperators)
  std::vector<SupportCell> present, absent;
};
void PrintTo(const CellsCase& c, std::ostream* os) {
  *os << c.name;
}
class SupportCells : public ::testing::TestWithParam<CellsCase> {};

// The counts below are those of the specification's operators, hand-derived from its tables. An
// operator added later is held to the rest of the test (each cell legal, and listed once) and to its
// own support rows; counting it here would make every new operator edit this file
// (docs/adding-an-operator.md).
constexpr std::array kSpecOperators = {O::SLICE, O::SLICE1, O::SCATTER_ND, O::REDUCE, O::GATHER_ELEMENTS};

TEST_P(SupportCells, EnumerateEveryLegalCellOnce) {
  const auto& c = GetParam();
  const auto cells = support_cells(c.level);
  const auto of_spec = std::count_if(cells.begin(), cells.end(), [](const SupportCell& cell) {
    return std::find(kSpecOperators.begin(), kSpecOperators.end(), cell.op) != kSpecOperators.end();
  });
  EXPECT_EQ(static_cast<size_t>(of_spec), c.count);
  std::set<std::tuple<int, int, int, int, uint32_t>> unique;
  for (const SupportCell& cell : cells) {
    const auto s = support(cell.op, cell.function, cell.role, c.level);
    ASSERT_TRUE(s.has_value());
    EXPECT_TRUE(s->allows(cell.type));
    EXPECT_GE(cell.rank, s->min_rank);
    EXPECT_LE(cell.rank, s->max_rank);
    EXPECT_EQ(cell.function.has_value(), cell.op == O::REDUCE);
    unique.insert({static_cast<int>(cell.op), cell.function ? static_cast<int>(*cell.function) : -1,
                   static_cast<int>(cell.role), static_cast<int>(cell.type), cell.rank});
  }
  EXPECT_EQ(unique.size(), cells.size()) << "duplicate cells";
  for (const SupportCell& p : c.present) EXPECT_NE(std::find(cells.begin(), cells.end(), p), cells.end());
  for (const SupportCell& a : c.absent) EXPECT_EQ(std::find(cells.begin(), cells.end(), a), cells.end());
}

// Counts at 1_0: SLICE 2 roles x 6 types x ranks 4..5 = 24; REDUCE: ARGMAX/ARGMIN 2 x (2 + 1) = 6,
// AVERAGE/L2/LOG_SUM/LOG_SUM_EXP 4 x 2 x 2 = 16, L1/SUM_SQUARE, MIN/MAX, MULTIPLY/SUM 3 x 2 x 2 x 2 = 24.
INSTANTIATE_TEST_SUITE_P(
    Support, SupportCells,
    ::testing::Values(
        CellsCase{"L1_0",
                  L::L1_0,
                  24 + 6 + 16 + 24,
                  {{O::SLICE, kNone, INPUT, UINT16, 5}, {O::REDUCE, F::ARGMAX, OUTPUT, UINT32, 4}},
                  {{O::SLICE, kNone, INPUT, INT8, 4},
                   {O::SLICE1, kNone, INPUT, FLOAT32, 4},
                   {O::REDUCE, F::SUM, INPUT, FLOAT32, 3}}},
        CellsCase{"L2_1",
                  L::L2_1,
                  // SLICE, SLICE1 2 x 8 x 2 each; SCATTER_ND 3 x 8 + 1; GATHER 2 x 8 + 1; REDUCE (rank 4):
                  // ARG 2 x (8 + 1), AVG 4 x 4, L1 2 x 4, MINMAX 2 x 8, MULSUM 2 x 8.
                  2 * 32 + 25 + 17 + (18 + 16 + 8 + 16 + 16),
                  {{O::SCATTER_ND, kNone, INDICES, UINT32, 4}, {O::REDUCE, F::MIN, INPUT, UINT32, 4}},
                  {{O::SCATTER_ND, kNone, INDICES, INT32, 4}, {O::REDUCE, F::MIN, INPUT, INT8, 4}}},
        CellsCase{"L3_0",
                  L::L3_0,
                  // SLICE, SLICE1: 2 x 8 x 8 each; SCATTER_ND 3 x 8 x 8 + 4 x 8; GATHER 2 x 8 x 8 + 4 x 8;
                  // REDUCE per rank: ARG 2 x (8 + 4), AVG 4 x 4, L1 2 x 4, MINMAX 2 x 16, MULSUM 2 x 8.
                  2 * 128 + (192 + 32) + (128 + 32) + 8 * (24 + 16 + 8 + 32 + 16),
                  {{O::SLICE, kNone, OUTPUT, INT8, 1},
                   {O::SCATTER_ND, kNone, INDICES, INT64, 8},
                   {O::REDUCE, F::ARGMIN, OUTPUT, INT64, 1}},
                  {{O::SLICE, kNone, OUTPUT, FLOAT64, 1},
                   {O::REDUCE, F::SUM, INPUT, INT64, 2},
                   {O::SLICE, kNone, OUTPUT, INT8, 9}}},
        CellsCase{"L4_1",
                  L::L4_1,
                  // SLICE, SLICE1 2 x 11 x 8; SCATTER 3 x 11 x 8 + 4 x 8; GATHER 2 x 11 x 8 + 4 x 8;
                  // REDUCE per rank: ARG 2 x (10 + 4), AVG 4 x 4, L1 2 x 4, MINMAX 2 x 16, MULSUM 2 x 8.
                  2 * 176 + (264 + 32) + (176 + 32) + 8 * (28 + 16 + 8 + 32 + 16),
                  {{O::REDUCE, F::ARGMAX, INPUT, INT64, 8}, {O::GATHER_ELEMENTS, kNone, INPUT, FLOAT64, 1}},
                  {{O::REDUCE, F::MAX, INPUT, INT64, 4}, {O::REDUCE, F::ARGMAX, INPUT, FLOAT64, 4}}},
        CellsCase{"L5_0HasInt64Sums",
                  L::L5_0,
                  // SLICE, SLICE1 2 x 11 x 8; SCATTER 3 x 11 x 8 + 4 x 8; GATHER 2 x 11 x 8 + 4 x 8;
                  // REDUCE per rank: ARG 2 x (10 + 4), AVG 4 x 4, L1 2 x 12, MINMAX 2 x 20, MULSUM 2 x 12.
                  2 * 176 + (264 + 32) + (176 + 32) + 8 * (28 + 16 + 24 + 40 + 24),
                  {{O::REDUCE, F::SUM, INPUT, INT64, 8}, {O::SLICE1, kNone, INPUT, FLOAT64, 3}},
                  {{O::REDUCE, F::SUM, INPUT, FLOAT64, 4}, {O::REDUCE, F::AVERAGE, INPUT, INT32, 4}}}),
    case_name<CellsCase>);

}  // namespace
}  // namespace dmlcert

// The validator, rule by rule: each case starts from a valid base descriptor of one operator,
// applies one mutation, and expects exactly the rules that mutation breaks. Also: the rule
// catalog, valid bases at several levels, absurd descriptors, and the data rules (check_data).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <limits>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "dmlcert/rules.h"
#include "dmlcert/support.h"
#include "dmlcert/validate.h"
#include "linear_time.h"

namespace dmlcert {
namespace {

using enum DataType;
using L = FeatureLevel;
using F = ReduceFunction;
constexpr uint32_t kMax32 = std::numeric_limits<uint32_t>::max();

template <class T>
std::string case_name(const ::testing::TestParamInfo<T>& info) {
  return info.param.name;
}

// ---- builders ----

TensorDesc packed(DataType t, Sizes s) {
  return packed_desc(t, std::move(s));
}

TensorDesc strided(DataType t, Sizes s, std::vector<uint32_t> strides) {
  TensorDesc d{t, std::move(s), std::move(strides), 0};
  d.total_bytes = min_implied_bytes(d).value_or(0);
  return d;
}

// Seed example 1 of DML_SLICE: a 3x2 window of a 4x4 input.
SliceDesc slice_base() {
  return {
      packed(FLOAT32, {1, 1, 4, 4}), packed(FLOAT32, {1, 1, 3, 2}), {0, 0, 1, 2}, {1, 1, 3, 2}, {1, 1, 1, 1}};
}
// A rank-r slice: input 4 per dim, take 2 elements from offset 1.
SliceDesc slice_of_rank(uint32_t r) {
  return {packed(FLOAT32, Sizes(r, 4)), packed(FLOAT32, Sizes(r, 2)), std::vector<uint32_t>(r, 1),
          std::vector<uint32_t>(r, 2), std::vector<uint32_t>(r, 1)};
}
// Seed example 2 of DML_SLICE1: a negative stride.
Slice1Desc slice1_base() {
  return {packed(FLOAT32, {1, 1, 4, 4}),
          packed(FLOAT32, {1, 1, 2, 2}),
          {0, 0, 0, 1},
          {1, 1, 4, 3},
          {1, 1, -2, 2}};
}
Slice1Desc slice1_of_rank(uint32_t r) {
  return {packed(FLOAT32, Sizes(r, 4)), packed(FLOAT32, Sizes(r, 2)), std::vector<uint32_t>(r, 0),
          std::vector<uint32_t>(r, 4), std::vector<int32_t>(r, -3)};
}
// Two 1-tuples into a [2,3] meaningful input: updates [2,3].
ScatterNdDesc scatter_base(DataType index_type = UINT32) {
  return {packed(FLOAT32, {1, 1, 2, 3}),
          packed(index_type, {1, 1, 2, 1}),
          packed(FLOAT32, {1, 1, 2, 3}),
          packed(FLOAT32, {1, 1, 2, 3}),
          2,
          2};
}
// The seed's worked example: input [3,4,5,6,7], indices [1,1,1,2,3] with count 3 -> updates [1,1,2,6,7].
ScatterNdDesc scatter_seed_example() {
  return {packed(FLOAT32, {3, 4, 5, 6, 7}),
          packed(INT32, {1, 1, 1, 2, 3}),
          packed(FLOAT32, {1, 1, 2, 6, 7}),
          packed(FLOAT32, {3, 4, 5, 6, 7}),
          5,
          3};
}
// The seed's 1-D example written conformantly (docs/semantics.md errata): input {1,8}, indices {4,1}.
ScatterNdDesc scatter_seed_1d() {
  return {packed(FLOAT32, {1, 8}),
          packed(UINT32, {4, 1}),
          packed(FLOAT32, {1, 4}),
          packed(FLOAT32, {1, 8}),
          1,
          2};
}
ReduceDesc reduce_base(F fn = F::SUM, DataType in = FLOAT32, DataType out = FLOAT32) {
  return {fn, packed(in, {1, 1, 3, 3}), packed(out, {1, 1, 3, 1}), {3}};
}
GatherElementsDesc gather_base(DataType index_type = UINT32) {
  return {packed(FLOAT32, {1, 1, 3, 3}), packed(index_type, {1, 1, 2, 3}), packed(FLOAT32, {1, 1, 2, 3}), 2};
}

template <class D>
OperatorDesc mutated(D d, const std::function<void(D&)>& change) {
  change(d);
  return d;
}

// ---- the rule catalog ----

struct CatalogEntry {
  std::string_view id;
  RuleTag tag;
};
const std::vector<CatalogEntry> kExpectedCatalog = {
    {"T.RANK", RuleTag::Doc},
    {"T.DTYPE", RuleTag::Doc},
    {"T.SIZE_ZERO", RuleTag::Doc},
    {"T.TOTAL_BYTES", RuleTag::Doc},
    {"T.ELEMENT_LIMIT", RuleTag::Doc},
    {"T.STRIDES_COUNT", RuleTag::Inferred},
    {"T.OUTPUT_OVERLAP", RuleTag::Unspecified},
    {"OP.FEATURE_LEVEL", RuleTag::Doc},
    {"OP.FUNCTION", RuleTag::Doc},
    {"SLICE.DIMCOUNT", RuleTag::Doc},
    {"SLICE.DTYPE_MATCH", RuleTag::Doc},
    {"SLICE.SIZES_MATCH_OUTPUT", RuleTag::Doc},
    {"SLICE.IN_BOUNDS", RuleTag::Doc},
    {"SLICE.STRIDE_ZERO", RuleTag::Unspecified},
    {"SLICE1.DIMCOUNT", RuleTag::Doc},
    {"SLICE1.DTYPE_MATCH", RuleTag::Doc},
    {"SLICE1.WINDOW_EMPTY", RuleTag::Doc},
    {"SLICE1.WINDOW_BOUNDS", RuleTag::Doc},
    {"SLICE1.STRIDE_ZERO", RuleTag::Doc},
    {"SLICE1.OUTPUT_SIZE", RuleTag::Doc},
    {"SCATTERND.DIMCOUNT", RuleTag::Doc},
    {"SCATTERND.DTYPE_MATCH", RuleTag::Doc},
    {"SCATTERND.INPUT_DIMCOUNT", RuleTag::Doc},
    {"SCATTERND.INDICES_DIMCOUNT", RuleTag::Doc},
    {"SCATTERND.LEADING_DIMS", RuleTag::Inferred},
    {"SCATTERND.TUPLE_SIZE", RuleTag::Doc},
    {"SCATTERND.UPDATES_SHAPE", RuleTag::Doc},
    {"SCATTERND.OUTPUT_SHAPE", RuleTag::Doc},
    {"SCATTERND.INDEX_RANGE", RuleTag::DocData},
    {"SCATTERND.DUPLICATE", RuleTag::DocData},
    {"REDUCE.DIMCOUNT", RuleTag::Doc},
    {"REDUCE.AXIS_RANGE", RuleTag::Doc},
    {"REDUCE.AXES_EMPTY", RuleTag::Unspecified},
    {"REDUCE.AXES_DUPLICATE", RuleTag::Unspecified},
    {"REDUCE.OUTPUT_SIZES", RuleTag::Doc},
    {"REDUCE.DTYPE_MATCH", RuleTag::Doc},
    {"REDUCE.INT_OVERFLOW", RuleTag::Unspecified},
    {"REDUCE.NONFINITE", RuleTag::Unspecified},
    {"GATHERELEMENTS.DIMCOUNT", RuleTag::Doc},
    {"GATHERELEMENTS.AXIS_RANGE", RuleTag::Doc},
    {"GATHERELEMENTS.INDICES_SHAPE", RuleTag::Doc},
    {"GATHERELEMENTS.OUTPUT_SHAPE", RuleTag::Doc},
    {"GATHERELEMENTS.DTYPE_MATCH", RuleTag::Doc},
    {"GATHERELEMENTS.INDEX_RANGE", RuleTag::DocData},
};

void PrintTo(const CatalogEntry& c, std::ostream* os) {
  *os << c.id;
}
class ValidatorCatalog : public ::testing::TestWithParam<CatalogEntry> {};

TEST_P(ValidatorCatalog, HasTheRuleWithItsTag) {
  const Rule* r = find_rule(GetParam().id);
  ASSERT_NE(r, nullptr) << GetParam().id;
  EXPECT_EQ(r->tag, GetParam().tag);
  EXPECT_FALSE(r->text.empty());
  EXPECT_EQ(makes_invalid(*r), r->tag == RuleTag::Doc || r->tag == RuleTag::Inferred);
}

INSTANTIATE_TEST_SUITE_P(ValidatorRules, ValidatorCatalog, ::testing::ValuesIn(kExpectedCatalog),
                         [](const ::testing::TestParamInfo<CatalogEntry>& row) {
                           std::string n(row.param.id);
                           std::replace(n.begin(), n.end(), '.', '_');
                           return n;
                         });

std::string_view rule_prefix(std::string_view id) {
  return id.substr(0, id.find('.'));
}

// The table pins the rules of the operators the specification defines, so that a rule added to one
// of them fails here. An operator added later has its own rule prefix, and its own tests pin its
// rules (docs/adding-an-operator.md): counting it here would make every new operator edit this file.
TEST(ValidatorCatalogShape, HoldsExactlyTheSpecRulesOnce) {
  std::set<std::string_view> pinned_prefixes;
  for (const CatalogEntry& e : kExpectedCatalog) pinned_prefixes.insert(rule_prefix(e.id));
  const auto pinned = std::count_if(rule_catalog().begin(), rule_catalog().end(),
                                    [&](const Rule& r) { return pinned_prefixes.count(rule_prefix(r.id)); });
  EXPECT_EQ(static_cast<size_t>(pinned), kExpectedCatalog.size());
  std::set<std::string_view> ids;
  for (const Rule& r : rule_catalog()) EXPECT_TRUE(ids.insert(r.id).second) << "duplicate " << r.id;
  EXPECT_EQ(find_rule("NO.SUCH_RULE"), nullptr);
  EXPECT_NE(find_rule("SCATTERND.TUPLE_SIZE")->text.find("Input.DimensionCount"), std::string_view::npos);
}

TEST(ValidatorCatalogShape, TagNames) {
  EXPECT_EQ(name(RuleTag::Doc), "doc");
  EXPECT_EQ(name(RuleTag::Inferred), "inferred");
  EXPECT_EQ(name(RuleTag::Unspecified), "unspecified");
  EXPECT_EQ(name(RuleTag::DocData), "doc/U");
}

// ---- valid descriptors ----

struct ValidCase {
  std::string name;
  OperatorDesc desc;
  std::vector<FeatureLevel> levels;
};
void PrintTo(const ValidCase& c, std::ostream* os) {
  *os << c.name;
}
class ValidatorValid : public ::testing::TestWithParam<ValidCase> {};

TEST_P(ValidatorValid, HasNoFindings) {
  for (FeatureLevel level : GetParam().levels) {
    SCOPED_TRACE(std::string("feature level ") + std::string(name(level)));
    const Validation v = validate(GetParam().desc, level);
    for (const Violation& x : v.invalid) ADD_FAILURE() << x.rule << ": " << x.message;
    for (const Violation& x : v.unspecified) ADD_FAILURE() << x.rule << ": " << x.message;
    EXPECT_EQ(v.case_class(), CaseClass::Valid);
  }
}

const std::vector<FeatureLevel> kFrom1_0 = {L::L1_0, L::L2_1, L::L3_0, L::L4_1, L::L5_0, L::L6_4};
const std::vector<FeatureLevel> kFrom2_1 = {L::L2_1, L::L3_0, L::L4_1, L::L5_0, L::L6_4};
const std::vector<FeatureLevel> kFrom3_0 = {L::L3_0, L::L3_1, L::L4_1, L::L5_0, L::L6_4};

INSTANTIATE_TEST_SUITE_P(
    ValidatorBases, ValidatorValid,
    ::testing::Values(
        ValidCase{"SliceSeedExample", slice_base(), kFrom1_0},
        ValidCase{"SliceRank5At2_1", slice_of_rank(5), kFrom1_0},
        ValidCase{"SliceRank1", slice_of_rank(1), kFrom3_0},
        ValidCase{"SliceRank3", slice_of_rank(3), kFrom3_0},
        ValidCase{"SliceRank8", slice_of_rank(8), kFrom3_0},
        ValidCase{"SliceFloat64From4_1",
                  mutated<SliceDesc>(slice_base(),
                                     [](auto& d) {
                                       d.input = packed(FLOAT64, {1, 1, 4, 4});
                                       d.output = packed(FLOAT64, {1, 1, 3, 2});
                                     }),
                  {L::L4_1, L::L5_0}},
        ValidCase{"SliceBroadcastInput",
                  mutated<SliceDesc>(slice_base(),
                                     [](auto& d) {
                                       d.input = strided(FLOAT32, {1, 1, 4, 4}, {0, 0, 0, 1});
                                     }),
                  kFrom1_0},
        ValidCase{"SliceLastElementInBounds",
                  mutated<SliceDesc>(slice_base(),
                                     [](auto& d) {
                                       d.offsets = {0, 0, 0, 0};
                                       d.sizes = {1, 1, 2, 2};
                                       d.strides = {1, 1, 3, 3};
                                       d.output = packed(FLOAT32, {1, 1, 2, 2});
                                     }),
                  kFrom1_0},
        ValidCase{"Slice1SeedExample", slice1_base(), kFrom2_1},
        ValidCase{"Slice1Rank1", slice1_of_rank(1), kFrom3_0},
        ValidCase{"Slice1Rank8", slice1_of_rank(8), kFrom3_0},
        ValidCase{"ScatterNdBase", scatter_base(), kFrom2_1},
        ValidCase{"ScatterNdSeedExample", scatter_seed_example(), kFrom3_0},
        ValidCase{"ScatterNdSeed1DConformant", scatter_seed_1d(), kFrom3_0},
        // SCATTERND.TUPLE_SIZE follows the seed's words: k may exceed InputDimensionCount up to the
        // tensor rank; the block is then empty and updates are the indices' meaningful sizes.
        ValidCase{"ScatterNdTupleLongerThanInputDimensionCount",
                  mutated<ScatterNdDesc>(scatter_base(),
                                         [](auto& d) {
                                           d.indices = packed(UINT32, {1, 1, 2, 3});
                                           d.updates = packed(FLOAT32, {1, 1, 1, 2});
                                         }),
                  kFrom2_1},
        ValidCase{
            "ScatterNdRank1",
            ScatterNdDesc{packed(INT8, {5}), packed(INT64, {1}), packed(INT8, {1}), packed(INT8, {5}), 1, 1},
            kFrom3_0},
        ValidCase{"ReduceSum", reduce_base(), kFrom1_0},
        ValidCase{
            "ReduceAllAxesSeedExample3",
            ReduceDesc{F::SUM, packed(FLOAT32, {1, 1, 3, 3}), packed(FLOAT32, {1, 1, 1, 1}), {0, 1, 2, 3}},
            kFrom1_0},
        ValidCase{"ReduceArgmaxUint32", reduce_base(F::ARGMAX, FLOAT16, UINT32), kFrom1_0},
        ValidCase{"ReduceArgminInt64Out", reduce_base(F::ARGMIN, INT8, INT64), kFrom3_0},
        ValidCase{"ReduceSumInt64At5_0", reduce_base(F::SUM, INT64, INT64), {L::L5_0, L::L6_4}},
        ValidCase{"ReduceRank1", ReduceDesc{F::L2, packed(FLOAT16, {7}), packed(FLOAT16, {1}), {0}},
                  kFrom3_0},
        ValidCase{"ReduceRank8",
                  ReduceDesc{F::MAX,
                             packed(UINT8, {2, 1, 2, 1, 2, 1, 2, 3}),
                             packed(UINT8, {1, 1, 2, 1, 1, 1, 2, 1}),
                             {0, 4, 7}},
                  kFrom3_0},
        ValidCase{"ReduceLargestSpanAtTheLimit",
                  ReduceDesc{F::SUM, packed(FLOAT32, {1, 1, 1, kMax32}), packed(FLOAT32, {1, 1, 1, 1}), {3}},
                  kFrom1_0},
        ValidCase{"GatherElementsBase", gather_base(), kFrom2_1},
        ValidCase{"GatherElementsSignedIndices", gather_base(INT64), kFrom3_0},
        ValidCase{"OutputPaddedRows",
                  mutated<SliceDesc>(slice_base(),
                                     [](auto& d) {
                                       d.output = strided(FLOAT32, {1, 1, 3, 2}, {0, 0, 4, 1});
                                     }),
                  kFrom1_0},
        ValidCase{"OutputTransposed",
                  mutated<SliceDesc>(slice_base(),
                                     [](auto& d) {
                                       d.output = strided(FLOAT32, {1, 1, 3, 2}, {6, 6, 1, 3});
                                     }),
                  kFrom1_0},
        // Offsets {0,2,4} + {0,3} are all distinct although the spans interleave.
        ValidCase{"OutputInterleavedButDistinct",
                  mutated<SliceDesc>(slice_base(),
                                     [](auto& d) {
                                       d.output = strided(FLOAT32, {1, 1, 3, 2}, {0, 0, 2, 3});
                                     }),
                  kFrom1_0},
        ValidCase{"OutputZeroStrideOnSizeOne",
                  mutated<SliceDesc>(slice_base(),
                                     [](auto& d) {
                                       d.output = strided(FLOAT32, {1, 1, 3, 2}, {0, 0, 2, 1});
                                     }),
                  kFrom1_0}),
    case_name<ValidCase>);

// ---- one mutation, one rule ----

struct RuleCase {
  std::string name;
  OperatorDesc desc;
  FeatureLevel level;
  std::set<std::string> invalid;      // rule IDs of the class I findings
  std::set<std::string> unspecified;  // rule IDs of the class U findings
  std::vector<std::string> mentions;  // text some message must contain (field paths, values)
};

void PrintTo(const RuleCase& c, std::ostream* os) {
  *os << c.name;
}
class ValidatorRule : public ::testing::TestWithParam<RuleCase> {};

std::set<std::string> rule_ids(const std::vector<Violation>& v) {
  std::set<std::string> ids;
  for (const Violation& x : v) ids.insert(x.rule);
  return ids;
}

TEST_P(ValidatorRule, ReportsExactlyTheBrokenRules) {
  const auto& c = GetParam();
  const Validation v = validate(c.desc, c.level);
  std::string all;
  for (const auto* list : {&v.invalid, &v.unspecified})
    for (const Violation& x : *list) {
      all += x.rule + ": " + x.message + "\n";
      EXPECT_NE(find_rule(x.rule), nullptr) << "not in the catalog: " << x.rule;
    }
  SCOPED_TRACE(all);
  EXPECT_EQ(rule_ids(v.invalid), c.invalid);
  EXPECT_EQ(rule_ids(v.unspecified), c.unspecified);
  for (const std::string& m : c.mentions) EXPECT_NE(all.find(m), std::string::npos) << "missing: " << m;
  EXPECT_EQ(v.case_class(), !c.invalid.empty()       ? CaseClass::Invalid
                            : !c.unspecified.empty() ? CaseClass::Unspecified
                                                     : CaseClass::Valid);
  for (const std::string& r : c.invalid) EXPECT_TRUE(v.has(r));
}

template <class D>
RuleCase rule_case(std::string name, D base, std::function<void(D&)> change, FeatureLevel level,
                   std::set<std::string> invalid, std::set<std::string> unspecified = {},
                   std::vector<std::string> mentions = {}) {
  return {std::move(name),
          mutated<D>(std::move(base), change),
          level,
          std::move(invalid),
          std::move(unspecified),
          std::move(mentions)};
}

INSTANTIATE_TEST_SUITE_P(
    ValidatorTensor, ValidatorRule,
    ::testing::Values(
        rule_case<ReduceDesc>("RankBelowTableAt2_1", reduce_base(),
                              [](auto& d) {
                                d.input = packed(FLOAT32, {1, 3, 3});
                                d.output = packed(FLOAT32, {1, 3, 1});
                                d.axes = {2};
                              },
                              L::L2_1, {"T.RANK"}, {},
                              {"tensors.input.sizes has 3 dimensions", "supports 4..4"}),
        rule_case<ReduceDesc>("RankZero", reduce_base(),
                              [](auto& d) {
                                d.input = packed(FLOAT32, {});
                                d.output = packed(FLOAT32, {});
                                d.axes = {};
                              },
                              L::L5_0, {"T.RANK"}, {"REDUCE.AXES_EMPTY"}),
        rule_case<ReduceDesc>("RankNine", reduce_base(),
                              [](auto& d) {
                                d.input = packed(FLOAT32, Sizes(9, 1));
                                d.output = packed(FLOAT32, Sizes(9, 1));
                                d.axes = {8};
                              },
                              L::L5_0, {"T.RANK"}, {}, {"has 9 dimensions", "supports 1..8"}),
        rule_case<SliceDesc>("Float64BeforeL4_1", slice_base(),
                             [](auto& d) {
                               d.input = packed(FLOAT64, {1, 1, 4, 4});
                               d.output = packed(FLOAT64, {1, 1, 3, 2});
                             },
                             L::L3_0, {"T.DTYPE"}, {},
                             {"tensors.input.type is FLOAT64", "tensors.output.type is FLOAT64"}),
        rule_case<SliceDesc>("Int8AtL1_0", slice_base(),
                             [](auto& d) {
                               d.input = packed(INT8, {1, 1, 4, 4});
                               d.output = packed(INT8, {1, 1, 3, 2});
                             },
                             L::L1_0, {"T.DTYPE"}),
        rule_case<ReduceDesc>("SumInt64BeforeL5_0", reduce_base(F::SUM, INT64, INT64), [](auto&) {}, L::L4_1,
                              {"T.DTYPE"}, {}, {"REDUCE SUM input at feature level 4_1"}),
        rule_case<ReduceDesc>("AverageInt32", reduce_base(F::AVERAGE, INT32, INT32), [](auto&) {}, L::L5_0,
                              {"T.DTYPE"}),
        rule_case<ReduceDesc>("ArgmaxInt16Output", reduce_base(F::ARGMAX, FLOAT32, INT16), [](auto&) {},
                              L::L5_0, {"T.DTYPE"}),
        rule_case<ReduceDesc>("ArgmaxInt64OutputBeforeL3_0", reduce_base(F::ARGMAX, FLOAT32, INT64),
                              [](auto&) {}, L::L2_1, {"T.DTYPE"}),
        rule_case<GatherElementsDesc>("SignedIndicesAtL2_1", gather_base(INT32), [](auto&) {}, L::L2_1,
                                      {"T.DTYPE"}, {}, {"tensors.indices.type is INT32"}),
        rule_case<ScatterNdDesc>("FloatIndices", scatter_base(FLOAT32), [](auto&) {}, L::L5_0, {"T.DTYPE"}),
        rule_case<ReduceDesc>("SizeZero", reduce_base(),
                              [](auto& d) {
                                d.input.sizes = {1, 1, 3, 0};
                              },
                              L::L5_0, {"T.SIZE_ZERO"}, {}, {"tensors.input.sizes[3] is 0"}),
        rule_case<SliceDesc>("TotalBytesBelowMinimum", slice_base(),
                             [](auto& d) { d.input.total_bytes = 60; }, L::L5_0, {"T.TOTAL_BYTES"}, {},
                             {"tensors.input.total_bytes is 60", "64"}),
        rule_case<SliceDesc>("TotalBytesNotMultipleOfFour", slice_base(),
                             [](auto& d) { d.output.total_bytes = 26; }, L::L5_0, {"T.TOTAL_BYTES"}, {},
                             {"tensors.output.total_bytes is 26, not a multiple of 4"}),
        rule_case<ReduceDesc>("Float16OddCountRoundsUp", reduce_base(F::SUM, FLOAT16, FLOAT16),
                              [](auto& d) { d.output.total_bytes = 6; }, L::L5_0, {"T.TOTAL_BYTES"}),
        // Strides near 2^32: span 1 + 3 * (2^32-1) + 3; total_bytes is large enough.
        rule_case<SliceDesc>("ElementLimitByStrides", slice_base(),
                             [](auto& d) {
                               d.input = strided(FLOAT32, {1, 1, 4, 4}, {0, 0, kMax32, 1});
                               d.input.total_bytes = uint64_t{1} << 40;
                             },
                             L::L5_0, {"T.ELEMENT_LIMIT"}, {}, {"12884901889"}),
        // Sizes near 2^32: 2 x 2^31 packed elements is one past the limit.
        rule_case<ReduceDesc>("ElementLimitBySizes", reduce_base(),
                              [](auto& d) {
                                d.input = packed(FLOAT32, {1, 1, 2, 1u << 31});
                                d.output = packed(FLOAT32, {1, 1, 2, 1});
                              },
                              L::L5_0, {"T.ELEMENT_LIMIT"}, {}, {"4294967296"}),
        // Every term near 2^64: computed in 128 bits, the byte count exceeds any uint64.
        rule_case<ReduceDesc>("ElementLimitBeyondSixtyFourBits", reduce_base(),
                              [](auto& d) {
                                d.input = TensorDesc{FLOAT32, Sizes(8, kMax32),
                                                     std::vector<uint32_t>(8, kMax32), ~uint64_t{3}};
                                d.output = packed(FLOAT32, Sizes(8, 1));
                                d.axes = {0, 1, 2, 3, 4, 5, 6, 7};
                              },
                              L::L5_0, {"T.ELEMENT_LIMIT", "T.TOTAL_BYTES"}),
        rule_case<SliceDesc>("StridesCountShort", slice_base(),
                             [](auto& d) {
                               d.input.strides = std::vector<uint32_t>{4, 4, 1};
                             },
                             L::L5_0, {"T.STRIDES_COUNT"}, {}, {"tensors.input.strides has 3 entries"}),
        rule_case<SliceDesc>("StridesCountLong", slice_base(),
                             [](auto& d) { d.output.strides = std::vector<uint32_t>(9, 1); }, L::L5_0,
                             {"T.STRIDES_COUNT"}),
        rule_case<SliceDesc>("OutputOverlapZeroStride", slice_base(),
                             [](auto& d) {
                               d.output = strided(FLOAT32, {1, 1, 3, 2}, {0, 0, 1, 0});
                             },
                             L::L5_0, {}, {"T.OUTPUT_OVERLAP"}, {"tensors.output.strides[3] is 0"}),
        rule_case<SliceDesc>("OutputOverlapInterleaved", slice_base(),
                             [](auto& d) {
                               d.output = strided(FLOAT32, {1, 1, 3, 2}, {0, 0, 1, 1});
                             },
                             L::L5_0, {}, {"T.OUTPUT_OVERLAP"},
                             {"map coordinates [0, 0, 0, 1] and [0, 0, 1, 0] to element offset 1"}),
        rule_case<SliceDesc>("OutputOverlapFarStrides", slice_base(),
                             [](auto& d) {
                               d.output = strided(FLOAT32, {1, 1, 3, 2}, {0, 0, 1000000000u, 2000000000u});
                             },
                             L::L5_0, {}, {"T.OUTPUT_OVERLAP"}, {"to element offset 2000000000"}),
        // Interleaved strides that keep every coordinate apart: 2a + 3b over a, b in [0, 3) (offsets
        // in a range of at most 64 per coordinate, checked on a bitmap) and 200a + 300b (sorted).
        rule_case<SliceDesc>("OutputInterleavedApart", slice_base(),
                             [](auto& d) {
                               d.output = strided(FLOAT32, {1, 1, 3, 3}, {0, 0, 2, 3});
                               d.offsets = {0, 0, 0, 0};
                               d.sizes = {1, 1, 3, 3};
                             },
                             L::L5_0, {}),
        rule_case<SliceDesc>("OutputInterleavedFarApart", slice_base(),
                             [](auto& d) {
                               d.output = strided(FLOAT32, {1, 1, 3, 3}, {0, 0, 200, 300});
                               d.offsets = {0, 0, 0, 0};
                               d.sizes = {1, 1, 3, 3};
                             },
                             L::L5_0, {}),
        // 655,370 interleaved coordinates (an output dimension grown past 2^16, as generated invalid
        // cases grow one): the first repeat in enumeration order is the witness.
        rule_case<SliceDesc>("OutputOverlapPastTwoToTheSixteen", slice_base(),
                             [](auto& d) {
                               d.input = packed(FLOAT32, {1, 5, 65537, 2});
                               d.output = strided(FLOAT32, {1, 5, 65537, 2}, {0, 1, 3, 5});
                               d.offsets = {0, 0, 0, 0};
                               d.sizes = {1, 5, 65537, 2};
                             },
                             L::L5_0, {}, {"T.OUTPUT_OVERLAP"},
                             {"map coordinates [0, 0, 2, 0] and [0, 1, 0, 1] to element offset 6"})),
    case_name<RuleCase>);

INSTANTIATE_TEST_SUITE_P(
    ValidatorOp, ValidatorRule,
    ::testing::Values(rule_case<Slice1Desc>("Slice1AtL1_0", slice1_base(), [](auto&) {}, L::L1_0,
                                            {"OP.FEATURE_LEVEL"}, {},
                                            {"SLICE1 exists from feature level 2_1"}),
                      rule_case<ScatterNdDesc>("ScatterNdAtL2_0", scatter_base(), [](auto&) {}, L::L2_0,
                                               {"OP.FEATURE_LEVEL"}),
                      rule_case<GatherElementsDesc>("GatherElementsAtL1_0", gather_base(), [](auto&) {},
                                                    L::L1_0, {"OP.FEATURE_LEVEL"}),
                      rule_case<ReduceDesc>("FunctionTwelve", reduce_base(),
                                            [](auto& d) { d.function = static_cast<F>(12); }, L::L5_0,
                                            {"OP.FUNCTION"}, {}, {"params.function is 12"}),
                      rule_case<ReduceDesc>("FunctionHuge", reduce_base(),
                                            [](auto& d) { d.function = static_cast<F>(kMax32); }, L::L1_0,
                                            {"OP.FUNCTION"})),
    case_name<RuleCase>);

INSTANTIATE_TEST_SUITE_P(
    ValidatorSlice, ValidatorRule,
    ::testing::Values(
        rule_case<SliceDesc>("ParamArraysDiffer", slice_base(),
                             [](auto& d) {
                               d.offsets = {0, 1, 2};
                             },
                             L::L5_0, {"SLICE.DIMCOUNT"}, {},
                             {"params.sizes has 4 entries but params.offsets has 3"}),
        rule_case<SliceDesc>("InputRankDiffers", slice_base(),
                             [](auto& d) {
                               d.input = packed(FLOAT32, {1, 4, 4});
                             },
                             L::L5_0, {"SLICE.DIMCOUNT"}, {}, {"tensors.input.sizes has 3 dimensions"}),
        rule_case<SliceDesc>("OutputRankDiffers", slice_base(),
                             [](auto& d) {
                               d.output = packed(FLOAT32, {1, 3, 2});
                             },
                             L::L5_0, {"SLICE.DIMCOUNT"}),
        rule_case<SliceDesc>("Rank3At2_1", slice_of_rank(3), [](auto&) {}, L::L2_1,
                             {"SLICE.DIMCOUNT", "T.RANK"}, {}, {"requires 4 or 5"}),
        rule_case<SliceDesc>("Rank9", slice_of_rank(9), [](auto&) {}, L::L5_0, {"SLICE.DIMCOUNT", "T.RANK"},
                             {}, {"requires 1..8"}),
        rule_case<SliceDesc>("Rank0", slice_of_rank(0), [](auto&) {}, L::L5_0, {"SLICE.DIMCOUNT", "T.RANK"}),
        rule_case<SliceDesc>("DtypeMismatch", slice_base(),
                             [](auto& d) {
                               d.output = packed(INT32, {1, 1, 3, 2});
                             },
                             L::L5_0, {"SLICE.DTYPE_MATCH"}, {},
                             {"tensors.output.type is INT32 but tensors.input.type is FLOAT32"}),
        rule_case<SliceDesc>("SizesDifferFromOutput", slice_base(),
                             [](auto& d) {
                               d.sizes = {1, 1, 2, 2};
                             },
                             L::L5_0, {"SLICE.SIZES_MATCH_OUTPUT"}, {},
                             {"params.sizes[2] is 2 but tensors.output.sizes[2] is 3"}),
        rule_case<SliceDesc>("ReadsPastTheEnd", slice_base(),
                             [](auto& d) {
                               d.offsets = {0, 0, 2, 2};
                             },
                             L::L5_0, {"SLICE.IN_BOUNDS"}, {},
                             {"params.offsets[2]", "= 4, not below tensors.input.sizes[2] = 4"}),
        rule_case<SliceDesc>("HugeStrideDoesNotWrap", slice_base(),
                             [](auto& d) {
                               d.strides = {1, 1, kMax32, 1};
                             },
                             L::L5_0, {"SLICE.IN_BOUNDS"}, {}, {"8589934591"}),
        rule_case<SliceDesc>("StrideZero", slice_base(),
                             [](auto& d) {
                               d.strides = {1, 1, 0, 1};
                             },
                             L::L5_0, {}, {"SLICE.STRIDE_ZERO"}, {"params.strides[2] is 0"})),
    case_name<RuleCase>);

INSTANTIATE_TEST_SUITE_P(
    ValidatorSlice1, ValidatorRule,
    ::testing::Values(
        rule_case<Slice1Desc>("ParamArraysDiffer", slice1_base(),
                              [](auto& d) {
                                d.input_window_strides = {1, 1, -2};
                              },
                              L::L5_0, {"SLICE1.DIMCOUNT"}, {},
                              {"params.input_window_strides has 3 entries"}),
        rule_case<Slice1Desc>("Rank3At2_1", slice1_of_rank(3), [](auto&) {}, L::L2_1,
                              {"SLICE1.DIMCOUNT", "T.RANK"}),
        rule_case<Slice1Desc>("Rank5At2_1IsFine", slice1_of_rank(5), [](auto&) {}, L::L2_1, {}),
        rule_case<Slice1Desc>("DtypeMismatch", slice1_base(),
                              [](auto& d) {
                                d.output = packed(FLOAT16, {1, 1, 2, 2});
                              },
                              L::L5_0, {"SLICE1.DTYPE_MATCH"}),
        rule_case<Slice1Desc>("WindowEmpty", slice1_base(),
                              [](auto& d) {
                                d.input_window_sizes = {1, 1, 0, 3};
                              },
                              L::L5_0, {"SLICE1.WINDOW_EMPTY"}, {}, {"params.input_window_sizes[2] is 0"}),
        rule_case<Slice1Desc>("WindowPastTheEnd", slice1_base(),
                              [](auto& d) {
                                d.input_window_offsets = {0, 0, 1, 1};
                              },
                              L::L5_0, {"SLICE1.WINDOW_BOUNDS"}, {},
                              {"= 5, above tensors.input.sizes[2] = 4"}),
        rule_case<Slice1Desc>("StrideZero", slice1_base(),
                              [](auto& d) {
                                d.input_window_strides = {1, 1, 0, 2};
                              },
                              L::L5_0, {"SLICE1.STRIDE_ZERO"}, {}, {"params.input_window_strides[2] is 0"}),
        rule_case<Slice1Desc>("OutputLargerThanWindowAllows", slice1_base(),
                              [](auto& d) {
                                d.output = packed(FLOAT32, {1, 1, 3, 2});
                              },
                              L::L5_0, {"SLICE1.OUTPUT_SIZE"}, {},
                              {"tensors.output.sizes[2] is 3", "[1, 2]"}),
        rule_case<Slice1Desc>("OutputSizeZero", slice1_base(),
                              [](auto& d) {
                                d.output = packed(FLOAT32, {1, 1, 0, 2});
                              },
                              L::L5_0, {"SLICE1.OUTPUT_SIZE", "T.SIZE_ZERO"}),
        rule_case<Slice1Desc>("MostNegativeStride", slice1_base(),
                              [](auto& d) {
                                d.input_window_strides = {1, 1, std::numeric_limits<int32_t>::min(), 2};
                              },
                              L::L5_0, {"SLICE1.OUTPUT_SIZE"}, {}, {"|-2147483648|"})),
    case_name<RuleCase>);

INSTANTIATE_TEST_SUITE_P(
    ValidatorScatterNd, ValidatorRule,
    ::testing::Values(
        rule_case<ScatterNdDesc>("UpdatesRankDiffers", scatter_base(),
                                 [](auto& d) {
                                   d.updates = packed(FLOAT32, {1, 2, 3});
                                 },
                                 L::L5_0, {"SCATTERND.DIMCOUNT"}, {},
                                 {"tensors.updates.sizes has 3 dimensions"}),
        rule_case<ScatterNdDesc>("Rank5At2_1", scatter_base(),
                                 [](auto& d) {
                                   d.input = packed(FLOAT32, {1, 1, 1, 2, 3});
                                   d.indices = packed(UINT32, {1, 1, 1, 2, 1});
                                   d.updates = packed(FLOAT32, {1, 1, 1, 2, 3});
                                   d.output = packed(FLOAT32, {1, 1, 1, 2, 3});
                                 },
                                 L::L2_1, {"SCATTERND.DIMCOUNT", "T.RANK"}, {}, {"requires 4"}),
        rule_case<ScatterNdDesc>("UpdatesDtype", scatter_base(),
                                 [](auto& d) {
                                   d.updates = packed(FLOAT16, {1, 1, 2, 3});
                                 },
                                 L::L5_0, {"SCATTERND.DTYPE_MATCH"}, {}, {"tensors.updates.type is FLOAT16"}),
        rule_case<ScatterNdDesc>("InputDimensionCountZero", scatter_base(),
                                 [](auto& d) { d.input_dimension_count = 0; }, L::L5_0,
                                 {"SCATTERND.INPUT_DIMCOUNT"}, {}, {"params.input_dimension_count is 0"}),
        rule_case<ScatterNdDesc>("InputDimensionCountAboveRank", scatter_base(),
                                 [](auto& d) { d.input_dimension_count = 5; }, L::L5_0,
                                 {"SCATTERND.INPUT_DIMCOUNT"}),
        rule_case<ScatterNdDesc>("IndicesDimensionCountZero", scatter_base(),
                                 [](auto& d) { d.indices_dimension_count = 0; }, L::L5_0,
                                 {"SCATTERND.INDICES_DIMCOUNT"}, {}, {"params.indices_dimension_count is 0"}),
        rule_case<ScatterNdDesc>("IndicesDimensionCountAboveRank", scatter_base(),
                                 [](auto& d) { d.indices_dimension_count = kMax32; }, L::L5_0,
                                 {"SCATTERND.INDICES_DIMCOUNT"}),
        rule_case<ScatterNdDesc>("InputLeadingDimNotOne", scatter_base(),
                                 [](auto& d) {
                                   d.input = packed(FLOAT32, {2, 1, 2, 3});
                                   d.output = packed(FLOAT32, {2, 1, 2, 3});
                                 },
                                 L::L5_0, {"SCATTERND.LEADING_DIMS"}, {}, {"tensors.input.sizes[0] is 2"}),
        rule_case<ScatterNdDesc>("IndicesLeadingDimNotOne", scatter_base(),
                                 [](auto& d) {
                                   d.indices = packed(UINT32, {1, 3, 2, 1});
                                 },
                                 L::L5_0, {"SCATTERND.LEADING_DIMS"}, {}, {"tensors.indices.sizes[1] is 3"}),
        rule_case<ScatterNdDesc>("TupleSizeZero", scatter_base(),
                                 [](auto& d) {
                                   d.indices = packed(UINT32, {1, 1, 2, 0});
                                 },
                                 L::L5_0, {"SCATTERND.TUPLE_SIZE", "T.SIZE_ZERO"}),
        rule_case<ScatterNdDesc>("TupleSizeAboveRank", scatter_base(),
                                 [](auto& d) {
                                   d.indices = packed(UINT32, {1, 1, 2, 5});
                                 },
                                 L::L5_0, {"SCATTERND.TUPLE_SIZE"}, {},
                                 {"tensors.indices.sizes[3] (tuple size k) is 5"}),
        rule_case<ScatterNdDesc>(
            "UpdatesShape", scatter_base(),
            [](auto& d) {
              d.updates = packed(FLOAT32, {1, 1, 2, 2});
            },
            L::L5_0, {"SCATTERND.UPDATES_SHAPE"}, {},
            {"tensors.updates.sizes is [1, 1, 2, 2] but the expected shape is [1, 1, 2, 3]"}),
        rule_case<ScatterNdDesc>("SeedFormulaTakesLastKSizes", scatter_seed_example(),
                                 [](auto& d) {
                                   d.updates = packed(FLOAT32, {1, 2, 5, 6, 7});
                                 },
                                 L::L5_0, {"SCATTERND.UPDATES_SHAPE"}, {},
                                 {"the expected shape is [1, 1, 2, 6, 7]"}),
        rule_case<ScatterNdDesc>("OutputShape", scatter_base(),
                                 [](auto& d) {
                                   d.output = packed(FLOAT32, {1, 1, 3, 2});
                                 },
                                 L::L5_0, {"SCATTERND.OUTPUT_SHAPE"}, {},
                                 {"tensors.output.sizes is [1, 1, 3, 2] but tensors.input.sizes is"})),
    case_name<RuleCase>);

INSTANTIATE_TEST_SUITE_P(
    ValidatorReduce, ValidatorRule,
    ::testing::Values(rule_case<ReduceDesc>("OutputRankDiffers", reduce_base(),
                                            [](auto& d) {
                                              d.output = packed(FLOAT32, {1, 3, 1});
                                            },
                                            L::L5_0, {"REDUCE.DIMCOUNT"}),
                      rule_case<ReduceDesc>("AxisOutOfRange", reduce_base(),
                                            [](auto& d) {
                                              d.axes = {3, 4};
                                            },
                                            L::L5_0, {"REDUCE.AXIS_RANGE"}, {}, {"params.axes[1] is 4"}),
                      rule_case<ReduceDesc>("AxisHuge", reduce_base(),
                                            [](auto& d) {
                                              d.axes = {kMax32, 3};
                                            },
                                            L::L5_0, {"REDUCE.AXIS_RANGE"}),
                      rule_case<ReduceDesc>("AxesEmpty", reduce_base(),
                                            [](auto& d) {
                                              d.axes = {};
                                              d.output = packed(FLOAT32, {1, 1, 3, 3});
                                            },
                                            L::L5_0, {}, {"REDUCE.AXES_EMPTY"}, {"params.axes is empty"}),
                      rule_case<ReduceDesc>("AxesDuplicate", reduce_base(),
                                            [](auto& d) {
                                              d.axes = {3, 3};
                                            },
                                            L::L5_0, {}, {"REDUCE.AXES_DUPLICATE"},
                                            {"params.axes[1] repeats axis 3"}),
                      rule_case<ReduceDesc>("OutputSizes", reduce_base(),
                                            [](auto& d) {
                                              d.output = packed(FLOAT32, {1, 1, 3, 3});
                                            },
                                            L::L5_0, {"REDUCE.OUTPUT_SIZES"}, {},
                                            {"tensors.output.sizes[3] is 3; expected 1"}),
                      rule_case<ReduceDesc>("DtypeMismatch", reduce_base(F::SUM, FLOAT32, FLOAT16),
                                            [](auto&) {}, L::L5_0, {"REDUCE.DTYPE_MATCH"}),
                      rule_case<ReduceDesc>("ArgmaxFloatOutput", reduce_base(F::ARGMAX, FLOAT32, FLOAT32),
                                            [](auto&) {}, L::L5_0, {"REDUCE.DTYPE_MATCH", "T.DTYPE"})),
    case_name<RuleCase>);

INSTANTIATE_TEST_SUITE_P(
    ValidatorGatherElements, ValidatorRule,
    ::testing::Values(rule_case<GatherElementsDesc>("IndicesRankDiffers", gather_base(),
                                                    [](auto& d) {
                                                      d.indices = packed(UINT32, {1, 2, 3});
                                                      d.output = packed(FLOAT32, {1, 2, 3});
                                                    },
                                                    L::L5_0, {"GATHERELEMENTS.DIMCOUNT"}),
                      rule_case<GatherElementsDesc>("Rank3At2_1", gather_base(),
                                                    [](auto& d) {
                                                      d.input = packed(FLOAT32, {1, 3, 3});
                                                      d.indices = packed(UINT32, {1, 2, 3});
                                                      d.output = packed(FLOAT32, {1, 2, 3});
                                                      d.axis = 1;
                                                    },
                                                    L::L2_1, {"GATHERELEMENTS.DIMCOUNT", "T.RANK"}),
                      rule_case<GatherElementsDesc>("AxisOutOfRange", gather_base(),
                                                    [](auto& d) {
                                                      d.indices = packed(UINT32, {1, 1, 3, 3});
                                                      d.output = packed(FLOAT32, {1, 1, 3, 3});
                                                      d.axis = 4;
                                                    },
                                                    L::L5_0, {"GATHERELEMENTS.AXIS_RANGE"}, {},
                                                    {"params.axis is 4"}),
                      rule_case<GatherElementsDesc>("IndicesShape", gather_base(),
                                                    [](auto& d) {
                                                      d.indices = packed(UINT32, {1, 1, 2, 2});
                                                      d.output = packed(FLOAT32, {1, 1, 2, 2});
                                                    },
                                                    L::L5_0, {"GATHERELEMENTS.INDICES_SHAPE"}, {},
                                                    {"tensors.indices.sizes[3] is 2"}),
                      rule_case<GatherElementsDesc>("OutputShape", gather_base(),
                                                    [](auto& d) {
                                                      d.output = packed(FLOAT32, {1, 1, 2, 2});
                                                    },
                                                    L::L5_0, {"GATHERELEMENTS.OUTPUT_SHAPE"}),
                      rule_case<GatherElementsDesc>("SeedErratumUint32Output", gather_base(),
                                                    [](auto& d) {
                                                      d.output = packed(UINT32, {1, 1, 2, 3});
                                                    },
                                                    L::L5_0, {"GATHERELEMENTS.DTYPE_MATCH"})),
    case_name<RuleCase>);

// ---- absurd descriptors: findings, never a crash or a sanitizer report ----

struct AbsurdCase {
  std::string name;
  OperatorDesc desc;
  std::string some_rule;  // at least this rule is reported
};
void PrintTo(const AbsurdCase& c, std::ostream* os) {
  *os << c.name;
}
class ValidatorAbsurd : public ::testing::TestWithParam<AbsurdCase> {};

TEST_P(ValidatorAbsurd, ReportsInsteadOfCrashing) {
  for (FeatureLevel level : {L::L1_0, L::L2_1, L::L5_0}) {
    const Validation v = validate(GetParam().desc, level);
    EXPECT_EQ(v.case_class(), CaseClass::Invalid);
    EXPECT_TRUE(v.has(GetParam().some_rule)) << name(level);
    // Data of the wrong length on an absurd descriptor: classified invalid by its descriptor, and
    // the data rules, asked anyway, neither crash nor make it anything else.
    const InputData data{Bytes(3), Bytes(5), Bytes(7)};
    EXPECT_EQ(classify(GetParam().desc, level, data).case_class, CaseClass::Invalid);
    (void)check_data(GetParam().desc, level, data);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Validator, ValidatorAbsurd,
    ::testing::Values(AbsurdCase{"SliceRank20", slice_of_rank(20), "T.RANK"},
                      AbsurdCase{"Slice1Rank0", slice1_of_rank(0), "SLICE1.DIMCOUNT"},
                      AbsurdCase{"ScatterNdAllRank0",
                                 ScatterNdDesc{packed(FLOAT32, {}), packed(UINT32, {}), packed(FLOAT32, {}),
                                               packed(FLOAT32, {}), 1, 1},
                                 "SCATTERND.INPUT_DIMCOUNT"},
                      AbsurdCase{"ScatterNdRanksDisagree",
                                 ScatterNdDesc{packed(FLOAT32, Sizes(20, 1)), packed(UINT32, {2}),
                                               packed(FLOAT32, {}), packed(FLOAT32, {3, 3}), 20, 7},
                                 "SCATTERND.DIMCOUNT"},
                      AbsurdCase{"GatherAxisHugeRanksDisagree",
                                 GatherElementsDesc{packed(FLOAT32, {2, 2}), packed(UINT32, Sizes(12, 2)),
                                                    packed(FLOAT32, {}), kMax32},
                                 "GATHERELEMENTS.AXIS_RANGE"},
                      AbsurdCase{"ReduceSizesNear2Pow32",
                                 ReduceDesc{F::SUM,
                                            packed(FLOAT32, {kMax32, kMax32, kMax32, kMax32}),
                                            packed(FLOAT32, {1, 1, 1}),
                                            {0, 9, 2}},
                                 "T.ELEMENT_LIMIT"},
                      AbsurdCase{"SliceEverythingMismatched",
                                 SliceDesc{TensorDesc{FLOAT32, {0, kMax32}, std::vector<uint32_t>{kMax32}, 3},
                                           packed(INT8, Sizes(9, 2)),
                                           {kMax32},
                                           {},
                                           {0, 0, 0}},
                                 "T.STRIDES_COUNT"}),
    case_name<AbsurdCase>);

// ---- large descriptors: validation is linear in the descriptor's size ----

// A descriptor with a million entries where a handful is usual: validate() and classify() take
// linear time, under a second (a quadratic duplicate-axis check took minutes on such a REDUCE), and
// report the rule at most a few times, not once per entry.
struct LargeCase {
  std::string name;
  std::function<OperatorDesc(size_t n)> make;
  CaseClass want;
  std::string rule;
};
void PrintTo(const LargeCase& c, std::ostream* os) {
  *os << c.name;
}
class ValidatorLarge : public ::testing::TestWithParam<LargeCase> {};

constexpr size_t kMillion = 1'000'000;

TEST_P(ValidatorLarge, ValidatesInLinearTime) {
  const InputData data{Bytes(9 * sizeof(float)), {}, {}};
  test::expect_linear(
      [&](size_t n) -> std::function<void()> {
        return [desc = GetParam().make(n), &data] {
          validate(desc, L::L5_0);
          classify(desc, L::L5_0, data);
        };
      },
      kMillion, 1.0);
  const OperatorDesc desc = GetParam().make(kMillion);
  const Validation v = validate(desc, L::L5_0);
  EXPECT_EQ(v.case_class(), GetParam().want);
  EXPECT_EQ(classify(desc, L::L5_0, data).case_class, GetParam().want);
  EXPECT_TRUE(v.has(GetParam().rule));
  EXPECT_LT(v.invalid.size() + v.unspecified.size(), 100u);
}

INSTANTIATE_TEST_SUITE_P(Validator, ValidatorLarge,
                         ::testing::Values(LargeCase{"ReduceMillionRepeatedAxes",
                                                     [](size_t n) {
                                                       ReduceDesc d = reduce_base();
                                                       d.axes.assign(n, 3);
                                                       return OperatorDesc{d};
                                                     },
                                                     CaseClass::Unspecified, "REDUCE.AXES_DUPLICATE"},
                                           LargeCase{"ReduceMillionAxesCyclingOverTheRank",
                                                     [](size_t n) {
                                                       ReduceDesc d = reduce_base();
                                                       d.output = packed(FLOAT32, {1, 1, 1, 1});
                                                       d.axes.resize(n);
                                                       for (size_t i = 0; i < n; ++i)
                                                         d.axes[i] = static_cast<uint32_t>(i % 4);
                                                       return OperatorDesc{d};
                                                     },
                                                     CaseClass::Unspecified, "REDUCE.AXES_DUPLICATE"},
                                           LargeCase{"ReduceMillionAxesOutOfRange",
                                                     [](size_t n) {
                                                       ReduceDesc d = reduce_base();
                                                       d.axes.resize(n);
                                                       for (size_t i = 0; i < n; ++i)
                                                         d.axes[i] = static_cast<uint32_t>(4 + i);
                                                       return OperatorDesc{d};
                                                     },
                                                     CaseClass::Invalid, "REDUCE.AXIS_RANGE"}),
                         case_name<LargeCase>);

// ---- data rules ----

template <class T>
Bytes bytes_of(std::vector<T> v) {
  Bytes b(v.size() * sizeof(T));
  if (!v.empty()) std::memcpy(b.data(), v.data(), b.size());
  return b;
}

struct DataCase {
  std::string name;
  OperatorDesc desc;
  FeatureLevel level;
  InputData data;
  std::set<std::string> rules;             // expected rule IDs
  std::vector<std::string> mentions = {};  // text some message must contain
};
void PrintTo(const DataCase& c, std::ostream* os) {
  *os << c.name;
}
class ValidatorData : public ::testing::TestWithParam<DataCase> {};

TEST_P(ValidatorData, ReportsTheClassUDataRules) {
  const auto& c = GetParam();
  // What the classification adds for the data: an invalid descriptor gets nothing (its data
  // rules are never asked).
  const Validation descriptor = validate(c.desc, c.level);
  std::vector<Violation> found;
  for (const Violation& v : classify(c.desc, c.level, c.data).findings)
    if (!descriptor.has(v.rule)) found.push_back(v);
  std::string all;
  for (const Violation& v : found) all += v.rule + ": " + v.message + "\n";
  SCOPED_TRACE(all);
  EXPECT_EQ(rule_ids(found), c.rules);
  for (const std::string& m : c.mentions) EXPECT_NE(all.find(m), std::string::npos) << "missing: " << m;
}

const Bytes kNineFloats = bytes_of<float>({1, 2, 3, 4, 5, 6, 7, 8, 9});
constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr int32_t kI32Max = std::numeric_limits<int32_t>::max();
constexpr int32_t kI32Min = std::numeric_limits<int32_t>::min();

InputData gather_data(Bytes indices) {
  return {kNineFloats, std::move(indices), {}};
}
InputData scatter_data(Bytes indices) {
  return {bytes_of<float>({1, 2, 3, 4, 5, 6}), std::move(indices), bytes_of<float>({7, 8, 9, 10, 11, 12})};
}
InputData reduce_data(Bytes input) {
  return {std::move(input), {}, {}};
}

INSTANTIATE_TEST_SUITE_P(
    ValidatorGather, ValidatorData,
    ::testing::Values(
        DataCase{"InRange", gather_base(), L::L2_1, gather_data(bytes_of<uint32_t>({1, 2, 0, 2, 0, 0})), {}},
        DataCase{"PastTheEnd",
                 gather_base(),
                 L::L5_0,
                 gather_data(bytes_of<uint32_t>({1, 2, 0, 2, 3, 0})),
                 {"GATHERELEMENTS.INDEX_RANGE"},
                 {"tensors.indices.data[4] is 3", "must be in [0, 3)"}},
        DataCase{"Uint32MaxIsNotNegative",
                 gather_base(),
                 L::L5_0,
                 gather_data(bytes_of<uint32_t>({1, 2, 0, 2, kMax32, 0})),
                 {"GATHERELEMENTS.INDEX_RANGE"}},
        DataCase{"NegativeLegalFrom3_0",
                 gather_base(INT32),
                 L::L3_0,
                 gather_data(bytes_of<int32_t>({-1, -3, 0, 2, -2, 1})),
                 {}},
        DataCase{"NegativeBeyondMinusD",
                 gather_base(INT64),
                 L::L3_0,
                 gather_data(bytes_of<int64_t>({-4, 0, 0, 0, 0, 0})),
                 {"GATHERELEMENTS.INDEX_RANGE"},
                 {"must be in [-3, 3)"}},
        // At 2_1 the only index type is UINT32, so a signed index tensor is T.DTYPE: the case is
        // invalid, and its data rules are not asked.
        DataCase{"SignedIndicesAt2_1AreInvalidNotU",
                 gather_base(INT32),
                 L::L2_1,
                 gather_data(bytes_of<int32_t>({-1, 0, 0, 0, 0, 0})),
                 {}},
        DataCase{
            "WrongLengthIsNoFinding", gather_base(), L::L5_0, gather_data(bytes_of<uint32_t>({9, 9})), {}}),
    case_name<DataCase>);

INSTANTIATE_TEST_SUITE_P(
    ValidatorScatterNd, ValidatorData,
    ::testing::Values(
        DataCase{"InRange", scatter_base(), L::L2_1, scatter_data(bytes_of<uint32_t>({1, 0})), {}},
        DataCase{"PastTheEnd",
                 scatter_base(),
                 L::L5_0,
                 scatter_data(bytes_of<uint32_t>({0, 2})),
                 {"SCATTERND.INDEX_RANGE"},
                 {"tensors.indices.data[1] is 2", "tensors.input.sizes[2] is 2"}},
        DataCase{"Duplicate",
                 scatter_base(),
                 L::L5_0,
                 scatter_data(bytes_of<uint32_t>({1, 1})),
                 {"SCATTERND.DUPLICATE"},
                 {"index tuples 0 and 1"}},
        DataCase{"NegativeLegalFrom3_0",
                 scatter_base(INT64),
                 L::L3_0,
                 scatter_data(bytes_of<int64_t>({-1, 0})),
                 {}},
        DataCase{"NegativeAliasesPositive",
                 scatter_base(INT64),
                 L::L3_0,
                 scatter_data(bytes_of<int64_t>({-1, 1})),
                 {"SCATTERND.DUPLICATE"}},
        DataCase{"NegativeBeyondMinusD",
                 scatter_base(INT32),
                 L::L5_0,
                 scatter_data(bytes_of<int32_t>({-3, 0})),
                 {"SCATTERND.INDEX_RANGE"},
                 {"must be in [-2, 2)"}},
        DataCase{"SeedExample1DDuplicateFree",
                 scatter_seed_1d(),
                 L::L3_0,
                 InputData{bytes_of<float>({1, 2, 3, 4, 5, 6, 7, 8}), bytes_of<uint32_t>({4, 3, 1, 7}),
                           bytes_of<float>({9, 10, 11, 12})},
                 {}},
        DataCase{"SeedExample3Tuples",
                 scatter_seed_example(),
                 L::L3_0,
                 InputData{Bytes(3 * 4 * 5 * 6 * 7 * 4), bytes_of<int32_t>({2, 3, 4, -1, -1, -1}),
                           Bytes(2 * 6 * 7 * 4)},
                 {"SCATTERND.DUPLICATE"},
                 {"block [2, 3, 4]"}},
        DataCase{
            "WrongLengthIsNoFinding", scatter_base(), L::L5_0, scatter_data(bytes_of<uint32_t>({7})), {}}),
    case_name<DataCase>);

INSTANTIATE_TEST_SUITE_P(
    ValidatorReduce, ValidatorData,
    ::testing::Values(
        DataCase{"FloatSumFinite", reduce_base(), L::L5_0, reduce_data(kNineFloats), {}},
        DataCase{"FloatSumNaN",
                 reduce_base(),
                 L::L5_0,
                 reduce_data(bytes_of<float>({1, 2, 3, 4, kNaN, 6, 7, 8, 9})),
                 {"REDUCE.NONFINITE"},
                 {"output element 1", "tensors.input.data[4] is nan"}},
        DataCase{"FloatMaxInfinity",
                 reduce_base(F::MAX),
                 L::L5_0,
                 reduce_data(bytes_of<float>({1, 2, 3, 4, 5, 6, 7, 8, -kInf})),
                 {"REDUCE.NONFINITE"},
                 {"tensors.input.data[8] is -inf"}},
        DataCase{"Float16PartialSumOverflows",
                 reduce_base(F::SUM, FLOAT16, FLOAT16),
                 L::L5_0,
                 reduce_data(bytes_of<half>({half(40000.f), half(40000.f), half(-40000.f), half(1.f),
                                             half(1.f), half(1.f), half(1.f), half(1.f), half(1.f)})),
                 {"REDUCE.NONFINITE"},
                 {"partial SUM after 2 of 3 inputs is 80000"}},
        DataCase{"Float32ProductOverflows",
                 reduce_base(F::MULTIPLY),
                 L::L5_0,
                 reduce_data(bytes_of<float>({1e30f, 1e30f, 1e-30f, 1, 1, 1, 1, 1, 1})),
                 {"REDUCE.NONFINITE"}},
        DataCase{"IntSumPartialOverflows",
                 reduce_base(F::SUM, INT32, INT32),
                 L::L5_0,
                 reduce_data(bytes_of<int32_t>({1, 2, 3, kI32Max, 1, -1, 7, 8, 9})),
                 {"REDUCE.INT_OVERFLOW"},
                 {"output element 1", "after 2 of 3 inputs", "tensors.input.data[4]", "INT32"}},
        DataCase{"IntSumInRange",
                 reduce_base(F::SUM, INT32, INT32),
                 L::L5_0,
                 reduce_data(bytes_of<int32_t>({kI32Max, -1, -5, kI32Min, 1, 2, 0, 0, 0})),
                 {}},
        DataCase{"UintMultiplyOverflows",
                 reduce_base(F::MULTIPLY, UINT32, UINT32),
                 L::L5_0,
                 reduce_data(bytes_of<uint32_t>({65536, 65536, 1, 1, 1, 1, 1, 1, 1})),
                 {"REDUCE.INT_OVERFLOW"}},
        DataCase{"L1OfMostNegative",
                 reduce_base(F::L1, INT32, INT32),
                 L::L5_0,
                 reduce_data(bytes_of<int32_t>({0, 0, 0, 0, 0, 0, kI32Min, 0, 0})),
                 {"REDUCE.INT_OVERFLOW"}},
        DataCase{"SumSquareOverflows",
                 reduce_base(F::SUM_SQUARE, INT32, INT32),
                 L::L5_0,
                 reduce_data(bytes_of<int32_t>({46341, 0, 0, 0, 0, 0, 0, 0, 0})),
                 {"REDUCE.INT_OVERFLOW"}},
        DataCase{"IntMaxHasNoArithmetic",
                 reduce_base(F::MAX, INT32, INT32),
                 L::L5_0,
                 reduce_data(bytes_of<int32_t>({kI32Max, kI32Max, kI32Max, kI32Min, kI32Min, 0, 0, 0, 0})),
                 {}},
        DataCase{"AxesEmptyStillChecksData",
                 ReduceDesc{F::SUM, packed(FLOAT32, {1, 1, 3, 3}), packed(FLOAT32, {1, 1, 3, 3}), {}},
                 L::L5_0,
                 reduce_data(bytes_of<float>({1, 2, 3, 4, kInf, 6, 7, 8, 9})),
                 {"REDUCE.NONFINITE"}},
        DataCase{"ManyFindingsAreSummarised",
                 ReduceDesc{F::SUM, packed(FLOAT32, {1, 1, 3, 4}), packed(FLOAT32, {1, 1, 3, 4}), {}},
                 L::L5_0,
                 reduce_data(bytes_of<float>(std::vector<float>(12, kNaN))),
                 {"REDUCE.NONFINITE"},
                 {"and 4 more REDUCE.NONFINITE findings"}},
        DataCase{"WrongLengthIsNoFinding", reduce_base(), L::L5_0, reduce_data(bytes_of<float>({kNaN})), {}}),
    case_name<DataCase>);

}  // namespace
}  // namespace dmlcert

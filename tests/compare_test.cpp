// The comparison model (docs/semantics.md, "Numbers"): bit-exact data movement, ±0 and NaN equality for
// float reductions, the SUM error bound under both accumulation profiles, tolerance overrides and
// set-valued expectations.
#include "dmlcert/compare.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "dmlcert/reduce_bounds.h"
#include "test_util.h"

namespace dmlcert {
namespace {

using test::Values;

// SLICE of a whole [1,1,1,n] tensor: the output is the input.
Case slice_case(DataType t, const Values& in) {
  const uint32_t n = static_cast<uint32_t>(in.size());
  SliceDesc d;
  d.input = d.output = packed_desc(t, {1, 1, 1, n});
  d.offsets = {0, 0, 0, 0};
  d.sizes = {1, 1, 1, n};
  d.strides = {1, 1, 1, 1};
  Case c;
  c.op = d;
  c.data.input = in.encode(t);
  return c;
}

// REDUCE of a [1,1,1,n] tensor over its last axis to one element.
Case reduce_case(ReduceFunction f, DataType t, const Values& in) {
  ReduceDesc d;
  d.function = f;
  d.input = packed_desc(t, {1, 1, 1, static_cast<uint32_t>(in.size())});
  d.output = packed_desc(t, {1, 1, 1, 1});
  d.axes = {3};
  Case c;
  c.op = d;
  c.data.input = in.encode(t);
  return c;
}

Case with_tolerance(Case c, Tolerance t) {
  c.tolerance = t;
  return c;
}

float next_up(float v, int ulps = 1) {
  for (int i = 0; i < ulps; ++i) v = std::nextafter(v, std::numeric_limits<float>::infinity());
  return v;
}

// FLOAT16 2048 followed by sixteen 1s. The exact sum 2064 is a half. Accumulated in float32 it
// stays exact; accumulated in float16 every 2048 + 1 rounds back to 2048 (the spacing there is
// 2), so the sum comes out 2048: 16 away, beyond the default bound (16 * 2^-24 * 2064 + 2 ulp
// ~ 2) but within the relaxed one (16 * 2^-11 * 2064 + 2 ~ 18).
Values fp16_cancellation_data() {
  std::vector<double> v(17, 1.0);
  v[0] = 2048;
  return Values(v);
}

struct CompareRow {
  std::string name;
  Case c;
  Bytes reference;  // logical reference output
  Bytes actual;     // logical output of the backend under test
  bool passes;      // what compare() must say
  AccumulationProfile profile = AccumulationProfile::Default;
  std::vector<Bytes> candidates;  // when set, the admissible outputs of a class U case
};
void PrintTo(const CompareRow& r, std::ostream* os) {
  *os << r.name;
}

std::vector<CompareRow> compare_rows() {
  const DataType F32 = DataType::FLOAT32, F16 = DataType::FLOAT16;
  std::vector<CompareRow> rows;
  // Data movement is bit-exact: NaN payloads and the sign of zero are kept.
  rows.push_back({"DataMovementSameBitsPass", slice_case(F32, Values::bits({0x7FC00001, 0x80000000})),
                  Values::bits({0x7FC00001, 0x80000000}).encode(F32),
                  Values::bits({0x7FC00001, 0x80000000}).encode(F32), true});
  rows.push_back({"DataMovementNanPayloadMismatchFails", slice_case(F32, Values::bits({0x7FC00001})),
                  Values::bits({0x7FC00001}).encode(F32), Values::bits({0x7FC00000}).encode(F32), false});
  rows.push_back({"DataMovementNegativeZeroMismatchFails", slice_case(F32, Values::bits({0x80000000})),
                  Values::bits({0x80000000}).encode(F32), Values({0.0}).encode(F32), false});
  rows.push_back({"DataMovementOneUlpOffFails", slice_case(F32, Values({1.0})), Values({1.0}).encode(F32),
                  Values({next_up(1.0f)}).encode(F32), false});
  // What conversions and fast-math do to bits that data movement must keep, in every float type: a
  // signalling NaN comes back quiet (its quiet bit set), a subnormal flushed to zero.
  const DataType F64 = DataType::FLOAT64;
  rows.push_back({"DataMovementSignallingNanQuietedFails", slice_case(F32, Values::bits({0xFF800001})),
                  Values::bits({0xFF800001}).encode(F32), Values::bits({0xFFC00001}).encode(F32), false});
  rows.push_back({"DataMovementFp16SignallingNanQuietedFails", slice_case(F16, Values::bits({0x7C01})),
                  Values::bits({0x7C01}).encode(F16), Values::bits({0x7E01}).encode(F16), false});
  rows.push_back({"DataMovementFp64SignallingNanQuietedFails",
                  slice_case(F64, Values::bits({0x7FF0000000000001})),
                  Values::bits({0x7FF0000000000001}).encode(F64),
                  Values::bits({0x7FF8000000000001}).encode(F64), false});
  rows.push_back({"DataMovementSubnormalFlushedFails", slice_case(F32, Values::bits({0x80000001})),
                  Values::bits({0x80000001}).encode(F32), Values::bits({0x80000000}).encode(F32), false});
  rows.push_back({"DataMovementFp16SubnormalFlushedFails", slice_case(F16, Values::bits({0x03FF})),
                  Values::bits({0x03FF}).encode(F16), Values::bits({0x0000}).encode(F16), false});
  rows.push_back(
      {"DataMovementFp64SameSignallingNanPasses", slice_case(F64, Values::bits({0xFFF0000000000002})),
       Values::bits({0xFFF0000000000002}).encode(F64), Values::bits({0xFFF0000000000002}).encode(F64), true});
  // Float reductions: ±0 equal, any NaN equals any NaN.
  rows.push_back({"FloatReductionZeroSignsEqual", reduce_case(ReduceFunction::SUM, F32, Values({-0.0, -0.0})),
                  Values::bits({0x80000000}).encode(F32), Values({0.0}).encode(F32), true});
  rows.push_back(
      {"FloatReductionNanEqualsNan",
       reduce_case(ReduceFunction::SUM, F32, Values({std::numeric_limits<double>::quiet_NaN(), 1.0})),
       Values::bits({0x7FC00000}).encode(F32), Values::bits({0xFFC00001}).encode(F32), true});
  rows.push_back({"FloatMaxZeroSignsEqual", reduce_case(ReduceFunction::MAX, F32, Values({-0.0, 0.0})),
                  Values({0.0}).encode(F32), Values::bits({0x80000000}).encode(F32), true});
  rows.push_back({"FloatMaxIsBitExact", reduce_case(ReduceFunction::MAX, F32, Values({1.0, 0.5})),
                  Values({1.0}).encode(F32), Values({next_up(1.0f)}).encode(F32), false});
  rows.push_back({"FloatMaxSubnormalFlushedFails",
                  reduce_case(ReduceFunction::MAX, F32, Values::bits({0x00000001, 0xBF800000})),
                  Values::bits({0x00000001}).encode(F32), Values({0.0}).encode(F32), false});
  rows.push_back({"IntegerSumIsExact", reduce_case(ReduceFunction::SUM, DataType::INT32, Values({1, 2, 3})),
                  Values({6}).encode(DataType::INT32), Values({7}).encode(DataType::INT32), false});
  rows.push_back({"NanDoesNotMatchANumber", reduce_case(ReduceFunction::SUM, F32, Values({1.0, 2.0})),
                  Values({3.0}).encode(F32), Values::bits({0x7FC00000}).encode(F32), false});
  // The SUM bound, computed from this case's data.
  rows.push_back({"Fp16SumFloat32AccumulatedPassesDefault",
                  reduce_case(ReduceFunction::SUM, F16, fp16_cancellation_data()), Values({2064}).encode(F16),
                  Values({2064}).encode(F16), true});
  rows.push_back({"Fp16SumFloat16AccumulatedFailsDefault",
                  reduce_case(ReduceFunction::SUM, F16, fp16_cancellation_data()), Values({2064}).encode(F16),
                  Values({2048}).encode(F16), false});
  rows.push_back({"Fp16SumFloat16AccumulatedPassesRelaxed",
                  reduce_case(ReduceFunction::SUM, F16, fp16_cancellation_data()), Values({2064}).encode(F16),
                  Values({2048}).encode(F16), true, AccumulationProfile::Relaxed});
  rows.push_back({"Fp16SumFarOffFailsRelaxed",
                  reduce_case(ReduceFunction::SUM, F16, fp16_cancellation_data()), Values({2064}).encode(F16),
                  Values({2000}).encode(F16), false, AccumulationProfile::Relaxed});
  // The final rounding is round-to-nearest-even, once: 1024 + 0.75 = 1024.75 is exact in a
  // float32 accumulator and lies 0.25 above the FLOAT16 midpoint 1024.5 (the spacing at 1024 is
  // 1), while E = 2^-24 * 1024.75 is far smaller. Only 1025 is admissible; 1024 is what a
  // rounding toward zero gives, and docs/semantics.md's looser E + 1 ulp would let it through.
  rows.push_back({"Fp16SumRoundedToNearestPasses",
                  reduce_case(ReduceFunction::SUM, F16, Values({1024, 0.75})), Values({1025}).encode(F16),
                  Values({1025}).encode(F16), true});
  rows.push_back({"Fp16SumRoundedTowardZeroFails",
                  reduce_case(ReduceFunction::SUM, F16, Values({1024, 0.75})), Values({1025}).encode(F16),
                  Values({1024}).encode(F16), false});
  // Exactly on the midpoint 1024.5 the interval [x - E, x + E] straddles it: an accumulator
  // allowed an error E may land on either side, so both neighbours are admissible.
  rows.push_back({"Fp16SumOnAMidpointAdmitsTheEvenNeighbour",
                  reduce_case(ReduceFunction::SUM, F16, Values({1024, 0.5})), Values({1024}).encode(F16),
                  Values({1024}).encode(F16), true});
  rows.push_back({"Fp16SumOnAMidpointAdmitsTheOddNeighbour",
                  reduce_case(ReduceFunction::SUM, F16, Values({1024, 0.5})), Values({1024}).encode(F16),
                  Values({1025}).encode(F16), true});
  rows.push_back({"Fp16SumOnAMidpointRejectsTwoAway",
                  reduce_case(ReduceFunction::SUM, F16, Values({1024, 0.5})), Values({1024}).encode(F16),
                  Values({1026}).encode(F16), false});
  // Tolerance overrides replace the default comparison.
  rows.push_back({"ToleranceUlpAcceptsWithin", with_tolerance(slice_case(F32, Values({1.0})), {.ulp = 2}),
                  Values({1.0}).encode(F32), Values({next_up(1.0f, 2)}).encode(F32), true});
  rows.push_back({"ToleranceUlpRejectsBeyond", with_tolerance(slice_case(F32, Values({1.0})), {.ulp = 2}),
                  Values({1.0}).encode(F32), Values({next_up(1.0f, 3)}).encode(F32), false});
  rows.push_back({"ToleranceAbsRelAcceptsWithin",
                  with_tolerance(slice_case(F32, Values({10.0})), {.abs = 0.5, .rel = 0.01}),
                  Values({10.0}).encode(F32), Values({10.55}).encode(F32), true});
  rows.push_back({"ToleranceAbsRelRejectsBeyond",
                  with_tolerance(slice_case(F32, Values({10.0})), {.abs = 0.5, .rel = 0.01}),
                  Values({10.0}).encode(F32), Values({10.7}).encode(F32), false});
  rows.push_back({"ToleranceTightensAFloatReduction",
                  with_tolerance(reduce_case(ReduceFunction::SUM, F16, fp16_cancellation_data()), {.ulp = 0}),
                  Values({2064}).encode(F16), Values({2066}).encode(F16), false});
  // Set-valued: each element may come from any admissible output (SCATTERND.DUPLICATE).
  rows.push_back({"SetValuedAcceptsAnyCandidate",
                  slice_case(F32, Values({1, 2})),
                  Values({1, 2}).encode(F32),
                  Values({1, 3}).encode(F32),
                  true,
                  AccumulationProfile::Default,
                  {Values({1, 2}).encode(F32), Values({1, 3}).encode(F32)}});
  rows.push_back({"SetValuedRejectsNonCandidate",
                  slice_case(F32, Values({1, 2})),
                  Values({1, 2}).encode(F32),
                  Values({1, 4}).encode(F32),
                  false,
                  AccumulationProfile::Default,
                  {Values({1, 2}).encode(F32), Values({1, 3}).encode(F32)}});
  return rows;
}

class CompareTest : public ::testing::TestWithParam<CompareRow> {};

TEST_P(CompareTest, JudgesTheOutput) {
  const CompareRow& row = GetParam();
  Expectation e = expectation_for(row.c, row.reference, row.profile);
  if (!row.candidates.empty()) e.candidates = row.candidates;
  const CompareResult r = compare(*tensor(row.c.op, Role::OUTPUT), e, row.actual);
  EXPECT_EQ(r.ok, row.passes) << r.summary();
  EXPECT_EQ(r.mismatches == 0, row.passes);
}

INSTANTIATE_TEST_SUITE_P(Table, CompareTest, ::testing::ValuesIn(compare_rows()),
                         [](const ::testing::TestParamInfo<CompareRow>& row) { return row.param.name; });

// Every bounded float function: the admissible interval holds a straightforward float32
// evaluation (left-to-right, libm calls, one final rounding), which a conforming backend may
// well be, and rejects a result off by a relative 1e-3, far beyond any first-order bound for
// four elements.
struct BoundRow {
  ReduceFunction function;
  double exact;  // the exact result for the data below
  float naive;   // the same result computed in float32
};
void PrintTo(const BoundRow& r, std::ostream* os) {
  *os << name(r.function);
}
const Values kBoundData({1.5, 2.25, 0.75, 3.0});

std::vector<BoundRow> bound_rows() {
  const std::vector<float> x = {1.5f, 2.25f, 0.75f, 3.0f};
  float sum = 0, sum_sq = 0, prod = 1, sum_exp = 0;
  for (float v : x) sum += v, sum_sq += v * v, prod *= v, sum_exp += std::exp(v);
  const double s = 7.5, ss = 1.5 * 1.5 + 2.25 * 2.25 + 0.75 * 0.75 + 9.0;
  return {{ReduceFunction::SUM, s, sum},
          {ReduceFunction::AVERAGE, s / 4, sum / 4},
          {ReduceFunction::L1, s, sum},
          {ReduceFunction::L2, std::sqrt(ss), std::sqrt(sum_sq)},
          {ReduceFunction::SUM_SQUARE, ss, sum_sq},
          {ReduceFunction::MULTIPLY, 1.5 * 2.25 * 0.75 * 3.0, prod},
          {ReduceFunction::LOG_SUM, std::log(s), std::log(sum)},
          {ReduceFunction::LOG_SUM_EXP,
           std::log(std::exp(1.5) + std::exp(2.25) + std::exp(0.75) + std::exp(3.0)), std::log(sum_exp)}};
}

class ReduceBoundTest : public ::testing::TestWithParam<BoundRow> {};

TEST_P(ReduceBoundTest, AdmitsAFloat32EvaluationAndRejectsLargeErrors) {
  const BoundRow& row = GetParam();
  const Case c = reduce_case(row.function, DataType::FLOAT32, kBoundData);
  const TensorDesc& out = *tensor(c.op, Role::OUTPUT);
  const float ref = static_cast<float>(row.exact);
  const Expectation e =
      expectation_for(c, Values({ref}).encode(DataType::FLOAT32), AccumulationProfile::Default);
  ASSERT_EQ(e.ranges.size(), 1u);
  ASSERT_TRUE(e.ranges[0].known());
  EXPECT_LE(e.ranges[0].lo, ref);
  EXPECT_GE(e.ranges[0].hi, ref);
  // never wider than docs/semantics.md's E + 1 ulp around the reference
  EXPECT_GE(e.ranges[0].lo, ref - e.bounds[0]);
  EXPECT_LE(e.ranges[0].hi, ref + e.bounds[0]);
  EXPECT_TRUE(compare(out, e, Values({row.naive}).encode(DataType::FLOAT32)).ok)
      << "admissible [" << e.ranges[0].lo << ", " << e.ranges[0].hi << "]";
  EXPECT_FALSE(compare(out, e, Values({ref * (1 + 1e-3)}).encode(DataType::FLOAT32)).ok)
      << "admissible [" << e.ranges[0].lo << ", " << e.ranges[0].hi << "]";
}

INSTANTIATE_TEST_SUITE_P(Functions, ReduceBoundTest, ::testing::ValuesIn(bound_rows()),
                         [](const ::testing::TestParamInfo<BoundRow>& row) {
                           return name(row.param.function);
                         });

TEST(CompareSummary, NamesCountCoordinateExpectedActualAndBound) {
  const Case c = slice_case(DataType::FLOAT32, Values({1, 2, 3}));
  const Expectation e =
      expectation_for(c, Values({1, 2, -0.0}).encode(DataType::FLOAT32), AccumulationProfile::Default);
  const CompareResult r =
      compare(*tensor(c.op, Role::OUTPUT), e, Values({1, 2.5, 0.0}).encode(DataType::FLOAT32));
  ASSERT_FALSE(r.ok);
  EXPECT_EQ(
      r.summary(),
      "2 of 3 elements differ; first at [0,0,0,1]: expected 2, got 2.5; at [0,0,0,2]: expected -0.0, got 0");

  const Case sum = reduce_case(ReduceFunction::SUM, DataType::FLOAT16, fp16_cancellation_data());
  const CompareResult bounded = compare(*tensor(sum.op, Role::OUTPUT),
                                        expectation_for(sum, Values({2064}).encode(DataType::FLOAT16), {}),
                                        Values({2048}).encode(DataType::FLOAT16));
  EXPECT_NE(bounded.summary().find("expected 2064, got 2048 (admissible [2064, 2064])"), std::string::npos)
      << bounded.summary();
}

}  // namespace
}  // namespace dmlcert

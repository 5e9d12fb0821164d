// Tensor descriptors and the logical <-> memory mapping (docs/semantics.md, "Tensor descriptors"), and the
// one-step binary16 rounding the reductions rely on.
#include "dmlcert/tensor.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <ostream>
#include <string>
#include <vector>

#include "dmlcert/dtype.h"

namespace dmlcert {
namespace {

constexpr uint32_t kMax32 = std::numeric_limits<uint32_t>::max();

template <class T>
std::string case_name(const ::testing::TestParamInfo<T>& info) {
  return info.param.name;
}

TensorDesc strided(DataType type, Sizes sizes, std::vector<uint32_t> strides) {
  TensorDesc t{type, std::move(sizes), std::move(strides), 0};
  t.total_bytes = min_implied_bytes(t).value_or(0);
  return t;
}

// ---- for_each_coord ----

struct CoordCase {
  std::string name;
  Sizes sizes;
  std::vector<Coord> expected;
};

void PrintTo(const CoordCase& c, std::ostream* os) {
  *os << c.name;
}
class TensorForEachCoord : public ::testing::TestWithParam<CoordCase> {};

TEST_P(TensorForEachCoord, VisitsEveryCoordinateInRowMajorOrder) {
  std::vector<Coord> seen;
  for_each_coord(GetParam().sizes, [&](const Coord& c) { seen.push_back(c); });
  EXPECT_EQ(seen, GetParam().expected);
}

INSTANTIATE_TEST_SUITE_P(Tensor, TensorForEachCoord,
                         ::testing::Values(CoordCase{"Rank0VisitsOneEmptyCoord", {}, {{}}},
                                           CoordCase{"Rank1", {3}, {{0}, {1}, {2}}},
                                           CoordCase{"Rank2LastAxisFastest",
                                                     {2, 3},
                                                     {{0, 0}, {0, 1}, {0, 2}, {1, 0}, {1, 1}, {1, 2}}},
                                           CoordCase{"SizeOneAxesKept", {1, 2, 1}, {{0, 0, 0}, {0, 1, 0}}},
                                           CoordCase{"ZeroSizeVisitsNothing", {2, 0, 3}, {}}),
                         case_name<CoordCase>);

// for_each_offset carries the offset from element to element; it must give element_offset's
// answer for every coordinate, with strides of every kind (zero, large, wrapping past 2^64).
TEST(TensorForEachOffset, GivesTheOffsetOfEachCoordinate) {
  for (const Sizes& sizes : {Sizes{}, Sizes{3}, Sizes{2, 3}, Sizes{1, 2, 1}, Sizes{2, 0, 3}, Sizes{2, 3, 4},
                             Sizes{3, 1, 2, 2, 2}}) {
    SCOPED_TRACE(testing::PrintToString(sizes));
    const std::vector<std::vector<uint64_t>> stride_sets = {
        packed_strides(sizes), std::vector<uint64_t>(sizes.size(), 0), std::vector<uint64_t>(sizes.size(), 7),
        std::vector<uint64_t>(sizes.size(), UINT64_MAX),  // -1 modulo 2^64: offsets that wrap
    };
    for (const auto& strides : stride_sets) {
      std::vector<uint64_t> expected, seen;
      for_each_coord(sizes, [&](const Coord& c) { expected.push_back(element_offset(c, strides)); });
      for_each_offset(sizes, strides, [&](uint64_t off) { seen.push_back(off); });
      EXPECT_EQ(seen, expected) << testing::PrintToString(strides);
    }
  }
}

// ---- packed strides, element span, minimum implied size ----

struct LayoutCase {
  std::string name;
  TensorDesc desc;
  std::vector<uint64_t> strides;  // expected effective strides
  std::optional<uint64_t> span;   // expected element_span
  std::optional<uint64_t> bytes;  // expected min_implied_bytes
};

void PrintTo(const LayoutCase& c, std::ostream* os) {
  *os << c.name;
}
class TensorLayout : public ::testing::TestWithParam<LayoutCase> {};

TEST_P(TensorLayout, StridesSpanAndMinimumBytes) {
  const auto& c = GetParam();
  EXPECT_EQ(effective_strides(c.desc), c.strides);
  EXPECT_EQ(element_span(c.desc), c.span);
  EXPECT_EQ(min_implied_bytes(c.desc), c.bytes);
}

const uint64_t kBig = uint64_t{kMax32} - 1;  // (size - 1) for a size of 2^32-1

INSTANTIATE_TEST_SUITE_P(
    Tensor, TensorLayout,
    ::testing::Values(
        LayoutCase{"PackedRank3", packed_desc(DataType::FLOAT32, {2, 3, 4}), {12, 4, 1}, 24, 96},
        LayoutCase{"PackedRank0IsOneElement", packed_desc(DataType::FLOAT32, {}), {}, 1, 4},
        LayoutCase{"Float16RoundsUpToFour", packed_desc(DataType::FLOAT16, {3}), {1}, 3, 8},
        LayoutCase{"Int8RoundsUpToFour", packed_desc(DataType::INT8, {5}), {1}, 5, 8},
        LayoutCase{"Float64", packed_desc(DataType::FLOAT64, {1}), {1}, 1, 8},
        LayoutCase{"PaddedRows", strided(DataType::FLOAT32, {2, 3}, {8, 1}), {8, 1}, 11, 44},
        LayoutCase{"BroadcastZeroStride", strided(DataType::FLOAT32, {3, 4}, {1, 0}), {1, 0}, 3, 12},
        LayoutCase{"Transposed", strided(DataType::INT16, {2, 3}, {1, 2}), {1, 2}, 6, 12},
        LayoutCase{"ZeroSizeHasNoSpan",
                   TensorDesc{DataType::FLOAT32, {2, 0}, std::nullopt, 0},
                   {0, 1},
                   std::nullopt,
                   std::nullopt},
        // Terms near 2^64 each: the 64-bit span overflows and must be reported, not wrapped.
        LayoutCase{"SpanOverflowsSixtyFourBits",
                   TensorDesc{DataType::FLOAT32,
                              {kMax32, kMax32, kMax32},
                              std::vector<uint32_t>{kMax32, kMax32, kMax32},
                              0},
                   {kMax32, kMax32, kMax32},
                   std::nullopt,
                   std::nullopt},
        // The span fits in 64 bits but the byte count does not.
        LayoutCase{"BytesOverflowSixtyFourBits",
                   TensorDesc{DataType::FLOAT64, {kMax32, kMax32}, std::vector<uint32_t>{kMax32, 1}, 0},
                   {kMax32, 1},
                   kBig* kMax32 + kBig + 1,
                   std::nullopt}),
    case_name<LayoutCase>);

TEST(TensorPackedStrides, SaturateInsteadOfWrapping) {
  const auto s = packed_strides({kMax32, kMax32, kMax32, kMax32});
  ASSERT_EQ(s.size(), 4u);
  EXPECT_EQ(s[3], 1u);
  EXPECT_EQ(s[2], kMax32);
  EXPECT_EQ(s[1], uint64_t{kMax32} * kMax32);
  EXPECT_GE(s[0], s[1]);  // (2^32-1)^3 does not fit: it must not wrap to something small
}

// ---- to_memory / from_memory ----

struct MemoryCase {
  std::string name;
  TensorDesc desc;
  std::vector<float> logical;
  uint64_t buffer_bytes;
  std::vector<float> memory;  // the expected buffer, as floats (padding is zero)
};

void PrintTo(const MemoryCase& c, std::ostream* os) {
  *os << c.name;
}
class TensorMemory : public ::testing::TestWithParam<MemoryCase> {};

Bytes float_bytes(const std::vector<float>& v) {
  Bytes b(v.size() * sizeof(float));
  if (!v.empty()) std::memcpy(b.data(), v.data(), b.size());
  return b;
}

TEST_P(TensorMemory, PlacesLogicalDataAndReadsItBack) {
  const auto& c = GetParam();
  const Bytes memory = to_memory(c.desc, float_bytes(c.logical), c.buffer_bytes);
  EXPECT_EQ(memory, float_bytes(c.memory));
  EXPECT_EQ(from_memory(c.desc, memory), float_bytes(c.logical));
}

INSTANTIATE_TEST_SUITE_P(
    Tensor, TensorMemory,
    ::testing::Values(
        MemoryCase{"Packed", packed_desc(DataType::FLOAT32, {2, 2}), {1, 2, 3, 4}, 16, {1, 2, 3, 4}},
        MemoryCase{"RowPaddingStaysZero",
                   strided(DataType::FLOAT32, {2, 2}, {3, 1}),
                   {1, 2, 3, 4},
                   24,
                   {1, 2, 0, 3, 4, 0}},
        MemoryCase{"Transposed",
                   strided(DataType::FLOAT32, {2, 3}, {1, 2}),
                   {1, 2, 3, 4, 5, 6},
                   24,
                   {1, 4, 2, 5, 3, 6}},
        // Broadcast elements share memory; the file format requires them to be equal.
        MemoryCase{
            "ZeroStrideBroadcast", strided(DataType::FLOAT32, {2, 3}, {1, 0}), {7, 7, 7, 8, 8, 8}, 8, {7, 8}},
        MemoryCase{
            "TailPaddingBeyondSpan", packed_desc(DataType::FLOAT32, {3}), {1, 2, 3}, 20, {1, 2, 3, 0, 0}}),
    case_name<MemoryCase>);

TEST(TensorMemoryBounds, ShortBufferDropsElementsInsteadOfOverrunning) {
  const TensorDesc t = packed_desc(DataType::FLOAT32, {4});
  const Bytes memory = to_memory(t, float_bytes({1, 2, 3, 4}), 8);
  EXPECT_EQ(memory, float_bytes({1, 2}));
  EXPECT_EQ(from_memory(t, memory), float_bytes({1, 2, 0, 0}));
}

// ---- round_to_half: one rounding, to nearest even ----

struct HalfCase {
  std::string name;
  double value;
  uint16_t bits;  // the binary16 bit pattern
};

void PrintTo(const HalfCase& c, std::ostream* os) {
  *os << c.name;
}
class TensorRoundToHalf : public ::testing::TestWithParam<HalfCase> {};

uint16_t half_bits(half h) {
  uint16_t b;
  std::memcpy(&b, &h, sizeof b);
  return b;
}

TEST_P(TensorRoundToHalf, GivesTheBinary16BitPattern) {
  EXPECT_EQ(half_bits(round_to_half(GetParam().value)), GetParam().bits) << std::hexfloat << GetParam().value;
}

INSTANTIATE_TEST_SUITE_P(
    Tensor, TensorRoundToHalf,
    ::testing::Values(
        HalfCase{"One", 1.0, 0x3C00}, HalfCase{"NegativeTwo", -2.0, 0xC000},
        HalfCase{"PositiveZero", 0.0, 0x0000}, HalfCase{"NegativeZeroKeepsSign", -0.0, 0x8000},
        HalfCase{"OneUlpAboveOne", 1.0 + std::ldexp(1.0, -10), 0x3C01},
        HalfCase{"TieBelowGoesToEvenOne", 1.0 + std::ldexp(1.0, -11), 0x3C00},
        HalfCase{"TieAboveOddGoesToEven", 1.0 + 3 * std::ldexp(1.0, -11), 0x3C02},
        HalfCase{"JustAboveTieRoundsUp", 1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -30), 0x3C01},
        // Through float this would round twice (to the tie, then to even) and give 0x3C00.
        HalfCase{"NoDoubleRoundingThroughFloat", 1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40), 0x3C01},
        HalfCase{"LargestFinite", 65504.0, 0x7BFF}, HalfCase{"BelowOverflowTieRoundsDown", 65519.0, 0x7BFF},
        HalfCase{"OverflowTieRoundsToInfinity", 65520.0, 0x7C00},
        HalfCase{"NegativeOverflow", -65520.0, 0xFC00}, HalfCase{"Infinity", INFINITY, 0x7C00},
        HalfCase{"SmallestNormal", std::ldexp(1.0, -14), 0x0400},
        HalfCase{"LargestSubnormal", 1023 * std::ldexp(1.0, -24), 0x03FF},
        HalfCase{"SmallestSubnormal", std::ldexp(1.0, -24), 0x0001},
        HalfCase{"HalfSmallestSubnormalTiesToZero", std::ldexp(1.0, -25), 0x0000},
        HalfCase{"AboveHalfSmallestSubnormal", std::ldexp(1.0, -25) * 1.0001, 0x0001},
        HalfCase{"SubnormalTieToEven", 3 * std::ldexp(1.0, -25), 0x0002},
        HalfCase{"NegativeSubnormal", -5 * std::ldexp(1.0, -24), 0x8005},
        HalfCase{"UnderflowToNegativeZero", -1e-10, 0x8000}),
    case_name<HalfCase>);

TEST(TensorRoundToHalfNaN, StaysNaN) {
  const uint16_t b = half_bits(round_to_half(std::numeric_limits<double>::quiet_NaN()));
  EXPECT_EQ(b & 0x7C00, 0x7C00);
  EXPECT_NE(b & 0x03FF, 0);
}

}  // namespace
}  // namespace dmlcert

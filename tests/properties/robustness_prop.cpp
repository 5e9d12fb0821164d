// The robustness cases' index extremes (generators.h, extreme_index_case): each is out of range
// for the validator, so class U is what the case really is, and each edge of a narrower field is
// there, j + 2^W with the low bits of an in-range index.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <cstdint>

#include "build.h"
#include "dmlcert/support.h"
#include "dmlcert/validate.h"

namespace dmlcert::props {
namespace {

std::string rule_of(OpKind op) {
  return std::string(info(op).rule_prefix) + ".INDEX_RANGE";
}

SupportCell indices_cell(OpKind op, DataType type) {
  const auto s = support(op, std::nullopt, Role::INDICES, FeatureLevel::L5_0);
  return SupportCell{op, std::nullopt, Role::INDICES, type, std::max(2u, s->min_rank)};
}

RC_GTEST_PROP(IndexExtremes, AreOutOfRangeForTheValidator, ()) {
  const OpKind op = *rc::gen::element(OpKind::SCATTER_ND, OpKind::GATHER_ELEMENTS);
  const DataType type =
      *rc::gen::element(DataType::INT32, DataType::UINT32, DataType::INT64, DataType::UINT64);
  const int rep = *rc::gen::inRange(0, kIndexExtremes);
  const Case c = *extreme_index_case(indices_cell(op, type), FeatureLevel::L5_0, rep, rule_of(op));
  RC_ASSERT(c.expect == CaseClass::Unspecified);
  RC_ASSERT(classify(c.op, c.level, c.data).has(rule_of(op)));
}

// Some index of the case lies in [lo, hi]: j + 2^W for an in-range j, which may be negative for a
// signed type. Where j + 2^W would still be in range the type's maximum stands in, which some
// seed must not need.
struct ExtremeRow {
  const char* name;
  OpKind op;
  DataType type;
  int rep;
  uint64_t lo, hi;
};

class IndexExtreme : public testing::TestWithParam<ExtremeRow> {};

TEST_P(IndexExtreme, IsWrittenIntoTheIndices) {
  const ExtremeRow& row = GetParam();
  const uint64_t max = row.type == DataType::INT32    ? uint64_t{INT32_MAX}
                       : row.type == DataType::UINT32 ? uint64_t{UINT32_MAX}
                       : row.type == DataType::INT64  ? uint64_t{INT64_MAX}
                                                      : UINT64_MAX;
  int in_window = 0;
  for (uint64_t seed = 1; seed <= 8; ++seed) {
    const Case c = sample(extreme_index_case(indices_cell(row.op, row.type), FeatureLevel::L5_0, row.rep,
                                             rule_of(row.op)),
                          seed, 25)
                       .value();
    const auto values = decode_indices(row.type, c.data.indices);
    const auto in = [&](int64_t v) {
      return static_cast<uint64_t>(v) >= row.lo && static_cast<uint64_t>(v) <= row.hi;
    };
    const bool there = std::any_of(values.begin(), values.end(), in);
    in_window += there;
    EXPECT_TRUE(there || std::any_of(values.begin(), values.end(),
                                     [&](int64_t v) { return static_cast<uint64_t>(v) == max; }))
        << "seed " << seed << ": no index in [" << row.lo << ", " << row.hi << "], nor the maximum";
  }
  EXPECT_GT(in_window, 0) << "the maximum stood in for every seed";
}

constexpr uint64_t k2p(int w) {
  return uint64_t{1} << w;
}

INSTANTIATE_TEST_SUITE_P(Robustness, IndexExtreme,
                         testing::Values(ExtremeRow{"uint64_low_32_bits_in_range", OpKind::SCATTER_ND,
                                                    DataType::UINT64, 3, k2p(32), k2p(32) + k2p(12)},
                                         ExtremeRow{"int64_low_32_bits_in_range", OpKind::GATHER_ELEMENTS,
                                                    DataType::INT64, 3, k2p(32) - k2p(12), k2p(32) + k2p(12)},
                                         ExtremeRow{"int64_just_past_2_31", OpKind::SCATTER_ND,
                                                    DataType::INT64, 4, k2p(31) - k2p(12), k2p(31) + k2p(12)},
                                         ExtremeRow{"uint32_low_16_bits_in_range", OpKind::GATHER_ELEMENTS,
                                                    DataType::UINT32, 5, k2p(16), k2p(16) + k2p(12)},
                                         ExtremeRow{"int32_low_8_bits_in_range", OpKind::SCATTER_ND,
                                                    DataType::INT32, 6, k2p(7), k2p(9)},
                                         // 2^32 + j does not fit: the maximum stands in.
                                         ExtremeRow{"uint32_cannot_hold_2_32", OpKind::SCATTER_ND,
                                                    DataType::UINT32, 3, k2p(32) - 1, k2p(32) - 1}),
                         [](const testing::TestParamInfo<ExtremeRow>& row) {
                           return std::string(row.param.name);
                         });

}  // namespace
}  // namespace dmlcert::props

// DirectML feature levels. For the five operators the support tables change only at 1_0, 2_1,
// 3_0, 4_1 and 5_0 (docs/semantics.md, "Types and feature levels").
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace dmlcert {

enum class FeatureLevel : uint8_t {
  L1_0,
  L2_0,
  L2_1,
  L3_0,
  L3_1,
  L4_0,
  L4_1,
  L5_0,
  L5_1,
  L5_2,
  L6_0,
  L6_1,
  L6_2,
  L6_3,
  L6_4,
};
inline constexpr int kFeatureLevelCount = 15;
inline constexpr FeatureLevel kDefaultFeatureLevel = FeatureLevel::L5_0;
// The levels at which some support table changes; every other level behaves as the highest of
// these at or below it.
inline constexpr FeatureLevel kTableLevels[] = {FeatureLevel::L1_0, FeatureLevel::L2_1, FeatureLevel::L3_0,
                                                FeatureLevel::L4_1, FeatureLevel::L5_0};

std::string_view name(FeatureLevel l);  // "5_0"
std::optional<FeatureLevel> parse_feature_level(std::string_view s);
FeatureLevel table_level(FeatureLevel l);
inline bool at_least(FeatureLevel l, FeatureLevel min) {
  return l >= min;
}

}  // namespace dmlcert

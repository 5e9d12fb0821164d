#include "dmlcert/feature_level.h"

#include <array>

namespace dmlcert {
namespace {
constexpr std::array<std::string_view, kFeatureLevelCount> kNames = {
    "1_0", "2_0", "2_1", "3_0", "3_1", "4_0", "4_1", "5_0", "5_1", "5_2", "6_0", "6_1", "6_2", "6_3", "6_4"};
}

std::string_view name(FeatureLevel l) {
  return kNames.at(static_cast<size_t>(l));
}

std::optional<FeatureLevel> parse_feature_level(std::string_view s) {
  for (size_t i = 0; i < kNames.size(); ++i)
    if (kNames[i] == s) return static_cast<FeatureLevel>(i);
  return std::nullopt;
}

FeatureLevel table_level(FeatureLevel l) {
  FeatureLevel best = FeatureLevel::L1_0;
  for (FeatureLevel t : kTableLevels)
    if (t <= l) best = t;
  return best;
}

}  // namespace dmlcert

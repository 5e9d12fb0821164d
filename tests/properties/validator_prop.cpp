// The generators and the validator agree: valid cases validate as valid (with no data finding),
// every invalid case is reported with the rule it was built to break, and every unspecified case
// is class U with its rule among the findings.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>

#include "dmlcert/rules.h"
#include "dmlcert/validate.h"
#include "testing/prop_util.h"

namespace dmlcert::props {
namespace {

std::vector<std::string> data_rules(const Case& c) {
  std::vector<std::string> out;
  for (const Violation& v : check_data(c.op, c.level, c.data)) out.push_back(v.rule);
  return out;
}

bool contains(const std::vector<std::string>& v, const std::string& x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

RC_GTEST_PROP(ValidatorProp, ValidCasesAreValid, ()) {
  const FeatureLevel level = *rc::gen::elementOf(proptest::tested_levels());
  const Case c = *valid_case(level);
  const Validation v = validate(c.op, c.level);
  RC_ASSERT(v.invalid.empty());
  RC_ASSERT(v.unspecified.empty());
  RC_ASSERT(data_rules(c).empty());
}

RC_GTEST_PROP(ValidatorProp, ReportsTheRuleEveryInvalidCaseBreaks, ()) {
  const FeatureLevel level = *rc::gen::elementOf(proptest::tested_levels());
  const std::string rule = *rc::gen::elementOf(invalid_rules(level));
  RC_TAG(rule);
  const Case c = *(*invalid_case(rule, level));
  RC_ASSERT(c.violates == std::vector<std::string>{rule});
  const Validation v = validate(c.op, c.level);
  RC_ASSERT(v.case_class() == CaseClass::Invalid);
  RC_ASSERT(v.has(rule));
}

RC_GTEST_PROP(ValidatorProp, ClassifiesEveryUnspecifiedCaseByItsRule, ()) {
  const FeatureLevel level = *rc::gen::elementOf(proptest::tested_levels());
  const std::string rule = *rc::gen::elementOf(unspecified_rules(level));
  RC_TAG(rule);
  const Case c = *(*unspecified_case(rule, level));
  const Validation v = validate(c.op, c.level);
  RC_ASSERT(v.invalid.empty());
  std::vector<std::string> found = data_rules(c);
  for (const Violation& x : v.unspecified) found.push_back(x.rule);
  RC_ASSERT(contains(found, rule));
}

// Every rule of the catalog has a generator at some level (OP.FEATURE_LEVEL needs one before 2_1).
TEST(GeneratorCatalog, EveryRuleHasAGenerator) {
  std::vector<FeatureLevel> levels = proptest::tested_levels();
  levels.push_back(FeatureLevel::L2_0);
  for (const Rule& r : rule_catalog()) {
    SCOPED_TRACE(std::string(r.id));
    bool reachable = false;
    for (FeatureLevel l : levels)
      reachable = reachable || (makes_invalid(r) ? invalid_case(r.id, l).has_value()
                                                 : unspecified_case(r.id, l).has_value());
    EXPECT_TRUE(reachable);
  }
}

// Every sampled case of every (level, rule) pair, not just the ones a random property run picks.
TEST(GeneratorCatalog, EveryRuleAtEveryLevelIsReported) {
  for (FeatureLevel level : proptest::tested_levels()) {
    for (const std::string& rule : invalid_rules(level)) {
      for (uint64_t seed = 0; seed < 5; ++seed) {
        SCOPED_TRACE(std::string(name(level)) + " " + rule + " seed " + std::to_string(seed));
        const Case c = sample(*invalid_case(rule, level), seed, static_cast<int>(seed * 10)).value();
        EXPECT_TRUE(validate(c.op, c.level).has(rule));
      }
    }
    for (const std::string& rule : unspecified_rules(level)) {
      for (uint64_t seed = 0; seed < 5; ++seed) {
        SCOPED_TRACE(std::string(name(level)) + " " + rule + " seed " + std::to_string(seed));
        const Case c = sample(*unspecified_case(rule, level), seed, static_cast<int>(seed * 10)).value();
        const Validation v = validate(c.op, c.level);
        EXPECT_TRUE(v.invalid.empty());
        std::vector<std::string> found = data_rules(c);
        for (const Violation& x : v.unspecified) found.push_back(x.rule);
        EXPECT_TRUE(contains(found, rule));
      }
    }
  }
}

}  // namespace
}  // namespace dmlcert::props

// Properties every backend under test must have, judged by the Runner with the reference as the
// oracle: it rejects every invalid case without writing an output byte, it gives the reference
// result on valid cases (the differential property), and it survives unspecified cases with an
// admissible result. Parameterized over make_backend() names; a backend that is not built is
// skipped.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "reference/reference.h"
#include "test_util.h"
#include "testing/prop_util.h"

namespace dmlcert::props {
namespace {

class BackendProp : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    under_test_ = proptest::backend_or_null(GetParam());
    if (!under_test_) GTEST_SKIP() << "backend '" << GetParam() << "' is not built";
    oracle_ = reference::make_oracle();
  }
  // The Runner judges a case; the property holds when the outcome is not a failure.
  void check(const rc::Gen<Case>& cases) {
    Runner runner(*under_test_, *oracle_);
    rc::detail::checkGTest([&] {
      const Case c = *cases;
      RC_TAG(name(c.expect));
      const CaseReport r = test::judge(runner, c);
      RC_LOG() << "case: " << to_json(c, false) << "\noutcome: " << name(r.outcome) << ": " << r.detail
               << "\n";
      RC_ASSERT(!fails_run(r.outcome));
    });
  }
  std::unique_ptr<Backend> under_test_;
  std::unique_ptr<Oracle> oracle_;
};

rc::Gen<Case> any_invalid_case() {
  return rc::gen::mapcat(rc::gen::elementOf(proptest::tested_levels()), [](FeatureLevel level) {
    return rc::gen::mapcat(rc::gen::elementOf(invalid_rules(level)),
                           [level](const std::string& rule) { return *invalid_case(rule, level); });
  });
}

rc::Gen<Case> any_unspecified_case() {
  return rc::gen::mapcat(rc::gen::elementOf(proptest::tested_levels()), [](FeatureLevel level) {
    return rc::gen::mapcat(rc::gen::elementOf(unspecified_rules(level)),
                           [level](const std::string& rule) { return *unspecified_case(rule, level); });
  });
}

rc::Gen<Case> any_valid_case() {
  return rc::gen::mapcat(rc::gen::elementOf(proptest::tested_levels()),
                         [](FeatureLevel level) { return valid_case(level); });
}

TEST_P(BackendProp, RejectsEveryInvalidCaseWithoutWritingOutput) {
  check(any_invalid_case());
}
TEST_P(BackendProp, MatchesTheReferenceOnValidCases) {
  check(any_valid_case());
}
TEST_P(BackendProp, SurvivesUnspecifiedCasesWithAnAdmissibleResult) {
  check(any_unspecified_case());
}

INSTANTIATE_TEST_SUITE_P(Backends, BackendProp, ::testing::ValuesIn(proptest::backend_names()),
                         [](const ::testing::TestParamInfo<std::string>& row) { return row.param; });

}  // namespace
}  // namespace dmlcert::props

// The corpora and the rule catalog agree in both directions: every rule ID a case names exists,
// every doc/inferred rule has an invalid case, every class-U rule has an unspecified case, and the
// validator classifies each case exactly as its file says.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

#include "dmlcert/case.h"
#include "dmlcert/rules.h"
#include "dmlcert/validate.h"

namespace dmlcert {
namespace {

const LoadedCases& corpora() {
  static const LoadedCases loaded = load_cases({DMLCERT_SOURCE_DIR "/corpora"});
  return loaded;
}

// Rule ID -> names of the cases of one class that name it.
std::map<std::string, std::vector<std::string>> cases_naming(CaseClass cls) {
  std::map<std::string, std::vector<std::string>> by_rule;
  for (const Case& c : corpora().cases)
    if (c.expect == cls)
      for (const std::string& id : c.violates) by_rule[id].push_back(c.name);
  return by_rule;
}

bool is_class_u(RuleTag t) {
  return t == RuleTag::Unspecified || t == RuleTag::DocData;
}

TEST(CorpusFiles, AllLoadWithoutErrors) {
  for (const CaseError& e : corpora().errors) ADD_FAILURE() << e.to_string();
  EXPECT_GE(corpora().cases.size(), 70u);
}

TEST(CorpusFiles, CaseNamesAreUnique) {
  std::set<std::string> seen;
  for (const Case& c : corpora().cases)
    EXPECT_TRUE(seen.insert(c.name).second) << "duplicate name: " << c.name;
}

TEST(CorpusCatalog, EveryNamedRuleIsInTheCatalog) {
  for (const Case& c : corpora().cases)
    for (const std::string& id : c.violates) EXPECT_NE(find_rule(id), nullptr) << c.name << " names " << id;
}

TEST(CorpusCatalog, EveryNamedRuleMatchesTheCaseClass) {
  // An invalid case names rules that make a case invalid; an unspecified one names class U rules.
  for (const Case& c : corpora().cases) {
    for (const std::string& id : c.violates) {
      const Rule* r = find_rule(id);
      if (!r) continue;  // reported by EveryNamedRuleIsInTheCatalog
      EXPECT_EQ(c.expect == CaseClass::Invalid, makes_invalid(*r)) << c.name << " names " << id;
    }
  }
}

TEST(CorpusCatalog, EveryDocAndInferredRuleHasAnInvalidCase) {
  const auto named = cases_naming(CaseClass::Invalid);
  for (const Rule& r : rule_catalog()) {
    if (r.tag == RuleTag::Doc || r.tag == RuleTag::Inferred) {
      EXPECT_TRUE(named.count(std::string(r.id))) << "no invalid case in corpora/ names " << r.id;
    }
  }
}

TEST(CorpusCatalog, EveryClassURuleHasAnUnspecifiedCase) {
  const auto named = cases_naming(CaseClass::Unspecified);
  for (const Rule& r : rule_catalog()) {
    if (is_class_u(r.tag)) {
      EXPECT_TRUE(named.count(std::string(r.id))) << "no unspecified case in corpora/ names " << r.id;
    }
  }
}

TEST(CorpusCatalog, ValidatorFindsExactlyTheRulesEachCaseNames) {
  for (const Case& c : corpora().cases) {
    SCOPED_TRACE(c.name);
    const Validation v = validate(c.op, c.level);
    std::vector<Violation> findings = v.invalid;
    if (findings.empty()) {
      findings = v.unspecified;
      for (Violation& d : check_data(c.op, c.level, c.data)) findings.push_back(std::move(d));
    }
    const CaseClass cls = !v.invalid.empty() ? CaseClass::Invalid
                                             : (findings.empty() ? CaseClass::Valid : CaseClass::Unspecified);
    EXPECT_EQ(name(cls), name(c.expect));
    std::set<std::string> found, listed(c.violates.begin(), c.violates.end());
    std::string messages;
    for (const Violation& f : findings) {
      found.insert(f.rule);
      messages += "\n  " + f.rule + ": " + f.message;
    }
    EXPECT_EQ(found, listed) << "validator findings:" << messages;
  }
}

// The nine worked examples of the seed documents, errata corrected, with their printed results.
TEST(CorpusSeedExamples, AllNinePresentAsValidCasesWithExpectedOutput) {
  const std::string_view prefixes[] = {
      "slice/doc-example-1",  "slice/doc-example-2",      "slice1/doc-example-1",
      "slice1/doc-example-2", "scatter_nd/doc-example-1", "reduce/doc-example-1",
      "reduce/doc-example-2", "reduce/doc-example-3",     "gather_elements/doc-example-1"};
  for (std::string_view prefix : prefixes) {
    SCOPED_TRACE(std::string(prefix));
    const auto& cases = corpora().cases;
    const auto it = std::find_if(cases.begin(), cases.end(),
                                 [&](const Case& c) { return std::string_view(c.name).starts_with(prefix); });
    ASSERT_NE(it, cases.end()) << "missing";
    EXPECT_EQ(it->expect, CaseClass::Valid);
    EXPECT_TRUE(it->expected_output.has_value());
  }
}

}  // namespace
}  // namespace dmlcert

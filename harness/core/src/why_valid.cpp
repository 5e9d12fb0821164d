#include "dmlcert/why_valid.h"

#include <algorithm>
#include <cctype>
#include <vector>

#include "dmlcert/rules.h"
#include "dmlcert/validate.h"

namespace dmlcert {
namespace {

// The catalog rules a backend cited: by ID in its violations, or as a word of its message (a
// plugin's message is free text; "GATHERELEMENTS.INDEX_RANGE: index 7 out of range" cites one).
std::vector<const Rule*> cited_rules(const ExecResult& exec) {
  std::vector<const Rule*> cited;
  auto add = [&](const Rule* r) {
    if (r && true) cited.push_back(r);
  };
  for (const Violation& v : exec.violations) add(find_rule(v.rule));
  for (const Rule& r : rule_catalog()) {
    for (size_t at = exec.message.find(r.id); at != std::string::npos; at = exec.message.find(r.id, at + 1)) {
      // A whole word only: SLICE.RANK must not match inside SLICE1.RANK's neighbour text.
      const size_t end = at + r.id.size();
      const auto word = [](char ch) {
        return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_' || ch == '.';
      };
      if ((at == 0 || !word(exec.message[at - 1])) &&
          (end == exec.message.size() || !word(exec.message[end]))) {
        add(&r);
        break;
      }
    }
  }
  return cited;
}

// The highest table level below c.level at which the case is not valid, with the finding that
// makes it so; nothing when it is valid at every lower table level.
std::string level_reason(const Case& c) {
  const FeatureLevel at = table_level(c.level);
  for (auto it = std::rbegin(kTableLevels); it != std::rend(kTableLevels); ++it) {
    if (*it >= at) continue;
    const Classification below = classify(c.op, *it, c.data);
    if (below.case_class == CaseClass::Valid) continue;
    const FeatureLevel from = *std::find_if(std::begin(kTableLevels), std::end(kTableLevels),
                                            [&](FeatureLevel l) { return l > *it; });
    const Violation& v = below.findings.front();
    return "valid from " + std::string(name(from)) + "; at " + std::string(name(*it)) + " it breaks " +
           below.rule_list() + " (" + v.message + ")";
  }
  return "valid at every level from " + std::string(name(kTableLevels[0]));
}

}  // namespace

std::string why_valid(const Case& c, const ExecResult& rejected) {
  std::string s = "the case breaks no rule at " + std::string(name(c.level));
  for (const Rule* r : cited_rules(rejected))
    s += "; it keeps " + std::string(r->id) + ", which the backend named: \"" + std::string(r->text) + "\"";
  return s + "; " + level_reason(c);
}

}  // namespace dmlcert

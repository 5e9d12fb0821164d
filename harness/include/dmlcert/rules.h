// The rule catalog of SPEC.md, as data. Rule IDs are a public interface: validators report them,
// case files name them, reports count them.
#pragma once

#include <optional>
#include <span>
#include <string_view>

namespace dmlcert {

enum class RuleTag {
  Doc,          // stated in a seed or in the DirectML reference
  Inferred,     // the only reading that makes the documented formulas well defined
  Unspecified,  // the documentation leaves it open: class U
  DocData,      // "doc / U": a documented constraint on data; data that breaks it is class U
};
std::string_view name(RuleTag t);  // "doc", "inferred", "unspecified", "doc/U"

struct Rule {
  std::string_view id;    // "SLICE1.WINDOW_BOUNDS"
  RuleTag tag;
  std::string_view text;  // one line
};

std::span<const Rule> rule_catalog();
const Rule* find_rule(std::string_view id);
// Class I rules are Doc and Inferred; Unspecified and DocData make a case class U.
bool makes_invalid(const Rule& r);

}  // namespace dmlcert

// The rule catalog (docs/rules.md), as data. Rule IDs are a public interface: validators report
// them, case files name them, reports count them. The generic rules (T.*, OP.*) are listed in
// rules.cpp; each operator lists its own in its declaration file (src/ops/<operator>.cpp).
#pragma once

#include <array>
#include <optional>
#include <span>
#include <string_view>

#include "dmlcert/behaviour.h"

namespace dmlcert {

enum class RuleTag {
  Doc,          // stated in a seed or in the DirectML reference
  Inferred,     // the only reading that makes the documented formulas well defined
  Unspecified,  // the documentation leaves it open: class U
  DocData,      // "doc / U": a documented constraint on data; data that breaks it is class U
};
std::string_view name(RuleTag t);  // "doc", "inferred", "unspecified", "doc/U"

// What a backend that executes a class U case may produce (docs/semantics.md, "Three classes of case").
enum class Admits {
  Formula,   // the operator's formula read literally is the one admissible result
  Readings,  // any of the rule's readings (an element passes when one of them gives it)
  Anything,  // the documentation gives no result: any output, as long as nothing crashes
};

struct Rule {
  std::string_view id;  // "SLICE1.WINDOW_BOUNDS"
  RuleTag tag;
  std::string_view text;  // one line
  // Class U rules only: what an execution may produce, and the readings that produce it.
  Admits admits = Admits::Formula;
  std::span<const Behaviour> readings = {};
  // Class U rules only: the behaviours the profile names, each by the reference reading that
  // produces it (docs/design.md, "Behaviour profile"). A result that matches none is "other".
  std::span<const ProfileReading> profile = {};
};

// Profile readings more than one rule names.
namespace profiles {
// The rule's formula read literally, as the reference executes it.
inline constexpr std::array kTheFormula = {ProfileReading{"the formula", {}}};
// What a backend that executes an out-of-range index did with it.
inline constexpr std::array kIndexPlacement = {ProfileReading{"clamped", {Behaviour::IndexClamped, 0}},
                                               ProfileReading{"wrapped", {Behaviour::IndexWrapped, 0}}};
}  // namespace profiles

std::span<const Rule> rule_catalog();

// The robustness checks: what a backend must not do to the process that hosts it, checked around
// its calls rather than on a descriptor. Reports count each as `robustness/ID`.
struct RobustnessCheck {
  std::string_view id;  // "BACKEND.SIGNAL_HANDLERS"
  std::string_view text;
};
std::span<const RobustnessCheck> robustness_checks();
const Rule* find_rule(std::string_view id);
// Class I rules are Doc and Inferred; Unspecified and DocData make a case class U.
bool makes_invalid(const Rule& r);

}  // namespace dmlcert

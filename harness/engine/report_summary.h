// What every human-readable report format says besides the matrix: failures grouped by cause,
// the behaviour profile and the expectations, in the same words everywhere.
#pragma once

#include <string>
#include <vector>

#include "report.h"

namespace dmlcert::cert {

// Failures that share an operator (or rule check: CheckId::subject), an outcome and a detail once
// its numbers are set aside: one cause, however many cells and levels show it.
struct FailureGroup {
  std::string where;  // "SLICE1", "invalid/SLICE1.WINDOW_BOUNDS", "corpus", "robustness/BACKEND.DESTROY"
  Outcome outcome = Outcome::Failed;
  std::string cause;                     // the first failure's detail
  bool known = false;                    // every failure in it is a known one (--expect)
  std::vector<const Failure*> failures;  // in the order they were found
};
std::vector<FailureGroup> group_failures(const Report& r);
// The cause a failure belongs to, as group_failures() groups them: its operator or rule check (the
// subject of the case it failed in), its outcome and the kind of its detail. What the engine asks
// before it investigates a failure again (EngineOptions::cause).
std::string cause_key(const CheckId& id, Outcome outcome, const std::string& detail);

// A count and its noun: "1 cause", "2 causes".
inline std::string counted(size_t n, std::string_view noun) {
  return std::to_string(n) + " " + std::string(noun) + (n == 1 ? "" : "s");
}

// "last write wins 6/6, first write wins 1/6 (every time)" or "rejected 8/8 (every time)": how
// many of the rule's cases fit each behaviour, most first.
std::string profile_text(const BehaviourCounts& b);

// "3 known failures (KNOWN.txt), 1 new: ...; 2 entries now pass; 1 expired".
std::string expectations_text(const ExpectationCheck& e);

}  // namespace dmlcert::cert

// What every human-readable report format says besides the matrix: failures grouped by cause,
// the behaviour profile and the expectations, in the same words everywhere.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "report.h"

namespace dmlcert::cert {

// The bug a failure shows, whatever case, cell, level or sequence showed it: where it lives (the
// operator with its REDUCE function, or the rule an invalid case breaks) and its family (wrong
// output, valid case rejected, crash by signal ..., invalid case accepted, ...). A class U case
// that executes to an inadmissible result is a wrong output of its operator, as a valid one is.
// The family of a call that ran and went wrong, whether it gave a wrong value, touched memory
// outside its bindings, crashed or hung: the same wrong index gives any of them.
inline constexpr std::string_view kWrongExecutionFamily = "wrong output, memory fault or hang";

struct Cause {
  std::string where;   // "SLICE1", "REDUCE.SUM", "invalid/SLICE1.STRIDE_ZERO", "corpus", ...
  std::string family;  // "wrong output", "valid case rejected (invalid-argument)", ...
  std::string name() const { return where + ": " + family; }
};
// `op`: the case's operator (Failure::op), for the cases whose check does not name it (class U,
// robustness, corpus, fuzz); without it a rule's operator is read from its ID, without its function.
Cause cause_of(const CheckId& id, Outcome outcome, const std::string& detail, const std::string& op = "");
Cause cause_of(const Failure& f);
// The cause as one string: what group_failures() groups by, and what the engine asks before it
// investigates a failure again (EngineOptions::cause).
std::string cause_key(const CheckId& id, Outcome outcome, const std::string& detail,
                      const std::string& op = "");
std::string cause_key(const Failure& f);

// The failures of one cause: one bug, however many cells, levels and sequences show it.
struct FailureGroup {
  Cause cause;
  std::string where;                     // cause.where
  Outcome outcome = Outcome::Failed;     // the first failure's
  std::string detail;                    // the first failure's
  bool known = false;                    // every failure in it is a known one (--expect)
  std::vector<const Failure*> failures;  // in the order they were found
  std::vector<std::string> checks;       // what they count against (failing_keys() names), first seen first
  std::vector<FeatureLevel> levels;      // the levels whose cases failed, lowest first
  // The failure that shows the cause best: the first with a shrunk case, else the first with a
  // sequence, else the first with a case file, else the first.
  const Failure* example = nullptr;
};
std::vector<FailureGroup> group_failures(const Report& r);
// How many failures the causes hold (a flaky one is in none unless the run counts it).
size_t failures_in(const std::vector<FailureGroup>& groups);
// The smallest file that reproduces a failure: its shrunk case, its sequence or its case file;
// empty when none was written.
std::string minimal_case(const Failure& f);
// "SLICE/input/FLOAT32/r4, SLICE/output/INT8/r2 and 3 more": the first few of a list.
std::string first_few(const std::vector<std::string>& items, size_t shown = 3);
// "3_0, 4_1, 5_0".
std::string levels_text(const std::vector<FeatureLevel>& levels);

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

// A failure as the engine finds it and every report lists it: the case it belongs to, the check it
// counts against, the files that reproduce it and how well they do.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "check_id.h"
#include "dmlcert/runner.h"

namespace dmlcert::cert {

// Whether a failure came back when its case ran alone in a fresh backend process (docs/design.md,
// "The engine"). Unchecked: not asked (a known failure, one past the first few of its check, a
// second hang of a run).
enum class Confirmation { Reproduced, StateDependent, NotReproduced, Unchecked };
std::string_view name(
    Confirmation c);  // "reproduced alone", "state-dependent", "not reproduced", "unchecked"
std::optional<Confirmation> parse_confirmation(std::string_view text);

struct Failure {
  CheckId id;  // the case's: its repro files are named after it
  // The check it counts against: id.check(), except for a member of a family, which counts against
  // its own cell or the rule it breaks.
  CheckId counts_at;
  std::string case_name;
  // The case's operator with its REDUCE function ("REDUCE.SUM"): what a class U, robustness or
  // corpus case's cause is (report_summary.h, cause_of). Empty when not known.
  std::string op;
  Outcome outcome = Outcome::Failed;
  std::string detail;
  std::string repro;           // the case file
  std::string shrunk;          // the shrunk case file, when shrinking found a smaller one
  std::string sequence;        // state-dependent failures: the cases that reproduce it in one process
  size_t sequence_length = 0;  // how many cases the sequence holds (not kept in reports)
  Confirmation confirmation = Confirmation::Unchecked;
  std::string reproduce;  // the command line
  uint64_t seed = 0;
  std::string backend_output;  // what the backend printed during the failing call (capped)
  uint64_t backend_output_dropped = 0;
  // Not confirmed, bisected or shrunk: an earlier failure of the same cause was (EngineOptions::cause).
  bool cause_known = false;
  // Covered by the run's known-failure list (certify --expect): printed and reported as known.
  bool expected = false;
};

// A case's operator with its REDUCE function: "SLICE1", "REDUCE.SUM" (Failure::op).
std::string op_subject(const Case& c);

}  // namespace dmlcert::cert

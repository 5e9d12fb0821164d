// Runs one case against a backend under test and judges it against an oracle (docs/design.md,
// "One case"). Shared by `run`, `replay`, `fuzz` and `certify`, in-process and isolated alike.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "dmlcert/backend.h"
#include "dmlcert/case.h"
#include "dmlcert/case_buffers.h"
#include "dmlcert/compare.h"

namespace dmlcert {

// The result taxonomy (docs/design.md, "Outcomes"). Crash, Timeout, Oob, LateWrite and Limit
// only come from isolated or guarded execution. Flaky never comes from a run of one case: the
// engine makes it of a timeout that passed when run again alone with a longer deadline, or of a
// wrong result that never came back (engine.h, Engine::investigate_failure).
enum class Outcome {
  Passed,
  Failed,
  Unimplemented,
  Skipped,
  Mistrusted,
  Crash,
  Timeout,
  Oob,
  LateWrite,
  Limit,
  Flaky
};
inline constexpr int kOutcomeCount = 11;
std::string_view name(Outcome o);  // "passed", "failed", ...
std::optional<Outcome> parse_outcome(std::string_view s);
// Passed, Unimplemented, Skipped and Flaky do not fail a run; every other outcome does. A
// certification counts Flaky against the verdict only when asked (certify --flaky-fails).
bool fails_run(Outcome o);
// The detail of a case ended by fault f as `outcome`: the fault's message, after the fault's name
// only where the outcome does not already say it (a report line reads "oob: wrote 1 byte before
// ...", and "oob: input-written: ...").
std::string fault_detail(Fault f, Outcome outcome, const std::string& message);

// What a case's output may be. The reference backend provides one (reference::make_oracle(),
// backends/reference/reference.h); tests may substitute their own.
class Oracle {
 public:
  virtual ~Oracle() = default;
  // For a case that is not invalid: exactly one output for a valid case; for a class U case one
  // per admissible reading, or none when any output is admissible. Logical row-major outputs.
  // nullopt, with the reason, when the oracle cannot compute them (the case is then mistrusted).
  virtual std::optional<std::vector<Bytes>> admissible_outputs(const Case& c, const Classification& cls,
                                                               std::string* why) = 0;
  // For a class U case: the output under each behaviour its rules' profiles name (Rule::profile),
  // labelled ("clamped", "first write wins"); readings that do not apply to the case are left out.
  // Used to name what a backend did, never to judge it.
  struct Labelled {
    std::string label;
    Bytes output;
  };
  virtual std::vector<Labelled> profile_outputs(const Case& c, const Classification& cls) {
    (void)c, (void)cls;
    return {};
  }
};

struct CaseReport {
  Outcome outcome = Outcome::Passed;
  CaseClass case_class = CaseClass::Valid;  // as the validator classified it
  std::string detail;                       // why, in one line; empty when passed
  ExecResult exec;                          // what the backend returned
  bool executed = false;                    // whether the backend was called at all
  std::optional<Bytes> output;              // logical output, when the backend executed a case
  // Class U cases the backend was asked: what it did (docs/design.md, "Behaviour profile"):
  // "rejected", every profile label its output fits ("clamped", "first write wins", ...: a case
  // whose readings agree fits several), "other", or "error".
  std::vector<std::string> behaviours;
};

// 512 MiB: most generated cases need well under 1 MiB and a seed example a few bytes, but a
// certification's huge cases (an output of 56 MiB, past a CPU's last-level cache) need about 400;
// a run that means to test larger tensors says so.
inline constexpr uint64_t kDefaultMaxCaseBytes = uint64_t{512} << 20;

struct RunOptions {
  AccumulationProfile profile = AccumulationProfile::Default;
  // Buffers larger than this are not allocated; a case that needs more is Skipped.
  uint64_t max_buffer_bytes = uint64_t{1} << 30;
  // A case whose estimated footprint (case_footprint) is larger is Skipped before the oracle or
  // the backend allocates anything (`--max-case-bytes`).
  uint64_t max_case_bytes = kDefaultMaxCaseBytes;
  // After each call, wait this long for a late write of it (Backend::settle): replaying a case
  // alone, there is no later call to reveal one. 0: do not wait.
  double settle_seconds = 0;
  // The oracle computes with the backend under test itself (`--backend reference`): a case's own
  // expected_output then judges the backend directly instead of vouching for the oracle.
  bool oracle_is_under_test = false;
  // Where the case's bindings live: heap memory unless a run asks for guarded pages.
  std::function<std::unique_ptr<CaseBuffers>(const Case&, CaseClass, uint64_t, std::string*)> allocate =
      allocate_case_buffers;
};

class Runner {
 public:
  Runner(Backend& under_test, Oracle& oracle, RunOptions options = {});
  // Runs a case already classified: a run classifies each case once (the engine, harness/engine)
  // and hands the classification on, to every run of the case and of its shrinks.
  CaseReport run(const Case& c, const Classification& cls);
  Backend& under_test() { return under_test_; }

 private:
  // The profile labels a class U case's output fits (CaseReport::behaviours).
  std::vector<std::string> behaviours_of(const Case& c, const Classification& cls, const Bytes& output);
  // The case's verdict when the output the harness read is not one the call may leave, unless a
  // late fault of the call explains it (runner.cpp says why it asks).
  CaseReport output_failure(CaseReport& r, std::string detail);
  Backend& under_test_;
  Oracle& oracle_;
  RunOptions options_;
};

}  // namespace dmlcert

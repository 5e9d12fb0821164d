// Runs one case against a backend under test and judges it, with the reference backend as the
// oracle. Shared by `run`, `replay`, `fuzz` and `certify`.
#pragma once

#include <optional>
#include <string>

#include "dmlcert/backend.h"
#include "dmlcert/case.h"
#include "dmlcert/compare.h"

namespace dmlcert {

// The result taxonomy. Crash, Timeout and Oob only come from isolated or guarded execution.
enum class Outcome { Passed, Failed, Unimplemented, Skipped, Mistrusted, Crash, Timeout, Oob };
std::string_view name(Outcome o);  // "passed", "failed", ...

struct CaseReport {
  Outcome outcome = Outcome::Passed;
  CaseClass case_class = CaseClass::Valid;  // as the validator classified it
  std::string detail;                       // why, in one line; empty when passed
  ExecResult exec;                          // what the backend returned
  std::optional<Bytes> output;              // logical output, when the backend executed
};

struct RunOptions {
  AccumulationProfile profile = AccumulationProfile::Default;
  // Buffers larger than this are not allocated; a valid case that needs more is Skipped.
  uint64_t max_buffer_bytes = uint64_t{1} << 30;
};

class Runner {
 public:
  Runner(Backend& under_test, Backend& reference, RunOptions options = {});
  CaseReport run(const Case& c);

 private:
  Backend& under_test_;
  Backend& reference_;
  RunOptions options_;
};

}  // namespace dmlcert

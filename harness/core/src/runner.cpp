// One case: classify (once), decide whether the backend is asked at all, place the bindings,
// call, check the memory, judge the status and the output (docs/design.md, "One case").
#include "dmlcert/runner.h"

#include <algorithm>
#include <exception>

#include "dmlcert/strided_dims.h"
#include "dmlcert/why_valid.h"

namespace dmlcert {

std::string_view name(Outcome o) {
  switch (o) {
    case Outcome::Passed: return "passed";
    case Outcome::Failed: return "failed";
    case Outcome::Unimplemented: return "unimplemented";
    case Outcome::Skipped: return "skipped";
    case Outcome::Mistrusted: return "mistrusted";
    case Outcome::Crash: return "crash";
    case Outcome::Timeout: return "timeout";
    case Outcome::Oob: return "oob";
    case Outcome::LateWrite: return "late-write";
    case Outcome::Limit: return "limit";
    case Outcome::Flaky: return "flaky";
  }
  return "outcome?";
}

std::optional<Outcome> parse_outcome(std::string_view s) {
  for (int i = 0; i < kOutcomeCount; ++i)
    if (name(static_cast<Outcome>(i)) == s) return static_cast<Outcome>(i);
  return std::nullopt;
}

bool fails_run(Outcome o) {
  return o != Outcome::Passed && o != Outcome::Unimplemented && o != Outcome::Skipped && o != Outcome::Flaky;
}

std::string fault_detail(Fault f, Outcome outcome, const std::string& message) {
  const std::string fault(name(f));
  if (fault == name(outcome)) return message.empty() ? fault : message;
  return message.empty() ? fault : fault + ": " + message;
}

namespace {

std::string rule_list(const std::vector<Violation>& vs) {
  std::string s;
  for (const Violation& v : vs) s += (s.empty() ? "" : ", ") + v.rule;
  return s;
}

std::string status_text(const ExecResult& r) {
  std::string s(name(r.status));
  if (!r.message.empty()) s += ": " + r.message;
  if (!r.violations.empty())
    s += " [" + r.violations.front().rule + ": " + r.violations.front().message + "]";
  return s;
}

// A backend that throws has not crashed the harness: it returned an error.
ExecResult execute_guarded(Backend& b, const Case& c, CaseBuffers& buffers) {
  try {
    return b.execute(c.op, c.level, buffers.bindings());
  } catch (const std::exception& e) {
    return exec_result(Status::Error, Fault::None, std::string("the backend threw: ") + e.what());
  } catch (...) {
    return exec_result(Status::Error, Fault::None, "the backend threw a non-standard exception");
  }
}

std::optional<Outcome> fault_outcome(Fault f) {
  switch (f) {
    case Fault::None: return std::nullopt;
    case Fault::Crash: return Outcome::Crash;
    case Fault::Timeout: return Outcome::Timeout;
    case Fault::OutOfBounds:
    case Fault::InputWritten: return Outcome::Oob;
    case Fault::LateWrite: return Outcome::LateWrite;
    case Fault::Limit: return Outcome::Limit;
  }
  return Outcome::Failed;
}

// Waits up to `seconds` for late faults (Backend::settle): the first of the call `exec` reports
// becomes its fault, the others go on with it (ExecResult::late) for the engine to blame.
void take_late_faults(Backend& b, double seconds, ExecResult& exec) {
  for (LateFault& late : b.settle(seconds)) {
    if (late.call == exec.call && exec.fault == Fault::None)
      exec.fault = late.fault, exec.message = late.message;
    else
      exec.late.push_back(std::move(late));
  }
}

CaseReport finish(CaseReport& r, Outcome o, std::string detail) {
  r.outcome = o;
  r.detail = std::move(detail);
  return std::move(r);
}

}  // namespace

std::vector<std::string> Runner::behaviours_of(const Case& c, const Classification& cls,
                                               const Bytes& output) {
  const TensorDesc& out = *tensor(c.op, Role::OUTPUT);
  std::vector<std::string> fits;
  for (const Oracle::Labelled& l : oracle_.profile_outputs(c, cls))
    if (compare(out, expectation_for(c, l.output, options_.profile), output).ok &&
        std::find(fits.begin(), fits.end(), l.label) == fits.end())
      fits.push_back(l.label);
  if (fits.empty()) fits.push_back("other");
  return fits;
}

// An isolated backend's child puts a call's bindings out of reach only once the call is back, so a
// thread the backend left running can write into the output before that, where the write is not
// caught as late but read as the call's own: a wrong output that passes alone ("not reproduced").
// The backend's own round trip right after the call catches such a thread when it writes again
// at once; on a loaded machine it may not have run again by then. So before an output is blamed on
// the call, the backend is asked once more, without waiting (Backend::settle), for late faults of
// this call: a later look, not a certain one. One found makes the case that fault, with the wrong
// output in its detail.
CaseReport Runner::output_failure(CaseReport& r, std::string detail) {
  if (r.exec.call != 0) {  // only isolated backends number their calls, and only they can tell
    take_late_faults(under_test_, 0, r.exec);
    if (auto o = fault_outcome(r.exec.fault))
      return finish(r, *o,
                    fault_detail(r.exec.fault, *o, r.exec.message) +
                        "; the output, read after the call had returned, was wrong too (" + detail + ")");
  }
  return finish(r, Outcome::Failed, std::move(detail));
}

namespace {

std::string coord_text(const Coord& c) {
  std::string s = "[";
  for (size_t i = 0; i < c.size(); ++i) s += (i ? "," : "") + std::to_string(c[i]);
  return s + "]";
}

// What makes a case's input data impossible to bind (step 1b of Runner::run), or "".
std::string data_conflict(const Case& c) {
  for (const Role role : roles(op_kind(c.op))) {
    const TensorDesc* t = tensor(c.op, role);
    if (!t || !is_input_role(role)) continue;
    if (const auto conflict = shared_element_conflict(*t, c.data.of(role)))
      return "the case's " + std::string(name(role)) + " data gives elements " +
             coord_text(unravel(conflict->first, t->sizes)) + " and " +
             coord_text(unravel(conflict->second, t->sizes)) + ", which share memory (element offset " +
             std::to_string(conflict->offset) +
             "), different values: the backend would be given only one of them";
  }
  return {};
}

}  // namespace

Runner::Runner(Backend& under_test, Oracle& oracle, RunOptions options)
    : under_test_(under_test), oracle_(oracle), options_(std::move(options)) {}

CaseReport Runner::run(const Case& c, const Classification& cls) {
  CaseReport r;
  r.case_class = cls.case_class;

  // (1) The case file must agree with the validator, or neither can be trusted.
  if (c.expect != cls.case_class) {
    std::string detail = "the case file expects " + std::string(name(c.expect)) +
                         " but the validator classifies it " + std::string(name(cls.case_class));
    if (!cls.findings.empty()) detail += " (" + cls.rule_list() + ")";
    return finish(r, Outcome::Mistrusted, detail);
  }

  // (1b) The data must be what the bindings can hold: two logical elements that share memory (a
  // broadcast input) with different values would hand the backend one of them only, while the
  // class and the oracle were decided on both. Such a case is not the case it says it is.
  if (const std::string conflict = data_conflict(c); !conflict.empty())
    return finish(r, Outcome::Mistrusted, conflict);

  // (2) What the backend does not claim is not held against it.
  if (c.level > under_test_.max_feature_level())
    return finish(r, Outcome::Skipped,
                  "feature level " + std::string(name(c.level)) + " is above the backend's maximum " +
                      std::string(name(under_test_.max_feature_level())));
  const OpKind op = op_kind(c.op);
  const DataType main_type = tensor(c.op, Role::INPUT)->type;
  // The backend's scope: the (operator, function, type) cells it claims. Outside it, a valid case
  // is not run, and an invalid or unspecified one may be refused with any status but OK.
  // A backend may also take some index types only (implements_index_type).
  const std::optional<DataType> indices = index_type(c.op);
  const bool index_claimed = !indices || under_test_.implements_index_type(op, *indices);
  const bool claimed = index_claimed && under_test_.implements(op, reduce_function(c.op), main_type);
  if (cls.case_class == CaseClass::Valid && !claimed) {
    std::string cell(name(op));
    if (auto f = reduce_function(c.op)) cell += " " + name(*f);
    return finish(r, Outcome::Unimplemented,
                  "the backend does not implement " + cell + " on " + std::string(name(main_type)) +
                      (index_claimed ? "" : " with " + std::string(name(*indices)) + " indices"));
  }

  // (3) Memory, estimated before anything is allocated: a case too large for this run is not
  // attempted, by the oracle or the backend.
  if (const CaseFootprint f = case_footprint(c, cls.case_class); f.total > options_.max_case_bytes)
    return finish(r, Outcome::Skipped,
                  "the case " + f.describe(c) + ", more than the limit of " +
                      std::to_string(options_.max_case_bytes) + " bytes (--max-case-bytes)");

  // (4) The expected outputs, before the backend runs: a case the oracle cannot judge is not run.
  std::optional<std::vector<Bytes>> admissible;
  if (cls.case_class != CaseClass::Invalid) {
    std::string why;
    admissible = oracle_.admissible_outputs(c, cls, &why);
    if (!admissible) return finish(r, Outcome::Mistrusted, why);
    if (cls.case_class == CaseClass::Valid && admissible->empty())
      return finish(r, Outcome::Mistrusted, "the oracle gave no output for a valid case");
  }

  // (5) The bindings, (6) the call.
  std::string why;
  auto buffers = options_.allocate(c, cls.case_class, options_.max_buffer_bytes, &why);
  if (!buffers) return finish(r, Outcome::Skipped, why);
  r.exec = execute_guarded(under_test_, c, *buffers);
  r.executed = true;
  if (options_.settle_seconds > 0 && r.exec.fault == Fault::None)
    take_late_faults(under_test_, options_.settle_seconds, r.exec);
  const ExecResult& exec = r.exec;
  if (exec.not_asked && exec.fault == Fault::None)
    return finish(r, Outcome::Skipped, "not asked: " + exec.message);
  if (auto o = fault_outcome(exec.fault)) return finish(r, *o, fault_detail(exec.fault, *o, exec.message));
  if (!buffers->inputs_intact()) return finish(r, Outcome::Oob, "the backend wrote to an input buffer");
  if (!buffers->guards_intact())
    return finish(r, Outcome::Oob, "the backend wrote past the end of a binding");
  // A rejection, in any class, leaves every output byte (padding included) as it was.
  if (exec.status != Status::Ok && !buffers->output_untouched())
    return output_failure(r, std::string(name(cls.case_class)) + " case was rejected (" + status_text(exec) +
                                 ") but output bytes were written");
  if (exec.status == Status::Ok && cls.case_class != CaseClass::Invalid) r.output = buffers->output();

  // (7) The verdict.
  const TensorDesc& out = *tensor(c.op, Role::OUTPUT);
  switch (cls.case_class) {
    case CaseClass::Invalid: {
      const std::string broken = cls.rule_list();
      if (!claimed && exec.status != Status::Ok) return finish(r, Outcome::Passed, "");
      if (exec.status != Status::InvalidArgument)
        return finish(r, Outcome::Failed,
                      "invalid case (" + broken + ") got status " + std::string(name(exec.status)) +
                          " instead of invalid-argument");
      if (under_test_.reports_rules()) {
        // The case names the rules it breaks; without names, any rule the validator found counts.
        std::vector<std::string> wanted = c.violates;
        if (wanted.empty())
          for (const Violation& v : cls.findings) wanted.push_back(v.rule);
        const bool named =
            std::any_of(exec.violations.begin(), exec.violations.end(), [&](const Violation& v) {
              return std::find(wanted.begin(), wanted.end(), v.rule) != wanted.end();
            });
        if (!named) {
          std::string want;
          for (const std::string& w : wanted) want += (want.empty() ? "" : ", ") + w;
          return finish(r, Outcome::Failed,
                        "rejected, but reported rules [" +
                            (exec.violations.empty() ? "none" : rule_list(exec.violations)) +
                            "] name none of [" + want + "]");
        }
      }
      return finish(r, Outcome::Passed, "");
    }
    case CaseClass::Unspecified: {
      r.behaviours = exec.status == Status::Ok ? behaviours_of(c, cls, *r.output)
                     : exec.status == Status::InvalidArgument || exec.status == Status::Unsupported
                         ? std::vector<std::string>{"rejected"}
                         : std::vector<std::string>{"error"};
      if (exec.status == Status::InvalidArgument || exec.status == Status::Unsupported ||
          (!claimed && exec.status != Status::Ok))
        return finish(r, Outcome::Passed, "");
      if (exec.status != Status::Ok)
        return finish(r, Outcome::Failed, "unspecified case got status " + status_text(exec));
      if (admissible->empty()) return finish(r, Outcome::Passed, "");  // any output is admissible
      Expectation e = expectation_for(c, admissible->front(), options_.profile);
      e.candidates = std::move(*admissible);
      const CompareResult cmp = compare(out, e, *r.output);
      if (!cmp.ok) return output_failure(r, "executed to an inadmissible result: " + cmp.summary());
      return finish(r, Outcome::Passed, "");
    }
    case CaseClass::Valid: {
      if (exec.status != Status::Ok)
        return finish(r, Outcome::Failed,
                      "valid case got status " + status_text(exec) + "; " + why_valid(c, exec));
      Bytes expected = std::move(admissible->front());
      if (c.expected_output && !options_.oracle_is_under_test) {
        // A case file's expected output is only as good as its agreement with the oracle.
        const CompareResult agree =
            compare(out, expectation_for(c, *c.expected_output, options_.profile), expected);
        if (!agree.ok)
          return finish(
              r, Outcome::Mistrusted,
              "the reference backend disagrees with the case's expected_output: " + agree.summary());
      }
      if (c.expected_output) expected = *c.expected_output;
      const CompareResult cmp = compare(out, expectation_for(c, expected, options_.profile), *r.output);
      if (!cmp.ok) return output_failure(r, "wrong output: " + cmp.summary());
      return finish(r, Outcome::Passed, "");
    }
  }
  return r;
}

}  // namespace dmlcert

#include "dmlcert/runner.h"

#include <algorithm>
#include <exception>

#include "dmlcert/case_buffers.h"
#include "reference/reference.h"

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
  }
  return "outcome?";
}

namespace {

std::string rule_list(const std::vector<Violation>& vs) {
  std::string s;
  for (const Violation& v : vs) s += (s.empty() ? "" : ", ") + v.rule;
  return s;
}

std::string first_message(const std::vector<Violation>& vs) {
  return vs.empty() ? std::string() : vs.front().rule + ": " + vs.front().message;
}

// The validator's verdict on descriptor and data, with the findings that decided it.
struct Classification {
  CaseClass case_class = CaseClass::Valid;
  std::vector<Violation> findings;
};

Classification classify(const Case& c) {
  Validation v = validate(c.op, c.level);
  if (v.case_class() == CaseClass::Invalid) return {CaseClass::Invalid, v.invalid};
  // Data rules (index ranges, duplicates, overflow, non-finite data) only apply to descriptors
  // that are not invalid.
  std::vector<Violation> data = check_data(c.op, c.level, c.data);
  v.unspecified.insert(v.unspecified.end(), data.begin(), data.end());
  return {v.case_class(), v.unspecified};
}

// A backend that throws has not crashed the harness: it returned an error.
ExecResult execute_guarded(Backend& b, const Case& c, CaseBuffers& buffers) {
  try {
    return b.execute(c.op, c.level, buffers.bindings());
  } catch (const std::exception& e) {
    return ExecResult{Status::Error, Fault::None, std::string("the backend threw: ") + e.what(), {}};
  } catch (...) {
    return ExecResult{Status::Error, Fault::None, "the backend threw a non-standard exception", {}};
  }
}

std::optional<Outcome> fault_outcome(Fault f) {
  switch (f) {
    case Fault::None: return std::nullopt;
    case Fault::Crash: return Outcome::Crash;
    case Fault::Timeout: return Outcome::Timeout;
    case Fault::OutOfBounds:
    case Fault::InputWritten: return Outcome::Oob;
  }
  return Outcome::Failed;
}

// Takes the report by reference so that `detail` may be built from it: the report is only
// moved out once every argument has been evaluated.
CaseReport finish(CaseReport& r, Outcome o, std::string detail) {
  r.outcome = o;
  r.detail = std::move(detail);
  return std::move(r);
}

std::optional<Bytes> reference_output(const Case& c, Backend& reference, const RunOptions& options,
                                      std::string* why) {
  auto buffers = allocate_case_buffers(c, CaseClass::Valid, options.max_buffer_bytes, why);
  if (!buffers) return std::nullopt;
  const ExecResult ref = execute_guarded(reference, c, *buffers);
  if (ref.status != Status::Ok || ref.fault != Fault::None) {
    *why = "the reference backend did not execute this valid case: " + std::string(name(ref.status)) +
           (ref.message.empty() ? "" : ": " + ref.message) +
           (ref.violations.empty() ? "" : " [" + first_message(ref.violations) + "]");
    return std::nullopt;
  }
  return buffers->output();
}

CaseReport judge_invalid(CaseReport r, const Case& c, const std::vector<Violation>& findings,
                         const CaseBuffers& buffers, bool reports_rules) {
  const std::string broken = rule_list(findings);
  if (r.exec.status != Status::InvalidArgument)
    return finish(r, Outcome::Failed,
                  "invalid case (" + broken + ") got status " + std::string(name(r.exec.status)) +
                      " instead of invalid-argument");
  if (!buffers.output_untouched())
    return finish(r, Outcome::Failed,
                  "invalid case (" + broken + ") was rejected but output bytes were written");
  if (reports_rules) {
    // The case names the rules it breaks; without names, any rule the validator found counts.
    std::vector<std::string> wanted = c.violates;
    if (wanted.empty())
      for (const Violation& v : findings) wanted.push_back(v.rule);
    const bool named = std::any_of(
        r.exec.violations.begin(), r.exec.violations.end(),
        [&](const Violation& v) { return std::find(wanted.begin(), wanted.end(), v.rule) != wanted.end(); });
    if (!named) {
      std::string want;
      for (const std::string& w : wanted) want += (want.empty() ? "" : ", ") + w;
      const std::string got = r.exec.violations.empty() ? "none" : rule_list(r.exec.violations);
      return finish(r, Outcome::Failed,
                    "rejected, but reported rules [" + got + "] name none of [" + want + "]");
    }
  }
  return finish(r, Outcome::Passed, "");
}

CaseReport judge_unspecified(CaseReport r, const Case& c, const RunOptions& options) {
  if (r.exec.status == Status::InvalidArgument || r.exec.status == Status::Unsupported)
    return finish(r, Outcome::Passed, "");
  if (r.exec.status != Status::Ok)
    return finish(r, Outcome::Failed,
                  "unspecified case got status " + std::string(name(r.exec.status)) + ": " + r.exec.message);
  std::vector<Bytes> admissible = reference::admissible_outputs(c.op, c.level, c.data);
  if (admissible.empty()) return finish(r, Outcome::Passed, "");
  Expectation e = expectation_for(c, admissible.front(), options.profile);
  e.candidates = std::move(admissible);
  const CompareResult cmp = compare(*tensor(c.op, Role::OUTPUT), e, *r.output);
  if (!cmp.ok) return finish(r, Outcome::Failed, "executed to an inadmissible result: " + cmp.summary());
  return finish(r, Outcome::Passed, "");
}

CaseReport judge_valid(CaseReport r, const Case& c, Backend& under_test, Backend& reference,
                       const RunOptions& options) {
  if (r.exec.status != Status::Ok)
    return finish(r, Outcome::Failed,
                  "valid case got status " + std::string(name(r.exec.status)) +
                      (r.exec.message.empty() ? "" : ": " + r.exec.message) +
                      (r.exec.violations.empty() ? "" : " [" + first_message(r.exec.violations) + "]"));
  const TensorDesc& out = *tensor(c.op, Role::OUTPUT);
  const bool testing_reference = &under_test == &reference;
  std::string why;
  std::optional<Bytes> expected = c.expected_output;
  if (!expected || !testing_reference) {
    std::optional<Bytes> ref = reference_output(c, reference, options, &why);
    if (!ref) return finish(r, Outcome::Mistrusted, why);
    if (expected) {
      // A case file's expected output is only as good as its agreement with the reference.
      const CompareResult agree = compare(out, expectation_for(c, *expected, options.profile), *ref);
      if (!agree.ok)
        return finish(r, Outcome::Mistrusted,
                      "the reference backend disagrees with the case's expected_output: " + agree.summary());
    } else {
      expected = std::move(ref);
    }
  }
  const CompareResult cmp = compare(out, expectation_for(c, *expected, options.profile), *r.output);
  if (!cmp.ok) return finish(r, Outcome::Failed, "wrong output: " + cmp.summary());
  return finish(r, Outcome::Passed, "");
}

}  // namespace

Runner::Runner(Backend& under_test, Backend& reference, RunOptions options)
    : under_test_(under_test), reference_(reference), options_(options) {}

CaseReport Runner::run(const Case& c) {
  CaseReport report;
  const Classification cls = classify(c);
  report.case_class = cls.case_class;

  // (1) The case file must agree with the validator, or neither can be trusted.
  if (c.expect != cls.case_class) {
    std::string detail = "the case file expects " + std::string(name(c.expect)) +
                         " but the validator classifies it " + std::string(name(cls.case_class));
    if (!cls.findings.empty()) detail += " (" + rule_list(cls.findings) + ")";
    return finish(report, Outcome::Mistrusted, detail);
  }

  // (2) What the backend does not claim is not held against it.
  if (c.level > under_test_.max_feature_level())
    return finish(report, Outcome::Skipped,
                  "feature level " + std::string(name(c.level)) + " is above the backend's maximum " +
                      std::string(name(under_test_.max_feature_level())));
  const OpKind op = op_kind(c.op);
  const DataType main_type = tensor(c.op, Role::INPUT)->type;
  if (cls.case_class == CaseClass::Valid && !under_test_.implements(op, reduce_function(c.op), main_type)) {
    std::string cell = std::string(name(op));
    if (auto f = reduce_function(c.op)) cell += " " + name(*f);
    return finish(report, Outcome::Unimplemented,
                  "the backend does not implement " + cell + " on " + std::string(name(main_type)));
  }

  // (3) Memory, (4) the call.
  std::string why;
  auto buffers = allocate_case_buffers(c, cls.case_class, options_.max_buffer_bytes, &why);
  if (!buffers) return finish(report, Outcome::Skipped, why);
  report.exec = execute_guarded(under_test_, c, *buffers);
  const ExecResult& exec = report.exec;
  if (auto o = fault_outcome(exec.fault))
    return finish(
        report, *o,
        "fault: " + std::string(name(exec.fault)) + (exec.message.empty() ? "" : ": " + exec.message));
  if (!buffers->inputs_intact()) return finish(report, Outcome::Oob, "the backend wrote to an input buffer");
  if (exec.status == Status::Ok && cls.case_class != CaseClass::Invalid) report.output = buffers->output();

  // (5) The verdict.
  switch (cls.case_class) {
    case CaseClass::Invalid:
      return judge_invalid(std::move(report), c, cls.findings, *buffers, under_test_.reports_rules());
    case CaseClass::Unspecified: return judge_unspecified(std::move(report), c, options_);
    case CaseClass::Valid: return judge_valid(std::move(report), c, under_test_, reference_, options_);
  }
  return report;
}

}  // namespace dmlcert

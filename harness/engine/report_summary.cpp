#include "report_summary.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include "dmlcert/operators.h"

namespace dmlcert::cert {
namespace {

constexpr std::string_view kExecutedWrongly = kWrongExecutionFamily;
constexpr std::string_view kWroteThenRejected = "rejected after writing output";

// What kind of failure a detail describes: its first clause (up to ';', before the examples of
// elements) with its numbers set aside, so that "wrong output: 3 of 16 elements differ; first at
// [0,2]: ..." and "wrong output: 1 of 4 elements differ; ..." are one cause.
std::string kind_of(const std::string& detail) {
  const std::string clause = detail.substr(0, detail.find(';'));
  std::string out;
  for (size_t i = 0; i < clause.size() && out.size() < 120; ++i) {
    const char c = clause[i];
    // An address ("at address 0x7f3a...") is a number too.
    if (c == '0' && i + 2 < clause.size() && clause[i + 1] == 'x' &&
        std::isxdigit(static_cast<unsigned char>(clause[i + 2]))) {
      i += 2;
      while (i + 1 < clause.size() && std::isxdigit(static_cast<unsigned char>(clause[i + 1]))) ++i;
      if (out.empty() || out.back() != '#') out += '#';
      continue;
    }
    const bool numeric = std::isdigit(static_cast<unsigned char>(c)) ||
                         ((c == '.' || c == '-') && i + 1 < clause.size() &&
                          std::isdigit(static_cast<unsigned char>(clause[i + 1])));
    if (!numeric)
      out += c;
    else if (out.empty() || out.back() != '#')
      out += '#';
  }
  return out;
}

bool is_known(const Report& r, const Failure& f) {
  if (!r.expectations) return false;
  const auto& known = r.expectations->known;
  return std::find(known.begin(), known.end(), f.counts_at.to_string()) != known.end();
}

bool starts_with(const std::string& s, std::string_view prefix) {
  return s.compare(0, prefix.size(), prefix) == 0;
}

// The status word after `prefix` in a detail: "invalid-argument" of "valid case got status
// invalid-argument: GATHERELEMENTS.INDEX_RANGE: ...".
std::string status_after(const std::string& detail, std::string_view prefix) {
  const size_t from = detail.find(prefix);
  if (from == std::string::npos) return "";
  const size_t start = from + prefix.size();
  return detail.substr(start, detail.find_first_of(":; [", start) - start);
}

// How a failure went wrong, in the words of runner.cpp's verdicts, without what the case was.
// A call that ran and went wrong is one family, whether it gave a wrong value, touched memory
// outside its bindings, crashed or hung: the same wrong index gives any of them depending on where
// it lands (the zoo's slice_plan_cache_ignores_strides: wrong output and a write past the output;
// gather_elements_index_magnitude_overflows: a read past the input and a crash), and a valid and a
// class U case that execute to a result the oracle does not admit are both a wrong output. A
// rejection is one family per status the backend gave, whatever its message named (a too-strict
// check names what it checks in each case's words).
std::string family_of(Outcome outcome, const std::string& detail) {
  switch (outcome) {
    case Outcome::Crash:
    case Outcome::Timeout:
    case Outcome::Oob:
    case Outcome::LateWrite: return std::string(kExecutedWrongly);
    case Outcome::Failed: break;
    default: return std::string(name(outcome)) + ": " + kind_of(detail);
  }
  if (starts_with(detail, "wrong output:") || starts_with(detail, "executed to an inadmissible result:"))
    return std::string(kExecutedWrongly);
  if (starts_with(detail, "valid case got status "))
    return "valid case rejected (" + status_after(detail, "got status ") + ")";
  if (starts_with(detail, "unspecified case got status "))
    return "class U case got status " + status_after(detail, "got status ");
  if (starts_with(detail, "invalid case (")) return "invalid case not rejected";
  if (starts_with(detail, "rejected, but reported rules")) return "rejected, naming another rule";
  if (detail.find(" case was rejected (") != std::string::npos &&
      detail.find("but output bytes were written") != std::string::npos)
    return std::string(kWroteThenRejected);
  return kind_of(detail);
}

// The operator whose rule a rule ID is ("SLICE1.WINDOW_BOUNDS", a robustness check
// "GATHERELEMENTS.INDEX_RANGE.extreme"), if it is one operator's.
std::optional<OpKind> op_of_rule(const std::string& rule) {
  const std::string prefix = rule.substr(0, rule.find('.'));
  for (OpKind k : all_ops())
    if (info(k).rule_prefix == prefix) return k;
  return std::nullopt;
}

}  // namespace

Cause cause_of(const CheckId& id, Outcome outcome, const std::string& detail, const std::string& op) {
  Cause c{id.subject(), family_of(outcome, detail)};
  // A class U, robustness, corpus or fuzz case runs its operator: what it does wrong there is what the
  // same bug does in that operator's cells. An invalid case's failure stays with the rule it
  // breaks: one missing check, whichever operator's case showed it.
  // An invalid case that is not rejected (accepted, or run into a crash) is one missing check of
  // its rule, whatever happened next; one rejected after writing output is its operator's bug (it
  // writes before it validates), whichever rule the case broke.
  if (id.kind == CheckKind::Invalid && c.family != kWroteThenRejected &&
      c.family != "rejected, naming another rule")
    c.family = "invalid case not rejected";
  if (id.kind == CheckKind::Cell || id.kind == CheckKind::Sequence) {
    c.where = std::string(name(id.cell.op));
  } else if (id.kind == CheckKind::Unspecified || id.kind == CheckKind::Robustness ||
             id.kind == CheckKind::Corpus || id.kind == CheckKind::Fuzz ||
             (id.kind == CheckKind::Invalid && c.family == kWroteThenRejected)) {
    if (!op.empty())
      c.where = op.substr(0, op.find('.'));
    else if (const auto rule_op = op_of_rule(id.rule))
      c.where = std::string(name(*rule_op));
  }
  // The operator, not its REDUCE function: the functions share REDUCE's validation, its walk over
  // the axes and its buffers, and a bug there shows in every function at once (the zoo's
  // reduce_writes_input, reduce_axes_in_8_bits). group_failures() names the function when all of a
  // cause's failures are in one.
  return c;
}

Cause cause_of(const Failure& f) {
  return cause_of(f.id, f.outcome, f.detail, f.op);
}

std::string cause_key(const CheckId& id, Outcome outcome, const std::string& detail, const std::string& op) {
  const Cause c = cause_of(id, outcome, detail, op);
  return c.where + "\n" + c.family;
}

std::string cause_key(const Failure& f) {
  return cause_key(f.id, f.outcome, f.detail, f.op);
}

std::string minimal_case(const Failure& f) {
  return !f.shrunk.empty() ? f.shrunk : !f.sequence.empty() ? f.sequence : f.repro;
}

std::vector<FailureGroup> group_failures(const Report& r) {
  std::vector<FailureGroup> groups;
  std::map<std::string, size_t> index;
  std::vector<std::set<FeatureLevel>> levels;
  std::vector<std::set<std::string>> functions;  // the operators with their function, per group
  for (const Failure& f : r.failures) {
    // A flaky case did not come back alone: the report names it in its own list, and it is no
    // bug's evidence unless the run counts it (--flaky-fails).
    if (f.outcome == Outcome::Flaky && !r.flaky_fails) continue;
    const bool known = is_known(r, f);
    const Cause cause = cause_of(f);
    auto [it, fresh] =
        index.emplace(cause.where + "\n" + cause.family + (known ? "\nknown" : ""), groups.size());
    if (fresh) {
      groups.push_back({cause, cause.where, f.outcome, f.detail, known, {}, {}, {}, nullptr});
      levels.emplace_back();
      functions.emplace_back();
    }
    FailureGroup& g = groups[it->second];
    g.failures.push_back(&f);
    const std::string check = f.counts_at.to_string();
    if (std::find(g.checks.begin(), g.checks.end(), check) == g.checks.end()) g.checks.push_back(check);
    levels[it->second].insert(f.id.level.value_or(r.level));
    const bool in_cell = f.id.kind == CheckKind::Cell || f.id.kind == CheckKind::Sequence;
    functions[it->second].insert(in_cell ? f.id.subject() : f.op.empty() ? cause.where : f.op);
  }
  for (size_t i = 0; i < groups.size(); ++i) {
    FailureGroup& g = groups[i];
    g.levels.assign(levels[i].begin(), levels[i].end());
    // "REDUCE.SUM: wrong output" when every failure is in SUM.
    if (const auto& ops = functions[i]; ops.size() == 1 && ops.begin()->starts_with(g.cause.where + "."))
      g.where = g.cause.where = *ops.begin();
    auto first_with = [&](auto has) {
      auto it = std::find_if(g.failures.begin(), g.failures.end(), has);
      return it == g.failures.end() ? nullptr : *it;
    };
    g.example = first_with([](const Failure* f) { return !f->shrunk.empty(); });
    if (!g.example) g.example = first_with([](const Failure* f) { return !f->sequence.empty(); });
    if (!g.example) g.example = first_with([](const Failure* f) { return !f->repro.empty(); });
    if (!g.example) g.example = g.failures.front();
    g.detail = g.example->detail;
  }
  // New failures first (they decide the run), then the most frequent.
  std::stable_sort(groups.begin(), groups.end(), [](const FailureGroup& a, const FailureGroup& b) {
    return a.known != b.known ? !a.known : a.failures.size() > b.failures.size();
  });
  return groups;
}

size_t failures_in(const std::vector<FailureGroup>& groups) {
  size_t n = 0;
  for (const FailureGroup& g : groups) n += g.failures.size();
  return n;
}

std::string first_few(const std::vector<std::string>& items, size_t shown) {
  std::string out;
  for (size_t i = 0; i < items.size() && i < shown; ++i) out += (i ? ", " : "") + items[i];
  if (items.size() > shown) out += " and " + std::to_string(items.size() - shown) + " more";
  return out;
}

std::string levels_text(const std::vector<FeatureLevel>& levels) {
  std::string out;
  for (FeatureLevel l : levels) out += (out.empty() ? "" : ", ") + std::string(name(l));
  return out;
}

std::string profile_text(const BehaviourCounts& b) {
  std::vector<std::pair<std::string, uint64_t>> sorted(b.by_behaviour.begin(), b.by_behaviour.end());
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const auto& x, const auto& y) { return x.second > y.second; });
  std::string out;
  for (const auto& [behaviour, count] : sorted)
    out +=
        (out.empty() ? "" : ", ") + behaviour + " " + std::to_string(count) + "/" + std::to_string(b.cases);
  return out + (b.consistent() ? " (every time)" : " (varies)");
}

std::string expectations_text(const ExpectationCheck& e) {
  std::string out = std::to_string(e.known.size()) + " known failure" + (e.known.size() == 1 ? "" : "s") +
                    " (" + e.file + "), " + std::to_string(e.unexpected.size()) + " new";
  for (size_t i = 0; i < e.unexpected.size() && i < 5; ++i) out += (i ? ", " : ": ") + e.unexpected[i];
  if (e.unexpected.size() > 5) out += ", ...";
  if (const auto passes = e.unexpected_passes(); !passes.empty()) {
    out += e.unexpected_passes_fail ? "; unexpected passes, which fail the run (--unexpected-passes-fail):"
                                    : "; unexpected passes (remove these entries):";
    for (const auto* entry : passes)
      out += entry->cause ? " cause \"" + entry->pattern + "\"" : " " + entry->pattern;
  }
  if (const auto idle = e.not_run(); !idle.empty()) {
    out += "; not run here (kept):";
    for (const auto* entry : idle)
      out += entry->cause ? " cause \"" + entry->pattern + "\"" : " " + entry->pattern;
  }
  if (const auto expired = e.expired(); !expired.empty()) {
    out += "; expired entries:";
    for (const auto* entry : expired) out += " " + entry->pattern + " (" + entry->expires + ")";
  }
  return out;
}

}  // namespace dmlcert::cert

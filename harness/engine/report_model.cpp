// The certification verdict and the keys and rows shared by every report format.
#include <algorithm>
#include <cstdio>
#include <map>
#include <tuple>

#include "report.h"
#include "report_code_coverage.h"

namespace dmlcert::cert {
namespace {
// Worst first. Unimplemented comes last: those cases lie outside the scope (the backend disowns
// their (operator, function, input type)), so a cell whose other cases passed passes. A cell keyed
// by an index type (GATHER_ELEMENTS/indices/INT64) mixes input types the backend claims with
// some it may not.
// Flaky ranks below every failure and above a pass: a cell of passes and one flaky case reads
// flaky, which the verdict counts as a pass unless asked otherwise (Report::flaky_fails).
constexpr Outcome kSeverity[] = {
    Outcome::Crash,  Outcome::Timeout,    Outcome::Oob,   Outcome::LateWrite, Outcome::Limit,
    Outcome::Failed, Outcome::Mistrusted, Outcome::Flaky, Outcome::Passed,    Outcome::Unimplemented};
uint64_t n(const Counts& c, Outcome o) {
  return c[static_cast<size_t>(o)];
}
void merge_not_run(NotRun& into, const NotRun& from) {
  if (into.count == 0) into.reason = from.reason;
  into.count += from.count;
}
uint64_t total_of(const Counts& c) {
  uint64_t t = 0;
  for (uint64_t k : c) t += k;
  return t;
}
}  // namespace

std::optional<Outcome> status(const Counts& c) {
  for (Outcome o : kSeverity)
    if (n(c, o)) return o;
  return std::nullopt;
}

bool is_pass(const Counts& c, bool flaky_fails) {
  const auto s = status(c);
  return s == Outcome::Passed || (s == Outcome::Flaky && !flaky_fails);
}

std::vector<const Failure*> flaky_failures(const Report& r) {
  std::vector<const Failure*> out;
  for (const Failure& f : r.failures)
    if (f.outcome == Outcome::Flaky) out.push_back(&f);
  return out;
}

void add(Counts& into, const Counts& from) {
  for (size_t i = 0; i < into.size(); ++i) into[i] += from[i];
}

Counts totals(const Report& r) {
  Counts t{};
  for (const auto& c : r.cells) add(t, c.counts);
  for (const auto& rule : r.rules) add(t, rule.counts);
  add(t, r.corpus);
  return t;
}

bool complete(const Report& r) {
  if (r.shards.empty()) return false;
  uint32_t count = r.shards.front().count;
  std::vector<bool> seen(count, false);
  for (const Shard& s : r.shards)
    if (s.count == count && s.index < count) seen[s.index] = true;
  return std::all_of(seen.begin(), seen.end(), [](bool b) { return b; });
}

bool outside_scope(const Report& r, const CellResult& c) {
  const bool none_claimed = status(c.counts) == Outcome::Unimplemented && c.not_run.count == 0;
  // Claims never asked (a run that could not start): only what its cases said.
  if (!r.scope.checked) return none_claimed;
  // A cell the backend disowns is outside whether or not its cases ran, and a claimed data cell is
  // inside whatever its cases said: an interrupted run counts only the cells in the scope.
  const SupportCell& cell = c.cell;
  const Scope& scope = r.scope;
  if (!scope.checks(cell.op)) return true;
  if (!typed_separately(cell.op, cell.function, cell.role)) {
    for (const Scope::Claim& claim : scope.claims)
      if (claim.op == cell.op && claim.function == cell.function && claim.type == cell.type)
        return !claim.claimed;
  } else {
    for (const Scope::IndexClaim& claim : scope.index_claims)
      if (claim.op == cell.op && claim.type == cell.type && !claim.claimed) return true;
  }
  // A claimed index type's cell mixes data types the backend claims with others: outside when
  // every case that reached it was of those.
  return none_claimed;
}

std::vector<const CellResult*> missing_cells(const Report& r) {
  std::vector<const CellResult*> out;
  for (const auto& c : r.cells)
    if (!is_pass(c.counts, r.flaky_fails) && !outside_scope(r, c)) out.push_back(&c);
  return out;
}

namespace {
bool failing(const Counts& c, const NotRun& not_run, bool flaky_fails) {
  auto s = status(c);
  return (s && *s != Outcome::Passed && *s != Outcome::Unimplemented &&
          (*s != Outcome::Flaky || flaky_fails)) ||
         (!s && not_run.count);
}
bool claims_anything(const Report& r) {
  if (r.scope.checked) return !r.scope.checked->empty();
  return std::any_of(r.scope.claims.begin(), r.scope.claims.end(), [](const auto& c) { return c.claimed; });
}
}  // namespace

bool certified(const Report& r) {
  if (!complete(r) || !r.stopped.empty() || r.backend_max_level < r.level || !missing_cells(r).empty() ||
      !claims_anything(r))
    return false;
  for (const auto& rule : r.rules)
    if (failing(rule.counts, rule.not_run, r.flaky_fails)) return false;
  return !failing(r.corpus, r.corpus_not_run, r.flaky_fails);
}

std::vector<std::string> failing_keys(const Report& r) {
  std::vector<std::string> keys;
  for (const CellResult* c : missing_cells(r)) keys.push_back(CheckId::of_cell(c->cell).to_string());
  for (const auto& rule : r.rules)
    if (failing(rule.counts, rule.not_run, r.flaky_fails))
      keys.push_back(CheckId::of_rule(rule.section, rule.rule).to_string());
  for (const Failure& f : r.failures)
    if (f.counts_at.kind == CheckKind::Corpus) {
      const std::string key = f.counts_at.to_string();
      if (std::find(keys.begin(), keys.end(), key) == keys.end()) keys.push_back(key);
    }
  return keys;
}

namespace {

// "FLOAT32, FLOAT16" or "all 11 types" (of `of` the table has).
std::string types_text(const std::vector<DataType>& types, size_t of) {
  if (types.size() == of) return "all " + std::to_string(of) + " types";
  std::string s;
  for (DataType t : types) s += (s.empty() ? "" : ", ") + std::string(name(t));
  return s;
}

struct OpClaims {
  OpKind op;
  // Per function (nullopt for other operators): the types the table has and those claimed.
  std::vector<std::tuple<std::optional<ReduceFunction>, std::vector<DataType>, std::vector<DataType>>> rows;
};

std::vector<OpClaims> claims_by_op(const Scope& scope) {
  std::vector<OpClaims> out;
  for (const Scope::Claim& c : scope.claims) {
    if (out.empty() || out.back().op != c.op) out.push_back({c.op, {}});
    auto& rows = out.back().rows;
    if (rows.empty() || std::get<0>(rows.back()) != c.function)
      rows.emplace_back(c.function, std::vector<DataType>{}, std::vector<DataType>{});
    std::get<1>(rows.back()).push_back(c.type);
    if (c.claimed) std::get<2>(rows.back()).push_back(c.type);
  }
  return out;
}

// The index types of `op` the backend takes ("INT32 indices"), or of those it does not (`claimed`
// false); empty when it takes all the table allows, or the operator has no indices.
std::string index_types_text(const Scope& scope, OpKind op, bool claimed) {
  std::vector<DataType> taken, all;
  for (const Scope::IndexClaim& c : scope.index_claims) {
    if (c.op != op) continue;
    all.push_back(c.type);
    if (c.claimed == claimed) taken.push_back(c.type);
  }
  const size_t claimed_count = claimed ? taken.size() : all.size() - taken.size();
  if (claimed_count == all.size() || taken.empty()) return {};
  return types_text(taken, all.size()) + " indices";
}

bool asked(const Scope& scope, OpKind op) {
  return scope.asked.empty() || std::find(scope.asked.begin(), scope.asked.end(), op) != scope.asked.end();
}

}  // namespace

std::string scope_text(const Report& r) {
  const auto ops = claims_by_op(r.scope);
  bool everything = r.scope.asked.empty() && !ops.empty();
  std::string out;
  for (const OpClaims& o : ops) {
    std::string functions;
    size_t claimed_rows = 0;
    bool whole = true;
    for (const auto& [function, table, claimed] : o.rows) {
      whole &= claimed.size() == table.size();
      if (claimed.empty()) continue;
      ++claimed_rows;
      const std::string types = types_text(claimed, table.size());
      functions += (functions.empty() ? "" : "; ") + (function ? name(*function) + ": " + types : types);
    }
    everything &= whole;
    if (claimed_rows == 0 || !r.scope.checks(o.op)) {
      everything = false;
      continue;
    }
    if (whole && o.rows.size() > 1) functions = "all " + std::to_string(o.rows.size()) + " functions";
    if (const std::string indices = index_types_text(r.scope, o.op, true); !indices.empty()) {
      everything = false;
      functions += "; " + indices;
    }
    out += (out.empty() ? "" : ", ") + std::string(name(o.op)) + " (" + functions + ")";
  }
  if (everything &&
      ops.size() == static_cast<size_t>(std::count_if(all_ops().begin(), all_ops().end(),
                                                      [&](OpKind k) { return r.level >= introduced_at(k); })))
    return "all operators";
  return out.empty() ? "nothing" : out;
}

std::string outside_text(const Report& r) {
  std::vector<std::string> parts;
  std::string not_asked;
  for (OpKind k : all_ops())
    if (r.level >= introduced_at(k) && !asked(r.scope, k))
      not_asked += (not_asked.empty() ? "" : ", ") + std::string(name(k));
  if (!not_asked.empty()) parts.push_back(not_asked + " not asked for (--ops)");
  for (const OpClaims& o : claims_by_op(r.scope)) {
    std::string missing;
    size_t missing_rows = 0;
    for (const auto& [function, table, claimed] : o.rows) {
      if (claimed.size() == table.size()) continue;
      ++missing_rows;
      std::vector<DataType> rest;
      for (DataType t : table)
        if (std::find(claimed.begin(), claimed.end(), t) == claimed.end()) rest.push_back(t);
      const std::string types = types_text(rest, table.size());
      missing += (missing.empty() ? "" : "; ") + (function ? name(*function) + ": " + types : types);
    }
    const std::string indices = index_types_text(r.scope, o.op, false);
    const bool none = !r.scope.checks(o.op) || std::all_of(o.rows.begin(), o.rows.end(), [](const auto& row) {
      return std::get<2>(row).empty();
    });
    if (none) {
      parts.push_back(std::string(name(o.op)) + " not claimed");
      continue;
    }
    if (!indices.empty()) {
      ++missing_rows;
      missing += (missing.empty() ? "" : "; ") + indices;
    }
    if (missing_rows > 0) parts.push_back(std::string(name(o.op)) + " (" + missing + ") not claimed");
  }
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? "" : "; ") + p;
  return out;
}

uint64_t not_run_count(const Report& r) {
  uint64_t n = r.corpus_not_run.count;
  for (const CellResult& c : r.cells)
    if (!outside_scope(r, c)) n += c.not_run.count;  // what the scope leaves out is not missed
  for (const RuleResult& rule : r.rules) n += rule.not_run.count;
  return n;
}

bool slow(const Report& r) {
  return r.backend_time.calls > 0 && r.backend_time.per_call() >= kSlowCallSeconds;
}

std::string speed_text(const Report& r) {
  const BackendTime& t = r.backend_time;
  if (t.calls == 0) return {};
  char buf[160];
  std::snprintf(buf, sizeof buf, "%.3g s per call on average over %llu call%s (slowest %.3g s)", t.per_call(),
                static_cast<unsigned long long>(t.calls), t.calls == 1 ? "" : "s", t.slowest);
  return buf;
}

std::string verdict(const Report& r) {
  const std::string scope = scope_text(r);
  // A verdict reached under a relaxed comparison says so: it is not the default profile's.
  const std::string where =
      " at " + std::string(name(r.level)) +
      (scope == "all operators" ? " (all operators)" : " for " + scope) +
      (r.accumulation == AccumulationProfile::Relaxed
           ? ", FLOAT16 reductions judged as accumulating in float16 (--fp16-accumulation float16)"
           : "");
  const size_t flaky = flaky_failures(r).size();
  const std::string flaky_cases = std::to_string(flaky) + (flaky == 1 ? " flaky case" : " flaky cases");
  if (certified(r))
    return "CERTIFIED" + where +
           (flaky ? "; " + flaky_cases +
                        " passed when run again alone (listed as flaky; --flaky-fails fails them)"
                  : "");
  std::vector<std::string> why;
  if (flaky && r.flaky_fails) why.push_back(flaky_cases + " (--flaky-fails)");
  if (!r.stopped.empty()) {
    const uint64_t missed = not_run_count(r), planned = missed + total_of(totals(r));
    why.push_back("the run is incomplete (" + r.stopped + "; " + std::to_string(missed) + " of " +
                  std::to_string(planned) + " planned cases did not run" +
                  (slow(r) ? ": the backend is slow, " + speed_text(r) : "") + ")");
  }
  if (!complete(r)) why.push_back("this report covers only some shards (merge them with `dmlcert merge`)");
  if (r.backend_max_level < r.level)
    why.push_back("the backend claims only " + std::string(name(r.backend_max_level)));
  if (!claims_anything(r)) why.push_back("the backend claims no cell");
  if (const size_t missing = missing_cells(r).size()) {
    const size_t in_scope = std::count_if(r.cells.begin(), r.cells.end(),
                                          [&](const CellResult& c) { return !outside_scope(r, c); });
    why.push_back(std::to_string(missing) + " of " + std::to_string(in_scope) +
                  " cells in the scope do not pass");
  }
  size_t rules = 0;
  for (const auto& rule : r.rules) rules += failing(rule.counts, rule.not_run, r.flaky_fails);
  if (rules) why.push_back(std::to_string(rules) + (rules == 1 ? " rule check fails" : " rule checks fail"));
  if (failing(r.corpus, r.corpus_not_run, r.flaky_fails)) why.push_back("corpus cases fail");
  std::string text = "NOT CERTIFIED" + where;
  for (size_t i = 0; i < why.size(); ++i) text += (i ? "; " : ": ") + why[i];
  if (r.expectations && r.expectations->holds())
    text += " (every failure is a known one: " + r.expectations->file + ")";
  return text;
}

int exit_status(const Report& r) {
  if (certified(r)) return 0;
  if (r.expectations && r.expectations->holds() && r.stopped.empty() && complete(r)) return 0;
  return 1;
}

std::optional<std::string> BehaviourCounts::every_time() const {
  for (const auto& [behaviour, count] : by_behaviour)
    if (count == cases) return behaviour;
  return std::nullopt;
}

std::vector<const ExpectationCheck::Entry*> ExpectationCheck::unexpected_passes() const {
  std::vector<const Entry*> out;
  for (const Entry& e : entries)
    if (e.matched.empty() && !e.not_run) out.push_back(&e);
  return out;
}

std::vector<const ExpectationCheck::Entry*> ExpectationCheck::not_run() const {
  std::vector<const Entry*> out;
  for (const Entry& e : entries)
    if (e.matched.empty() && e.not_run) out.push_back(&e);
  return out;
}

std::vector<const ExpectationCheck::Entry*> ExpectationCheck::expired() const {
  std::vector<const Entry*> out;
  for (const Entry& e : entries)
    if (e.expired) out.push_back(&e);
  return out;
}

CellSpread cases_per_cell(const Report& r) {
  std::vector<uint64_t> ran;
  for (const auto& c : r.cells) {
    uint64_t n = 0;
    for (int i = 0; i < kOutcomeCount; ++i)
      if (static_cast<Outcome>(i) != Outcome::Skipped) n += c.counts[static_cast<size_t>(i)];
    ran.push_back(n);
  }
  if (ran.empty()) return {};
  std::sort(ran.begin(), ran.end());
  return {ran.front(), ran[ran.size() / 2], ran.back()};
}

std::string matrix_row(const SupportCell& c) {
  std::string op(name(c.op));
  if (c.function) op += "." + name(*c.function);
  // Updates and (except for ARGMAX/ARGMIN) outputs share the input's type: same row.
  bool own_row =
      c.role == Role::INDICES || (c.role == Role::OUTPUT && c.function && is_arg_function(*c.function));
  return own_row ? op + " (" + std::string(name(c.role)) + ")" : op;
}

std::optional<Report> merge(const std::vector<Report>& parts, std::string* error) {
  auto fail = [error](std::string why) -> std::optional<Report> {
    if (error) *error = std::move(why);
    return std::nullopt;
  };
  if (parts.empty()) return fail("nothing to merge");
  Report out = parts.front();
  for (size_t i = 1; i < parts.size(); ++i) {
    const Report& p = parts[i];
    if (p.backend != out.backend || p.level != out.level || p.budget != out.budget ||
        p.accumulation != out.accumulation)
      return fail(
          "reports differ in backend, level, budget or --fp16-accumulation; only shards of one run merge");
    for (const Shard& s : p.shards) {
      if (std::find(out.shards.begin(), out.shards.end(), s) != out.shards.end())
        return fail("shard " + std::to_string(s.index) + "/" + std::to_string(s.count) + " appears twice");
      out.shards.push_back(s);
    }
    if (p.cells.size() != out.cells.size()) return fail("reports cover different support tables");
    for (size_t c = 0; c < p.cells.size(); ++c) {
      if (!(p.cells[c].cell == out.cells[c].cell)) return fail("reports cover different support tables");
      add(out.cells[c].counts, p.cells[c].counts);
      out.cells[c].seconds += p.cells[c].seconds;
      merge_not_run(out.cells[c].not_run, p.cells[c].not_run);
      out.cells[c].repros.insert(out.cells[c].repros.end(), p.cells[c].repros.begin(),
                                 p.cells[c].repros.end());
    }
    for (const RuleResult& rule : p.rules) {
      auto it = std::find_if(out.rules.begin(), out.rules.end(), [&](const RuleResult& r) {
        return r.rule == rule.rule && r.section == rule.section;
      });
      if (it == out.rules.end()) {
        out.rules.push_back(rule);
      } else {
        add(it->counts, rule.counts);
        it->seconds += rule.seconds;
        merge_not_run(it->not_run, rule.not_run);
        it->repros.insert(it->repros.end(), rule.repros.begin(), rule.repros.end());
      }
    }
    add(out.corpus, p.corpus);
    merge_not_run(out.corpus_not_run, p.corpus_not_run);
    for (const CorpusCaseResult& c : p.corpus_cases) {
      auto it = std::find_if(out.corpus_cases.begin(), out.corpus_cases.end(),
                             [&](const CorpusCaseResult& x) { return x.name == c.name; });
      if (it == out.corpus_cases.end()) {
        out.corpus_cases.push_back(c);
      } else {
        add(it->counts, c.counts);
        it->seconds += c.seconds;
      }
    }
    out.started = std::min(out.started, p.started);
    for (const BehaviourCounts& b : p.profile) {
      auto it = std::find_if(out.profile.begin(), out.profile.end(),
                             [&](const auto& x) { return x.rule == b.rule; });
      if (it == out.profile.end()) it = out.profile.insert(out.profile.end(), BehaviourCounts{b.rule, 0, {}});
      it->cases += b.cases;
      for (const auto& [behaviour, count] : b.by_behaviour) it->by_behaviour[behaviour] += count;
    }
    if (out.stopped.empty()) out.stopped = p.stopped;
    if (out.containment.empty()) out.containment = p.containment;
    if (out.repro_error.empty()) out.repro_error = p.repro_error;
    out.backend_time.calls += p.backend_time.calls;
    out.backend_time.seconds += p.backend_time.seconds;
    out.backend_time.slowest = std::max(out.backend_time.slowest, p.backend_time.slowest);
    out.backend_output.calls += p.backend_output.calls;
    out.backend_output.bytes += p.backend_output.bytes;
    for (const auto& sample : p.backend_output.samples)
      if (out.backend_output.samples.size() < BackendOutput::kSamples)
        out.backend_output.samples.push_back(sample);
    out.recurrence.merge(p.recurrence);  // each shard runs in a backend process of its own
    merge_code_coverage(out, p);
    out.failures.insert(out.failures.end(), p.failures.begin(), p.failures.end());
    out.seconds = std::max(out.seconds, p.seconds);  // shards run side by side
  }
  std::sort(out.shards.begin(), out.shards.end(),
            [](const Shard& a, const Shard& b) { return a.index < b.index; });
  return out;
}

}  // namespace dmlcert::cert

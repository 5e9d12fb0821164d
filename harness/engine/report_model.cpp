// The certification verdict and the keys and rows shared by every report format.
#include <algorithm>
#include <map>

#include "report.h"

namespace dmlcert::cert {
namespace {
// Worst first.
constexpr Outcome kSeverity[] = {Outcome::Crash,      Outcome::Timeout,       Outcome::Oob,
                                 Outcome::LateWrite,  Outcome::Limit,         Outcome::Failed,
                                 Outcome::Mistrusted, Outcome::Unimplemented, Outcome::Passed};
uint64_t n(const Counts& c, Outcome o) {
  return c[static_cast<size_t>(o)];
}
void merge_not_run(NotRun& into, const NotRun& from) {
  if (into.count == 0) into.reason = from.reason;
  into.count += from.count;
}
}  // namespace

std::optional<Outcome> status(const Counts& c) {
  for (Outcome o : kSeverity)
    if (n(c, o)) return o;
  return std::nullopt;
}

bool is_pass(const Counts& c) {
  return status(c) == Outcome::Passed;
}

void add(Counts& into, const Counts& from) {
  for (size_t i = 0; i < into.size(); ++i) into[i] += from[i];
}

std::string_view name(RuleSection s) {
  switch (s) {
    case RuleSection::Invalid: return "invalid";
    case RuleSection::Unspecified: return "unspecified";
    case RuleSection::Robustness: return "robustness";
  }
  return "?";
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

std::vector<const CellResult*> missing_cells(const Report& r) {
  std::vector<const CellResult*> out;
  for (const auto& c : r.cells)
    if (!is_pass(c.counts)) out.push_back(&c);
  return out;
}

bool certified(const Report& r) {
  if (!complete(r) || !r.stopped.empty() || r.backend_max_level < r.level || !missing_cells(r).empty())
    return false;
  for (const auto& rule : r.rules) {
    auto s = status(rule.counts);
    if (s && *s != Outcome::Passed && *s != Outcome::Unimplemented) return false;
  }
  auto s = status(r.corpus);
  return !s || *s == Outcome::Passed || *s == Outcome::Unimplemented;
}

std::string cell_key(const SupportCell& c) {
  std::string op(name(c.op));
  if (c.function) op += "." + name(*c.function);
  return op + "/" + std::string(name(c.role)) + "/" + std::string(name(c.type)) + "/r" +
         std::to_string(c.rank);
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
    if (p.backend != out.backend || p.level != out.level || p.budget != out.budget)
      return fail("reports differ in backend, level or budget; only shards of one run merge");
    for (const Shard& s : p.shards) {
      if (std::find(out.shards.begin(), out.shards.end(), s) != out.shards.end())
        return fail("shard " + std::to_string(s.index) + "/" + std::to_string(s.count) + " appears twice");
      out.shards.push_back(s);
    }
    if (p.cells.size() != out.cells.size()) return fail("reports cover different support tables");
    for (size_t c = 0; c < p.cells.size(); ++c) {
      if (!(p.cells[c].cell == out.cells[c].cell)) return fail("reports cover different support tables");
      add(out.cells[c].counts, p.cells[c].counts);
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
        merge_not_run(it->not_run, rule.not_run);
        it->repros.insert(it->repros.end(), rule.repros.begin(), rule.repros.end());
      }
    }
    add(out.corpus, p.corpus);
    merge_not_run(out.corpus_not_run, p.corpus_not_run);
    if (out.stopped.empty()) out.stopped = p.stopped;
    out.backend_output.calls += p.backend_output.calls;
    out.backend_output.bytes += p.backend_output.bytes;
    for (const auto& sample : p.backend_output.samples)
      if (out.backend_output.samples.size() < BackendOutput::kSamples)
        out.backend_output.samples.push_back(sample);
    out.failures.insert(out.failures.end(), p.failures.begin(), p.failures.end());
    out.seconds = std::max(out.seconds, p.seconds);  // shards run side by side
  }
  std::sort(out.shards.begin(), out.shards.end(),
            [](const Shard& a, const Shard& b) { return a.index < b.index; });
  return out;
}

}  // namespace dmlcert::cert

// The terminal summary: the scope, one matrix line per operator (and REDUCE function) row with a
// column per data type (each entry the worst status over that row's ranks), the rule checks, the
// failures grouped by cause, the behaviour profile, the expectations, and the verdict last.
#include <sstream>

#include "report.h"
#include "report_code_coverage.h"
#include "report_matrix.h"
#include "report_summary.h"

namespace dmlcert::cert {

std::string to_text(const Report& r) {
  std::ostringstream out;
  std::vector<MatrixRow> rows = build_matrix(r);
  size_t width = 8;
  for (const auto& row : rows) width = std::max(width, row.label.size());
  if (!r.stopped.empty()) out << "INCOMPLETE: " << r.stopped << "\n";
  if (slow(r)) out << "SLOW: the backend took " << speed_text(r) << "\n";
  if (!r.repro_error.empty()) out << "REPRO FILES: " << r.repro_error << "\n";
  if (!r.containment.empty()) out << "Containment: " << r.containment << "\n";
  if (const std::string code = code_coverage_line(r); !code.empty()) {
    out << code << "\n";
    for (const std::string& detail : code_coverage_details(r, 10)) out << "  " << detail << "\n";
  }
  out << "Scope: " << scope_text(r) << "\n";
  if (const std::string outside = outside_text(r); !outside.empty())
    out << "Outside the scope: " << outside << "\n";
  out << "Support matrix at level " << name(r.level) << " (" << kStatusLegend
      << ", blank: not in the table)\n";
  out << std::string(width, ' ');
  for (DataType t : kAllDataTypes)
    out << ' ' << std::string(4 - std::min<size_t>(4, short_type(t).size()), ' ') << short_type(t);
  out << '\n';
  for (const auto& row : rows) {
    out << row.label << std::string(width - row.label.size(), ' ');
    for (DataType t : kAllDataTypes) {
      auto it = row.by_type.find(t);
      out << "    "
          << (it == row.by_type.end()
                  ? ' '
                  : status_letter(it->second.counts, it->second.not_run, it->second.outside));
    }
    out << '\n';
  }

  out << "\nRule checks:";
  size_t bad = 0, stopped = 0, not_asked = 0;
  std::string not_asked_names;
  for (const RuleResult& rule : r.rules) {
    auto s = status(rule.counts);
    if (s && *s != Outcome::Passed && *s != Outcome::Unimplemented) {
      out << "\n  " << name(rule.section) << ' ' << rule.rule << ": " << name(*s);
      bad += *s != Outcome::Flaky || r.flaky_fails;
    } else if (!s && rule.not_run.count) {
      ++stopped;
    } else if (!s) {
      ++not_asked;  // every case skipped: the backend's interface cannot carry the rule
      not_asked_names +=
          (not_asked_names.empty() ? "" : ", ") + std::string(name(rule.section)) + '/' + rule.rule;
    }
  }
  const size_t asked = r.rules.size() - not_asked;
  // One check per invalid rule, per class U rule and per robustness check: say which, so that the
  // count reads against `dmlcert rules`.
  size_t by_section[3] = {};
  for (const RuleResult& rule : r.rules)
    if (status(rule.counts) || rule.not_run.count) ++by_section[static_cast<int>(rule.section)];
  out << " (" << by_section[0] << " invalid, " << by_section[1] << " unspecified, " << by_section[2]
      << " robustness)";
  if (bad || stopped) {
    out << (bad ? "\n  " : " ") << asked - bad - stopped << " of " << asked << " passed";
    if (stopped) out << ", " << stopped << " stopped before they ran";
    out << "\n";
  } else {
    out << " all " << asked << " passed\n";
  }
  if (not_asked)
    out << "  not asked (the backend's interface cannot express them, so they are not counted): "
        << not_asked_names << "\n";
  if (status(r.corpus) || r.corpus_not_run.count)
    out << "Corpus: " << status_word(r.corpus, r.corpus_not_run.count)
        << (r.corpus_not_run.count ? " (" + std::to_string(r.corpus_not_run.count) + " cases not run)" : "")
        << "\n";
  Counts t = totals(r);
  out << "Totals:";
  for (int i = 0; i < kOutcomeCount; ++i)
    if (t[i]) out << ' ' << t[i] << ' ' << name(static_cast<Outcome>(i)) << ',';
  out.seekp(-1, std::ios_base::cur);
  out << " (" << static_cast<int64_t>(r.seconds) << " s)\n";
  if (r.backend_output.calls)
    out << "The backend printed " << r.backend_output.bytes << " bytes in " << r.backend_output.calls
        << " calls (kept in the JSON and HTML reports, not shown here)\n";

  if (!r.profile.empty()) {
    out << "Behaviour on unspecified (class U) cases:\n";
    for (const BehaviourCounts& b : r.profile) out << "  " << b.rule << ": " << profile_text(b) << "\n";
  }

  const auto groups = group_failures(r);
  if (!groups.empty()) {
    out << "Failures by cause (" << failures_in(groups) << " in " << counted(groups.size(), "cause")
        << "):\n";
    size_t shown = 0;
    for (const FailureGroup& g : groups) {
      if (shown++ == 12) {
        out << "  ... and " << groups.size() - 12 << " more causes (see the report)\n";
        break;
      }
      out << "  " << g.cause.name() << " x" << g.failures.size() << (g.known ? " (known)" : "") << ": "
          << g.detail << "\n";
      out << "    in " << first_few(g.checks) << " at " << levels_text(g.levels) << "\n";
      if (!g.example->reproduce.empty()) out << "    reproduce: " << g.example->reproduce << "\n";
      if (const std::string m = minimal_case(*g.example); !m.empty())
        out << "    minimal case: " << m << "\n";
    }
  }
  if (const auto flaky = flaky_failures(r); !flaky.empty()) {
    out << "Flaky (" << counted(flaky.size(), "case") << " that failed once and passed when run again alone"
        << (r.flaky_fails ? "; they fail the run: --flaky-fails" : "; they do not fail the run") << "):\n";
    size_t shown = 0;
    for (const Failure* f : flaky) {
      if (shown++ == 12) {
        out << "  ... and " << flaky.size() - 12 << " more (see the report)\n";
        break;
      }
      out << "  " << f->counts_at.to_string() << ": " << f->case_name << ": " << f->detail << "\n";
    }
  }
  if (r.expectations) out << "Expectations: " << expectations_text(*r.expectations) << "\n";

  const CellSpread spread = cases_per_cell(r);
  out << "Cases per cell: " << spread.min << " to " << spread.max << " (median " << spread.median
      << "). Shapes asked more than once: " << r.recurrence.summary() << "\n";
  out << verdict(r) << "\n";
  if (!certified(r)) {
    auto missing = missing_cells(r);
    size_t shown = 0;
    for (const CellResult* c : missing) {
      if (shown++ == 20) {
        out << "  ... and " << missing.size() - 20 << " more (see the report)\n";
        break;
      }
      out << "  " << cell_key(c->cell) << ": " << status_word(c->counts, c->not_run.count)
          << (c->not_run.count ? " (" + c->not_run.reason + ")" : "") << "\n";
    }
  }
  return out.str();
}

}  // namespace dmlcert::cert

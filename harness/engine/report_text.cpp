// The terminal summary: one line per operator (and REDUCE function) row, one column per data
// type, each entry the worst status over that row's ranks; then the verdict.
#include <sstream>

#include "report.h"
#include "report_matrix.h"

namespace dmlcert::cert {

std::string to_text(const Report& r) {
  std::ostringstream out;
  std::vector<MatrixRow> rows = build_matrix(r);
  size_t width = 8;
  for (const auto& row : rows) width = std::max(width, row.label.size());
  if (!r.stopped.empty()) out << "INCOMPLETE: " << r.stopped << "\n";
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
      out << "    " << (it == row.by_type.end() ? ' ' : status_letter(it->second.counts, it->second.not_run));
    }
    out << '\n';
  }
  out << "\nRule checks:";
  size_t bad = 0, stopped = 0;
  for (const RuleResult& rule : r.rules) {
    auto s = status(rule.counts);
    if (s && *s != Outcome::Passed && *s != Outcome::Unimplemented) {
      out << "\n  " << name(rule.section) << ' ' << rule.rule << ": " << name(*s);
      ++bad;
    } else if (!s && rule.not_run.count) {
      ++stopped;
    }
  }
  if (stopped)
    out << (bad ? "\n  " : " ") << stopped << " of " << r.rules.size() << " stopped before they ran\n";
  else
    out << (bad ? "\n" : " all " + std::to_string(r.rules.size()) + " passed\n");
  if (status(r.corpus) || r.corpus_not_run.count)
    out << "Corpus: " << status_word(r.corpus, r.corpus_not_run.count)
        << (r.corpus_not_run.count ? " (" + std::to_string(r.corpus_not_run.count) + " cases not run)" : "")
        << "\n";
  if (r.backend_output.calls)
    out << "The backend printed " << r.backend_output.bytes << " bytes in " << r.backend_output.calls
        << " calls (kept in the JSON and HTML reports, not shown here)\n";
  Counts t = totals(r);
  out << "Totals:";
  for (int i = 0; i < kOutcomeCount; ++i)
    if (t[i]) out << ' ' << t[i] << ' ' << name(static_cast<Outcome>(i)) << ',';
  out.seekp(-1, std::ios_base::cur);
  out << "\n";
  auto missing = missing_cells(r);
  if (certified(r)) {
    out << "CERTIFIED at level " << name(r.level) << ": " << r.backend_name << "\n";
  } else {
    out << "NOT CERTIFIED at level " << name(r.level) << ": ";
    if (!r.stopped.empty()) out << "the run is incomplete; ";
    if (!complete(r)) out << "this report covers only some shards (merge them with `dmlcert merge`); ";
    if (r.backend_max_level < r.level) out << "the backend claims only " << name(r.backend_max_level) << "; ";
    out << missing.size() << " of " << r.cells.size() << " cells do not pass";
    if (bad) out << ", " << bad << " rule checks fail";
    out << "\n";
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

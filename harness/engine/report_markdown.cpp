// The Markdown report for people: verdict, the matrix (worst status per operator row and type),
// then every cell and rule that did not pass with links to its repro files.
#include <sstream>

#include "report.h"
#include "report_matrix.h"

namespace dmlcert::cert {

std::string to_markdown(const Report& r, const std::string& link_base) {
  std::ostringstream out;
  out << "# dmlcert certification: " << r.backend_name << "\n\n";
  out << "- Backend: `" << r.backend << "` (claims level " << name(r.backend_max_level) << ")\n";
  out << "- Level: " << name(r.level) << ", budget: " << r.budget << ", time: " << static_cast<int>(r.seconds)
      << " s\n";
  out << "- Verdict: **" << (certified(r) ? "CERTIFIED" : "NOT CERTIFIED") << "**\n\n";
  Counts t = totals(r);
  out << "| outcome | cases |\n|---|---|\n";
  for (int i = 0; i < kOutcomeCount; ++i)
    if (t[i]) out << "| " << name(static_cast<Outcome>(i)) << " | " << t[i] << " |\n";
  out << "\n## Support matrix\n\nP passed, F failed, C crash, T timeout, O oob, U unimplemented, M "
         "mistrusted, "
         "- not run; empty: not in the support table.\n\n| operator |";
  for (DataType dt : kAllDataTypes) out << ' ' << short_type(dt) << " |";
  out << "\n|---|";
  for (int i = 0; i < kDataTypeCount; ++i) out << ":-:|";
  out << "\n";
  for (const MatrixRow& row : build_matrix(r)) {
    out << "| " << row.label << " |";
    for (DataType dt : kAllDataTypes) {
      auto it = row.by_type.find(dt);
      out << ' '
          << (it == row.by_type.end() ? std::string()
                                      : std::string(1, status_letter(it->second.counts, it->second.not_run)))
          << " |";
    }
    out << "\n";
  }
  auto link = [&](const std::string& p) { return "[" + p + "](" + relative_link(p, link_base) + ")"; };
  auto missing = missing_cells(r);
  if (!missing.empty()) {
    out << "\n## Cells that do not pass (" << missing.size() << ")\n\n";
    for (const CellResult* c : missing) {
      out << "- `" << cell_key(c->cell) << "`: " << status_word(c->counts, c->not_run.count);
      for (size_t i = 0; i < c->repros.size() && i < 3; ++i) out << (i ? ", " : " — ") << link(c->repros[i]);
      out << "\n";
    }
  }
  out << "\n## Rule checks\n\n| section | rule | status | cases |\n|---|---|---|---|\n";
  for (const RuleResult& rule : r.rules) {
    uint64_t n = 0;
    for (uint64_t k : rule.counts) n += k;
    out << "| " << name(rule.section) << " | " << rule.rule << " | "
        << status_word(rule.counts, rule.not_run.count);
    if (!rule.repros.empty()) out << " " << link(rule.repros.front());
    out << " | " << n << " |\n";
  }
  if (!r.failures.empty()) {
    out << "\n## Failures\n\n";
    for (const Failure& f : r.failures) {
      out << "- `" << f.where << "` " << name(f.outcome) << ": " << f.detail << " — " << link(f.repro);
      if (!f.shrunk.empty()) out << " (shrunk: " << link(f.shrunk) << ")";
      out << "\n";
    }
  }
  return out.str();
}

}  // namespace dmlcert::cert

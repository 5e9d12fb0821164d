// The Markdown report for people (a pull request, a wiki page): the verdict and scope, the run's
// facts, the matrix (worst status per operator row and type), failures grouped by cause with the
// command that reproduces each, the behaviour profile, the expectations and the rule checks.
#include <sstream>

#include "report.h"
#include "report_code_coverage.h"
#include "report_matrix.h"
#include "report_summary.h"

namespace dmlcert::cert {
namespace {

// A table cell's text: pipes and line breaks would end the cell.
std::string cell_text(std::string s) {
  for (char& ch : s)
    if (ch == '|' || ch == '\n' || ch == '\r') ch = ' ';
  return s;
}

}  // namespace

std::string to_markdown(const Report& r, const std::string& link_base) {
  std::ostringstream out;
  out << "# " << verdict(r) << "\n\n";
  if (!r.stopped.empty()) out << "**Incomplete:** " << r.stopped << "\n\n";
  if (slow(r)) out << "**Slow:** the backend took " << speed_text(r) << "\n\n";
  if (!r.repro_error.empty()) out << "**Repro files:** " << r.repro_error << "\n\n";
  out << "- Backend: " << r.backend_name << " (`" << r.backend << "`, claims level "
      << name(r.backend_max_level) << ")\n";
  out << "- Scope: " << scope_text(r) << "\n";
  if (const std::string outside = outside_text(r); !outside.empty())
    out << "- Outside the scope: " << outside << "\n";
  out << "- Level " << name(r.level) << ", budget " << r.budget << ", seed " << r.seed << ", started "
      << r.started << ", " << static_cast<int64_t>(r.seconds) << " s, dmlcert " << r.dmlcert_version << "\n";
  if (const std::string speed = speed_text(r); !speed.empty()) out << "- Backend time: " << speed << "\n";
  if (!r.containment.empty()) out << "- Containment: " << r.containment << "\n";
  if (const std::string code = code_coverage_line(r); !code.empty()) out << "- " << cell_text(code) << "\n";
  Counts t = totals(r);
  out << "- Cases:";
  for (int i = 0; i < kOutcomeCount; ++i)
    if (t[i]) out << ' ' << t[i] << ' ' << name(static_cast<Outcome>(i)) << ',';
  out.seekp(-1, std::ios_base::cur);
  out << "\n";
  if (r.expectations) out << "- Expectations: " << cell_text(expectations_text(*r.expectations)) << "\n";

  out << "\n## Support matrix\n\n" << kStatusLegend << "; empty: not in the support table.\n\n| operator |";
  for (DataType dt : kAllDataTypes) out << ' ' << short_type(dt) << " |";
  out << "\n|---|";
  for (int i = 0; i < kDataTypeCount; ++i) out << ":-:|";
  out << "\n";
  for (const MatrixRow& row : build_matrix(r)) {
    out << "| " << row.label << " |";
    for (DataType dt : kAllDataTypes) {
      auto it = row.by_type.find(dt);
      out << ' '
          << (it == row.by_type.end()
                  ? std::string()
                  : std::string(1, status_letter(it->second.counts, it->second.not_run, it->second.outside)))
          << " |";
    }
    out << "\n";
  }
  auto link = [&](const std::string& label, const std::string& p) {
    return "[" + label + "](" + relative_link(p, link_base) + ")";
  };

  const auto groups = group_failures(r);
  if (!groups.empty()) {
    out << "\n## Failures by cause (" << counted(failures_in(groups), "failure") << ", "
        << counted(groups.size(), "cause") << ")\n\n";
    for (const FailureGroup& g : groups) {
      const Failure& example = *g.example;
      out << "### " << cell_text(g.cause.name()) << " (" << g.failures.size() << (g.known ? ", known" : "")
          << ")\n\n"
          << cell_text(g.detail) << "\n\n"
          << "In " << counted(g.checks.size(), "check") << " (" << cell_text(first_few(g.checks)) << ") at "
          << levels_text(g.levels) << ".";
      if (const std::string m = minimal_case(example); !m.empty())
        out << " Minimal case: " << link("case", m) << ".";
      out << "\n\n";
      if (!example.reproduce.empty()) out << "```sh\n" << example.reproduce << "\n```\n\n";
      for (size_t i = 0; i < g.failures.size() && i < 5; ++i) {
        const Failure& f = *g.failures[i];
        out << "- `" << f.id.to_string() << "` " << name(f.confirmation);
        if (!f.repro.empty()) out << " — " << link("case file", f.repro);
        if (!f.shrunk.empty()) out << ", " << link("shrunk case", f.shrunk);
        if (!f.sequence.empty()) out << ", " << link("sequence", f.sequence);
        out << "\n";
      }
      if (g.failures.size() > 5) out << "- ... and " << g.failures.size() - 5 << " more (JSON report)\n";
      out << "\n";
    }
  }
  if (const auto flaky = flaky_failures(r); !flaky.empty()) {
    out << "\n## Flaky (" << counted(flaky.size(), "case") << ")\n\nFailed once, passed when run again alone"
        << (r.flaky_fails ? "; they fail the run (--flaky-fails)." : "; they do not fail the run.")
        << "\n\n| where | case | what happened |\n|---|---|---|\n";
    for (const Failure* f : flaky)
      out << "| " << f->counts_at.to_string() << " | `" << cell_text(f->case_name) << "` | "
          << cell_text(f->detail) << " |\n";
  }
  if (!r.profile.empty()) {
    out << "\n## Behaviour on unspecified (class U) cases\n\n| rule | what the backend did |\n|---|---|\n";
    for (const BehaviourCounts& b : r.profile) out << "| " << b.rule << " | " << profile_text(b) << " |\n";
  }
  if (r.code_coverage && r.code_coverage->instrumented) {
    const CodeCoverageSummary code = summarize_code(r);
    out << "\n## Code coverage\n\nThe share of the backend's own code the run reached (docs/coverage.md).\n\n"
        << "| operator | edges | functions |\n|---|--:|--:|\n| all | " << code.edges.text() << " | "
        << code.functions.text() << " |\n";
    for (const auto& o : code.operators)
      out << "| " << name(o.op) << " | " << o.edges.text() << " | " << o.functions.text() << " |\n";
    out << "\n| source file | edges | functions |\n|---|--:|--:|\n";
    for (const auto& f : code.files)
      out << "| " << (f.file.empty() ? "(no line information)" : cell_text(f.file)) << " | " << f.edges.text()
          << " | " << f.functions.text() << " |\n";
    if (!code.never_reached.empty()) {
      out << "\nNever reached (" << code.never_reached.size() << " functions):\n\n";
      for (const CodeFunction* f : code.never_reached)
        out << "- `" << cell_text(f->name) << "`"
            << (f->file.empty() ? "" : " " + cell_text(f->file) + ":" + std::to_string(f->line)) << "\n";
    }
  }
  out << "\n## Rule checks\n\n| section | rule | status | cases |\n|---|---|---|---|\n";
  for (const RuleResult& rule : r.rules) {
    uint64_t n = 0;
    for (uint64_t k : rule.counts) n += k;
    out << "| " << name(rule.section) << " | " << rule.rule << " | "
        << status_word(rule.counts, rule.not_run.count) << " | " << n << " |\n";
  }
  return out.str();
}

}  // namespace dmlcert::cert

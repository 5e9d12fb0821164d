// A self-contained HTML page: the verdict and scope first, then the run's facts, the failures
// grouped by cause (each with the command that reproduces it and labelled links to its files),
// the coloured matrix (one row per operator row and type, one column per rank; a cell that did not
// pass links to its cause), the behaviour profile, the expectations, the rule checks and what the
// backend printed.
#include <map>
#include <set>
#include <sstream>

#include "markup.h"
#include "report.h"
#include "report_code_coverage.h"
#include "report_matrix.h"
#include "report_summary.h"

namespace dmlcert::cert {
namespace {

constexpr const char* kStyle = R"(<style>
body{font-family:system-ui,sans-serif;margin:1.5em;max-width:80em;color:#222}
h1{font-size:1.5em;margin:.2em 0}.verdict{padding:.6em 1em;border-radius:6px}
.yes{background:#dff3df;border:1px solid #8fd18f}.no{background:#fbe3e3;border:1px solid #f08080}
table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;padding:2px 6px;font-size:12px}
th{background:#f4f4f4}td.l,th.l{text-align:left}td.m{text-align:center;min-width:1.6em}
dl.facts{display:grid;grid-template-columns:max-content auto;gap:.2em 1em;margin:.8em 0}dl.facts dt{font-weight:600}
dl.facts dd{margin:0}code,pre{background:#f6f6f6;font-size:12px}pre{padding:.4em;overflow-x:auto;white-space:pre-wrap}
.passed{background:#8fd18f}.failed,.mistrusted{background:#f08080}.crash{background:#b22222;color:#fff}
.timeout{background:#ff9f40}.oob,.late-write,.limit{background:#9b59b6;color:#fff}.unimplemented{background:#e4e4e4}
.flaky{background:#d6ecff}.not-run{background:#fff}.stopped{background:#ffe08a}a{color:inherit}.group{border-left:4px solid #f08080;padding-left:.8em;margin:1em 0}.group.known{border-left-color:#ccc;color:#555}.known-tag{background:#e4e4e4}
.legend span{padding:0 .4em;margin-right:.3em;border:1px solid #ccc}
</style>)";

std::string escaped(const std::string& s) {
  return markup_escape(s);
}

}  // namespace

std::string to_html(const Report& r, const std::string& link_base) {
  std::ostringstream out;
  const bool ok = certified(r);
  auto link = [&](const std::string& label, const std::string& path) {
    return "<a href=\"" + escaped(relative_link(path, link_base)) + "\">" + escaped(label) + "</a>";
  };
  out << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>" << escaped(verdict(r))
      << " — " << escaped(r.backend_name) << "</title>" << kStyle << "</head><body>\n";
  out << "<div class=\"verdict " << (ok ? "yes" : "no") << "\"><h1>" << escaped(verdict(r)) << "</h1>";
  if (!r.stopped.empty()) out << "<p><strong>Incomplete:</strong> " << escaped(r.stopped) << "</p>";
  if (slow(r)) out << "<p><strong>Slow:</strong> the backend took " << escaped(speed_text(r)) << "</p>";
  if (!r.repro_error.empty()) out << "<p><strong>Repro files:</strong> " << escaped(r.repro_error) << "</p>";
  if (r.expectations) out << "<p>Expectations: " << escaped(expectations_text(*r.expectations)) << "</p>";
  out << "</div>\n<dl class=\"facts\">";
  auto fact = [&](const std::string& term, const std::string& value) {
    out << "<dt>" << escaped(term) << "</dt><dd>" << value << "</dd>";
  };
  fact("Backend", escaped(r.backend_name) + " (<code>" + escaped(r.backend) + "</code>), claims level " +
                      std::string(name(r.backend_max_level)));
  fact("Scope", escaped(scope_text(r)));
  if (const std::string outside = outside_text(r); !outside.empty())
    fact("Outside the scope", escaped(outside));
  fact("Level and budget",
       std::string(name(r.level)) + ", " + escaped(r.budget) + " budget, seed " + std::to_string(r.seed));
  fact("Run", escaped(r.started) + ", " + std::to_string(static_cast<int64_t>(r.seconds)) + " s, dmlcert " +
                  escaped(r.dmlcert_version));
  if (const std::string speed = speed_text(r); !speed.empty()) fact("Backend time", escaped(speed));
  if (!r.containment.empty()) fact("Containment", escaped(r.containment));
  if (const std::string code = code_coverage_line(r); !code.empty())
    fact("Code coverage", escaped(code.substr(code.find(": ") + 2)));
  std::string cases;
  const Counts t = totals(r);
  for (int i = 0; i < kOutcomeCount; ++i)
    if (t[i])
      cases += "<span class=\"" + std::string(name(static_cast<Outcome>(i))) + "\">&nbsp;" +
               std::to_string(t[i]) + " " + std::string(name(static_cast<Outcome>(i))) + "&nbsp;</span> ";
  fact("Cases", cases);
  out << "</dl>\n";

  // Failures by cause, each with an anchor the matrix links to.
  const auto groups = group_failures(r);
  std::map<std::string, size_t> group_of_cell;  // cell key -> group number
  if (!groups.empty()) {
    out << "<h2>Failures by cause</h2>\n<p>" << counted(failures_in(groups), "failure") << ", "
        << counted(groups.size(), "cause") << ", most frequent first.</p>\n";
    for (size_t gi = 0; gi < groups.size(); ++gi) {
      const FailureGroup& g = groups[gi];
      out << "<div class=\"group" << (g.known ? " known" : "") << "\" id=\"cause-" << gi + 1 << "\"><h3>"
          << gi + 1 << ". " << escaped(g.cause.where) << ": <span class=\"" << name(g.outcome) << "\">&nbsp;"
          << escaped(g.cause.family) << "&nbsp;</span> in " << g.failures.size() << " case"
          << (g.failures.size() == 1 ? "" : "s")
          << (g.known ? " <span class=\"known-tag\">&nbsp;known failure (--expect)&nbsp;</span>" : "")
          << "</h3>\n<p>" << escaped(g.detail) << "</p>\n";
      out << "<p>In " << counted(g.checks.size(), "check") << " (" << escaped(first_few(g.checks, 8))
          << ") at " << levels_text(g.levels) << ".";
      if (const std::string m = minimal_case(*g.example); !m.empty())
        out << " Minimal case: " << link("case", m) << ".";
      out << "</p>\n";
      if (!g.example->reproduce.empty())
        out << "<p>Reproduce:</p><pre>" << escaped(g.example->reproduce) << "</pre>\n";
      if (!g.example->backend_output.empty())
        out << "<p>The backend printed:</p><pre>" << escaped(g.example->backend_output.substr(0, 4096))
            << "</pre>\n";
      out << "<table><tr><th class=\"l\">case</th><th>confirmation</th><th class=\"l\">files</th></tr>\n";
      for (size_t i = 0; i < g.failures.size(); ++i) {
        const Failure& f = *g.failures[i];
        if (f.counts_at.kind == CheckKind::Cell) group_of_cell.emplace(f.counts_at.to_string(), gi + 1);
        if (i == 20) {
          out << "<tr><td class=\"l\" colspan=\"3\">... and " << g.failures.size() - 20
              << " more (the JSON report lists them all)</td></tr>\n";
          break;
        }
        out << "<tr><td class=\"l\"><code>" << escaped(f.id.to_string()) << "</code></td><td>"
            << name(f.confirmation) << "</td><td class=\"l\">";
        if (!f.repro.empty()) out << link("case file", f.repro);
        if (!f.shrunk.empty()) out << " · " << link("shrunk case", f.shrunk);
        if (!f.sequence.empty()) out << " · " << link("sequence that fails", f.sequence);
        out << "</td></tr>\n";
      }
      out << "</table></div>\n";
    }
  }

  out << "<h2>Support matrix at " << name(r.level) << "</h2>\n<p class=\"legend\">";
  for (const char* word : {"passed", "failed", "crash", "timeout", "oob", "late-write", "limit",
                           "unimplemented", "mistrusted", "flaky", "stopped"})
    out << "<span class=\"" << word << "\">" << word << "</span>";
  out << " · unimplemented: outside the backend's scope · flaky: failed once, passed when run again alone"
      << " · a cell that did not pass links to its cause</p>\n";
  std::set<uint32_t> ranks;
  for (const CellResult& c : r.cells) ranks.insert(c.cell.rank);
  out << "<table><tr><th class=\"l\">operator</th><th class=\"l\">type</th>";
  for (uint32_t k : ranks) out << "<th>rank " << k << "</th>";
  out << "</tr>\n";
  for (const MatrixRow& row : build_matrix(r)) {
    for (const auto& [type, entry] : row.by_type) {
      out << "<tr><td class=\"l\">" << escaped(row.label) << "</td><td class=\"l\">" << name(type) << "</td>";
      for (uint32_t k : ranks) {
        auto it = row.by_type_rank.find({type, k});
        if (it == row.by_type_rank.end()) {
          out << "<td></td>";
          continue;
        }
        const MatrixEntry& m = it->second;
        const std::string word = status_word(m.counts, m.not_run, m.outside);
        out << "<td class=\"m " << word << "\" title=\"";
        for (int i = 0; i < kOutcomeCount; ++i)
          if (m.counts[i]) out << m.counts[i] << ' ' << name(static_cast<Outcome>(i)) << ' ';
        if (m.not_run) out << m.not_run << " not run";
        out << "\">";
        // The first cell of this (row, type, rank) with a recorded failure names its cause.
        size_t cause = 0;
        for (const CellResult& c : r.cells)
          if (matrix_row(c.cell) == row.label && c.cell.type == type && c.cell.rank == k)
            if (auto g = group_of_cell.find(CheckId::of_cell(c.cell).to_string()); g != group_of_cell.end())
              cause = g->second;
        if (cause)
          out << "<a href=\"#cause-" << cause << "\" title=\"cause " << cause << "\">"
              << status_letter(m.counts, m.not_run, m.outside) << "</a>";
        else
          out << status_letter(m.counts, m.not_run, m.outside);
        out << "</td>";
      }
      out << "</tr>\n";
    }
  }
  out << "</table>\n";

  if (const auto flaky = flaky_failures(r); !flaky.empty()) {
    out << "<h2>Flaky (" << counted(flaky.size(), "case")
        << ")</h2>\n<p>Failed once, passed when run again alone"
        << (r.flaky_fails ? "; they fail the run (--flaky-fails)." : "; they do not fail the run.")
        << "</p>\n<table><tr><th class=\"l\">where</th><th class=\"l\">case</th><th class=\"l\">what "
           "happened</th></tr>\n";
    for (const Failure* f : flaky)
      out << "<tr><td class=\"l\">" << escaped(f->counts_at.to_string()) << "</td><td class=\"l\"><code>"
          << escaped(f->case_name) << "</code></td><td class=\"l flaky\">" << escaped(f->detail)
          << "</td></tr>\n";
    out << "</table>\n";
  }
  if (!r.profile.empty()) {
    out << "<h2>Behaviour on unspecified (class U) cases</h2>\n<p>What the backend did where the "
           "specification "
           "leaves the result open: rejected, or executed with which reading.</p>\n<table><tr><th "
           "class=\"l\">rule</th>"
           "<th class=\"l\">what the backend did (cases)</th></tr>\n";
    for (const BehaviourCounts& b : r.profile)
      out << "<tr><td class=\"l\">" << escaped(b.rule) << "</td><td class=\"l\">" << escaped(profile_text(b))
          << "</td></tr>\n";
    out << "</table>\n";
  }

  if (r.expectations) {
    out << "<h2>Expectations (" << escaped(r.expectations->file)
        << ")</h2>\n<table><tr><th class=\"l\">entry</th>"
        << "<th>status</th><th class=\"l\">reason</th><th>expires</th><th class=\"l\">now</th></tr>\n";
    for (const auto& entry : r.expectations->entries)
      out << "<tr><td class=\"l\"><code>" << (entry.cause ? "cause " : "") << escaped(entry.pattern)
          << "</code></td><td>" << escaped(entry.status) << "</td><td class=\"l\">" << escaped(entry.reason)
          << "</td><td>" << escaped(entry.expires) << "</td><td class=\"l\">"
          << (entry.expired           ? "expired"
              : entry.not_run         ? "not run here"
              : entry.matched.empty() ? "passes: remove the entry"
                                      : "still failing (" + std::to_string(entry.matched.size()) + ")")
          << "</td></tr>\n";
    out << "</table>\n";
  }

  size_t passing = 0;
  std::ostringstream rows;
  for (const RuleResult& rule : r.rules) {
    const std::string word = status_word(rule.counts, rule.not_run.count);
    if (word == "passed") {
      ++passing;
      continue;
    }
    rows << "<tr><td>" << name(rule.section) << "</td><td class=\"l\">" << escaped(rule.rule)
         << "</td><td class=\"m " << word << "\">" << word << "</td></tr>\n";
  }
  out << "<h2>Rule checks</h2>\n<p>" << passing << " of " << r.rules.size() << " passed"
      << (passing == r.rules.size() ? "." : "; the others:") << "</p>\n";
  if (passing != r.rules.size())
    out << "<table><tr><th>section</th><th class=\"l\">rule</th><th>status</th></tr>\n"
        << rows.str() << "</table>\n";

  if (r.code_coverage && r.code_coverage->instrumented) {
    const CodeCoverageSummary code = summarize_code(r);
    out << "<h2>Code coverage</h2>\n<p>The share of the backend's own code the run reached.</p>\n"
        << "<table><tr><th class=\"l\">operator</th><th>edges</th><th>functions</th></tr>\n<tr><td "
           "class=\"l\">all</td><td>"
        << code.edges.text() << "</td><td>" << code.functions.text() << "</td></tr>\n";
    for (const auto& o : code.operators)
      out << "<tr><td class=\"l\">" << name(o.op) << "</td><td>" << o.edges.text() << "</td><td>"
          << o.functions.text() << "</td></tr>\n";
    out << "</table>\n<table><tr><th class=\"l\">source file</th><th>edges</th><th>functions</th></tr>\n";
    for (const auto& f : code.files)
      out << "<tr><td class=\"l\">" << escaped(f.file.empty() ? "(no line information)" : f.file)
          << "</td><td>" << f.edges.text() << "</td><td>" << f.functions.text() << "</td></tr>\n";
    out << "</table>\n";
    if (!code.never_reached.empty()) {
      out << "<details><summary>Never reached: " << code.never_reached.size() << " functions</summary><ul>\n";
      for (const CodeFunction* f : code.never_reached)
        out << "<li><code>" << escaped(f->name) << "</code>"
            << (f->file.empty() ? "" : " " + escaped(f->file) + ":" + std::to_string(f->line)) << "</li>\n";
      out << "</ul></details>\n";
    }
  }

  if (r.backend_output.calls) {
    out << "<h2>What the backend printed</h2>\n<p>" << r.backend_output.bytes << " bytes in "
        << r.backend_output.calls << " calls; the first 64 KiB of a call are kept. Samples:</p>\n";
    for (const auto& sample : r.backend_output.samples)
      out << "<p><code>" << escaped(sample.where) << "</code> (" << sample.dropped
          << " bytes more not kept)</p><pre>" << escaped(sample.text.substr(0, 2048))
          << (sample.text.size() > 2048 ? "\n..." : "") << "</pre>\n";
  }
  out << "</body></html>\n";
  return out.str();
}

}  // namespace dmlcert::cert

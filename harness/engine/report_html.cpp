// A self-contained HTML page: the verdict, then a coloured matrix with one row per operator
// (and REDUCE function) row and data type, one column per rank; each cell that did not pass
// links to its repro files.
#include <set>
#include <sstream>

#include "markup.h"
#include "report.h"
#include "report_matrix.h"

namespace dmlcert::cert {
namespace {

constexpr const char* kStyle = R"(<style>
body{font-family:sans-serif;margin:1.5em}table{border-collapse:collapse}td,th{border:1px solid #ccc;
padding:2px 6px;text-align:center;font-size:12px}th.row,td.row{text-align:left}
.passed{background:#8fd18f}.failed,.mistrusted{background:#f08080}.crash{background:#b22222;color:#fff}
.timeout{background:#ff9f40}.oob,.late-write,.limit{background:#9b59b6;color:#fff}.unimplemented{background:#ddd}
.not-run{background:#fff8c4}.stopped{background:#ffe08a}.absent{background:#fff}a{color:inherit}
</style>)";

}  // namespace

std::string to_html(const Report& r, const std::string& link_base) {
  std::ostringstream out;
  bool ok = certified(r);
  out << "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>dmlcert certification: "
      << markup_escape(r.backend_name) << "</title>" << kStyle << "</head><body>\n";
  out << "<h1>" << (ok ? "CERTIFIED" : "NOT CERTIFIED") << " at level " << name(r.level) << "</h1>\n";
  out << "<p>Backend <code>" << markup_escape(r.backend) << "</code> (" << markup_escape(r.backend_name)
      << ", claims " << name(r.backend_max_level) << "), budget " << markup_escape(r.budget) << ", "
      << static_cast<int>(r.seconds) << " s.</p>\n<p>";
  Counts t = totals(r);
  for (int i = 0; i < kOutcomeCount; ++i)
    if (t[i])
      out << "<span class=\"" << name(static_cast<Outcome>(i)) << "\">&nbsp;" << t[i] << ' '
          << name(static_cast<Outcome>(i)) << "&nbsp;</span> ";
  out << "</p>\n";

  std::vector<MatrixRow> rows = build_matrix(r);
  std::set<uint32_t> ranks;
  for (const CellResult& c : r.cells) ranks.insert(c.cell.rank);
  out << "<table><tr><th class=\"row\">operator</th><th>type</th>";
  for (uint32_t k : ranks) out << "<th>rank " << k << "</th>";
  out << "</tr>\n";
  for (const MatrixRow& row : rows) {
    for (const auto& [type, entry] : row.by_type) {
      out << "<tr><td class=\"row\">" << markup_escape(row.label) << "</td><td>" << name(type) << "</td>";
      for (uint32_t k : ranks) {
        auto it = row.by_type_rank.find({type, k});
        if (it == row.by_type_rank.end()) {
          out << "<td class=\"absent\"></td>";
          continue;
        }
        const MatrixEntry& e = it->second;
        std::string word = status_word(e.counts, e.not_run);
        out << "<td class=\"" << word << "\" title=\"";
        for (int i = 0; i < kOutcomeCount; ++i)
          if (e.counts[i]) out << e.counts[i] << ' ' << name(static_cast<Outcome>(i)) << ' ';
        out << "\">";
        if (!e.repros.empty())
          out << "<a href=\"" << markup_escape(relative_link(e.repros.front(), link_base)) << "\">"
              << status_letter(e.counts, e.not_run) << "</a>";
        else
          out << status_letter(e.counts, e.not_run);
        for (size_t i = 1; i < e.repros.size() && i < 4; ++i)
          out << " <a href=\"" << markup_escape(relative_link(e.repros[i], link_base)) << "\">" << i + 1
              << "</a>";
        out << "</td>";
      }
      out << "</tr>\n";
    }
  }
  out << "</table>\n<h2>Rule checks</h2>\n<table><tr><th>section</th><th "
         "class=\"row\">rule</th><th>status</th>"
         "<th>repro</th></tr>\n";
  for (const RuleResult& rule : r.rules) {
    std::string word = status_word(rule.counts, rule.not_run.count);
    out << "<tr><td>" << name(rule.section) << "</td><td class=\"row\">" << markup_escape(rule.rule)
        << "</td><td class=\"" << word << "\">" << word << "</td><td>";
    for (size_t i = 0; i < rule.repros.size() && i < 3; ++i)
      out << "<a href=\"" << markup_escape(relative_link(rule.repros[i], link_base)) << "\">" << i + 1
          << "</a> ";
    out << "</td></tr>\n";
  }
  out << "</table>\n";
  if (!r.failures.empty()) {
    out << "<h2>Failures</h2>\n<ul>\n";
    for (const Failure& f : r.failures) {
      out << "<li><code>" << markup_escape(f.where) << "</code> <span class=\"" << name(f.outcome) << "\">"
          << name(f.outcome) << "</span> " << markup_escape(f.detail) << " <a href=\""
          << markup_escape(relative_link(f.repro, link_base)) << "\">case</a>";
      if (!f.shrunk.empty())
        out << " <a href=\"" << markup_escape(relative_link(f.shrunk, link_base)) << "\">shrunk</a>";
      out << "</li>\n";
    }
    out << "</ul>\n";
  }
  out << "</body></html>\n";
  return out.str();
}

}  // namespace dmlcert::cert

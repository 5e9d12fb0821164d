// JUnit XML for CI dashboards: one testsuite per section, one testcase per support-table cell
// and per rule; a cell or rule that did not pass is a <failure> naming its repro files.
#include <sstream>

#include "markup.h"
#include "report.h"
#include "report_matrix.h"

namespace dmlcert::cert {
namespace {

struct Entry {
  std::string name;
  Counts counts;
  const std::vector<std::string>* repros;
};

void suite(std::ostringstream& out, const std::string& suite_name, const std::vector<Entry>& entries) {
  size_t failures = 0, skipped = 0;
  for (const Entry& e : entries) {
    auto s = status(e.counts);
    if (!s)
      ++skipped;
    else if (*s != Outcome::Passed)
      ++failures;
  }
  out << "  <testsuite name=\"" << markup_escape(suite_name) << "\" tests=\"" << entries.size()
      << "\" failures=\"" << failures << "\" skipped=\"" << skipped << "\">\n";
  for (const Entry& e : entries) {
    out << "    <testcase classname=\"dmlcert." << markup_escape(suite_name) << "\" name=\""
        << markup_escape(e.name) << "\"";
    auto s = status(e.counts);
    if (s && *s == Outcome::Passed) {
      out << "/>\n";
      continue;
    }
    out << ">\n";
    if (!s) {
      out << "      <skipped message=\"not run in this shard\"/>\n";
    } else {
      std::string counts;
      for (int i = 0; i < kOutcomeCount; ++i)
        if (e.counts[i])
          counts += std::to_string(e.counts[i]) + " " + std::string(name(static_cast<Outcome>(i))) + " ";
      out << "      <failure type=\"" << name(*s) << "\" message=\"" << name(*s) << ": "
          << markup_escape(counts) << "\">";
      for (const std::string& repro : *e.repros) out << markup_escape("repro: " + repro) << "\n";
      out << "</failure>\n";
    }
    out << "    </testcase>\n";
  }
  out << "  </testsuite>\n";
}

}  // namespace

std::string to_junit(const Report& r) {
  std::ostringstream out;
  Counts t = totals(r);
  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out << "<testsuites name=\"dmlcert certify " << markup_escape(r.backend_name) << " level " << name(r.level)
      << "\" time=\"" << r.seconds << "\">\n";
  std::vector<Entry> cells, rules[3];
  for (const CellResult& c : r.cells) cells.push_back({cell_key(c.cell), c.counts, &c.repros});
  suite(out, "cells", cells);
  for (const RuleResult& rule : r.rules)
    rules[static_cast<int>(rule.section)].push_back({rule.rule, rule.counts, &rule.repros});
  for (RuleSection s : {RuleSection::Invalid, RuleSection::Unspecified, RuleSection::Robustness})
    if (!rules[static_cast<int>(s)].empty()) suite(out, std::string(name(s)), rules[static_cast<int>(s)]);
  static const std::vector<std::string> kNone;
  if (status(r.corpus)) suite(out, "corpus", {{"corpus replay", r.corpus, &kNone}});
  (void)t;
  out << "</testsuites>\n";
  return out.str();
}

}  // namespace dmlcert::cert

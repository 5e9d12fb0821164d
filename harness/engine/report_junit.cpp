// JUnit XML for CI dashboards: first the causes (one testcase per bug, report_summary.h), then one
// testsuite per section, one testcase per support-table cell and per rule check. A cell or check
// that did not pass is a <failure> with the command that reproduces it; one outside the scope, not
// run, or a known failure (--expect) is <skipped>, saying which; one whose only failures were flaky
// passes, with a <flakyFailure> each (a <failure> with certify --flaky-fails). Each suite's
// properties carry the run's facts, what lies outside the scope and the behaviour profile.
#include <algorithm>
#include <cstdio>
#include <optional>
#include <sstream>

#include "expectations.h"
#include "markup.h"
#include "report.h"
#include "report_code_coverage.h"
#include "report_matrix.h"
#include "report_summary.h"

namespace dmlcert::cert {
namespace {

struct Entry {
  std::optional<CheckId> check;  // none: a corpus case (corpus_case), or the whole corpus
  std::string key;               // as failing_keys() names it
  std::string name;
  Counts counts;
  const NotRun* not_run;
  bool outside_scope = false;
  double seconds = 0;
  std::string corpus_case = {};  // the corpus case's name
};

// The failures that count against an entry's check (a corpus case's entry: against that case; the
// whole corpus's: against any corpus case).
std::vector<const Failure*> failures_of(const Report& r, const Entry& e) {
  std::vector<const Failure*> out;
  for (const Failure& f : r.failures)
    if (e.check ? f.counts_at == *e.check
                : f.counts_at.kind == CheckKind::Corpus &&
                      (e.corpus_case.empty() || f.counts_at.name == e.corpus_case))
      out.push_back(&f);
  return out;
}

// Every case it ran was unimplemented: the backend does not claim it.
bool outside(const Entry& e) {
  return e.outside_scope || status(e.counts) == Outcome::Unimplemented;
}

const ExpectationCheck::Entry* known(const Report& r, const std::string& key) {
  if (!r.expectations) return nullptr;
  // The entry that covered the key when the expectations were held (check_expectations): a cause
  // entry covers keys its pattern does not spell.
  for (const auto& e : r.expectations->entries)
    if (std::find(e.matched.begin(), e.matched.end(), key) != e.matched.end()) return &e;
  return nullptr;
}

// What a dashboard shows beside the results: which backend, what was asked, which dmlcert.
void properties(std::ostringstream& out, const Report& r) {
  const std::pair<const char*, std::string> rows[] = {
      {"backend", r.backend},
      {"backend_name", r.backend_name},
      {"level", std::string(name(r.level))},
      {"scope", scope_text(r)},
      {"budget", r.budget},
      {"seed", std::to_string(r.seed)},
      {"started", r.started},
      {"dmlcert_version", r.dmlcert_version},
  };
  auto property = [&out](const std::string& key, const std::string& value) {
    out << "      <property name=\"" << markup_escape(key) << "\" value=\"" << markup_escape(value)
        << "\"/>\n";
  };
  out << "    <properties>\n";
  for (const auto& [key, value] : rows) property(key, value);
  if (const std::string outside = outside_text(r); !outside.empty()) property("outside_scope", outside);
  if (const std::string code = code_coverage_line(r); !code.empty()) property("code_coverage", code);
  // The behaviour profile: what the backend did with each class U rule's cases.
  for (const BehaviourCounts& b : r.profile) property("behaviour." + b.rule, profile_text(b));
  out << "    </properties>\n";
}

void suite(std::ostringstream& out, const Report& r, const std::string& suite_name,
           const std::vector<Entry>& entries) {
  size_t failures = 0, skipped = 0;
  for (const Entry& e : entries) {
    auto s = status(e.counts);
    if (!s || outside(e) || known(r, e.key))
      ++skipped;
    else if (*s != Outcome::Passed && !(*s == Outcome::Flaky && !r.flaky_fails))
      ++failures;
  }
  double seconds = 0;
  for (const Entry& e : entries) seconds += e.seconds;
  char suite_time[32];
  std::snprintf(suite_time, sizeof suite_time, "%.3f", seconds);
  out << "  <testsuite name=\"" << markup_escape(suite_name) << "\" tests=\"" << entries.size()
      << "\" failures=\"" << failures << "\" skipped=\"" << skipped << "\" time=\"" << suite_time << "\">\n";
  properties(out, r);
  for (const Entry& e : entries) {
    char time[32];
    std::snprintf(time, sizeof time, "%.3f", e.seconds);
    out << "    <testcase classname=\"dmlcert." << markup_escape(suite_name) << "\" name=\""
        << markup_escape(e.name) << "\" time=\"" << time << "\"";
    auto s = status(e.counts);
    if (s && *s == Outcome::Passed) {
      out << "/>\n";
      continue;
    }
    out << ">\n";
    if (outside(e)) {
      out << "      <skipped message=\"outside the scope: the backend does not claim this cell\"/>\n";
    } else if (!s) {
      out << "      <skipped message=\""
          << markup_escape(e.not_run->count ? "not run: " + e.not_run->reason : "not run in this shard")
          << "\"/>\n";
    } else if (*s == Outcome::Flaky && !r.flaky_fails) {
      // A pass, with what failed once and not again: the element Maven Surefire writes for a test
      // that passed on a rerun, which dashboards that know it show as flaky.
      for (const Failure* f : failures_of(r, e))
        if (f->outcome == Outcome::Flaky)
          out << "      <flakyFailure type=\"flaky\" message=\""
              << markup_escape(f->case_name + ": " + f->detail) << "\">"
              << markup_escape(f->reproduce.empty() ? "" : "reproduce: " + f->reproduce)
              << "</flakyFailure>\n";
    } else if (const auto* k = known(r, e.key)) {
      out << "      <skipped message=\"" << markup_escape("known failure (" + k->pattern + "): " + k->reason)
          << "\"/>\n";
    } else {
      std::string counts;
      for (int i = 0; i < kOutcomeCount; ++i)
        if (e.counts[i])
          counts += std::to_string(e.counts[i]) + " " + std::string(name(static_cast<Outcome>(i))) + " ";
      const auto fs = failures_of(r, e);
      out << "      <failure type=\"" << name(*s) << "\" message=\""
          << markup_escape(std::string(name(*s)) + ": " + counts +
                           (fs.empty() ? "" : "- " + fs.front()->detail))
          << "\">";
      for (const Failure* f : fs) {
        out << markup_escape(f->id.to_string() + ": " + f->detail) << "\n";
        if (!f->reproduce.empty()) out << markup_escape("  reproduce: " + f->reproduce) << "\n";
        if (const std::string m = minimal_case(*f); !m.empty())
          out << markup_escape("  minimal case: " + m) << "\n";
      }
      out << "</failure>\n";
    }
    out << "    </testcase>\n";
  }
  out << "  </testsuite>\n";
}

// One testcase per cause, each failure naming the checks and levels it covers, the command that
// reproduces it and its minimal case: what a dashboard counts as the run's problems.
void causes_suite(std::ostringstream& out, const Report& r, const std::vector<FailureGroup>& groups) {
  size_t known_causes = 0;
  for (const FailureGroup& g : groups) known_causes += g.known;
  out << "  <testsuite name=\"causes\" tests=\"" << groups.size() << "\" failures=\""
      << groups.size() - known_causes << "\" skipped=\"" << known_causes << "\">\n";
  properties(out, r);
  for (const FailureGroup& g : groups) {
    out << "    <testcase classname=\"dmlcert.causes\" name=\"" << markup_escape(g.cause.name()) << "\">\n";
    if (g.known) {
      out << "      <skipped message=\""
          << markup_escape("known failure (--expect): " + std::to_string(g.failures.size()) + " cases")
          << "\"/>\n";
    } else {
      out << "      <failure type=\"" << name(g.outcome) << "\" message=\"" << markup_escape(g.detail)
          << "\">";
      out << markup_escape(std::to_string(g.failures.size()) + " failing cases in " +
                           counted(g.checks.size(), "check") + " at " + levels_text(g.levels) + ": " +
                           first_few(g.checks, 20))
          << "\n";
      if (!g.example->reproduce.empty()) out << markup_escape("reproduce: " + g.example->reproduce) << "\n";
      if (const std::string m = minimal_case(*g.example); !m.empty())
        out << markup_escape("minimal case: " + m) << "\n";
      out << "</failure>\n";
    }
    out << "    </testcase>\n";
  }
  out << "  </testsuite>\n";
}

}  // namespace

std::string to_junit(const Report& r) {
  std::ostringstream out;
  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out << "<testsuites name=\"" << markup_escape("dmlcert certify: " + verdict(r)) << "\" time=\"" << r.seconds
      << "\">\n";
  if (const auto groups = group_failures(r); !groups.empty()) causes_suite(out, r, groups);
  std::vector<Entry> cells, rules[3];
  for (const CellResult& c : r.cells)
    cells.push_back({CheckId::of_cell(c.cell), cell_key(c.cell), cell_key(c.cell), c.counts, &c.not_run,
                     outside_scope(r, c), c.seconds});
  suite(out, r, "cells", cells);
  for (const RuleResult& rule : r.rules)
    rules[static_cast<int>(rule.section)].push_back(
        {CheckId::of_rule(rule.section, rule.rule), CheckId::of_rule(rule.section, rule.rule).to_string(),
         rule.rule, rule.counts, &rule.not_run, false, rule.seconds});
  for (RuleSection s : {RuleSection::Invalid, RuleSection::Unspecified, RuleSection::Robustness})
    if (!rules[static_cast<int>(s)].empty()) suite(out, r, std::string(name(s)), rules[static_cast<int>(s)]);
  // One testcase per corpus case; a report from before they were counted one by one has the whole
  // corpus as one.
  std::vector<Entry> corpus;
  for (const CorpusCaseResult& c : r.corpus_cases) {
    Entry e{std::nullopt, "", c.name, c.counts, &r.corpus_not_run, false, c.seconds, c.name};
    const auto fs = failures_of(r, e);
    e.key =
        fs.empty() ? CheckId::corpus_case(0, c.name).check().to_string() : fs.front()->counts_at.to_string();
    corpus.push_back(std::move(e));
  }
  if (corpus.empty() && (status(r.corpus) || r.corpus_not_run.count))
    corpus.push_back({std::nullopt, "corpus", "corpus replay", r.corpus, &r.corpus_not_run});
  if (!corpus.empty()) suite(out, r, "corpus", corpus);
  out << "</testsuites>\n";
  return out.str();
}

}  // namespace dmlcert::cert

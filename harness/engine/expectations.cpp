#include "expectations.h"

#include <algorithm>
#include <ctime>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>

#include "dmlcert/case.h"
#include "dmlcert/text.h"
#include "report_summary.h"

namespace dmlcert::cert {
namespace {

bool is_date(const std::string& s) {
  static const std::regex kDate(R"(\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01]))");
  return std::regex_match(s, kDate);
}

std::string trim(const std::string& s) {
  const size_t first = s.find_first_not_of(" \t\r");
  if (first == std::string::npos) return {};
  return s.substr(first, s.find_last_not_of(" \t\r") - first + 1);
}

}  // namespace

bool glob_match(std::string_view pattern, std::string_view key) {
  // Iterative wildcard matching: on a mismatch, retry the last `*` one character further on.
  size_t p = 0, k = 0, star = std::string_view::npos, resume = 0;
  while (k < key.size()) {
    if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      resume = k;
    } else if (p < pattern.size() && pattern[p] == key[k]) {
      ++p, ++k;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      k = ++resume;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

std::string today_utc() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  ::gmtime_r(&now, &utc);
  char buf[16];
  std::strftime(buf, sizeof buf, "%Y-%m-%d", &utc);
  return buf;
}

const std::vector<std::string>& expectation_statuses() {
  static const std::vector<std::string> kStatuses{"fail", "crash", "flaky", "either"};
  return kStatuses;
}

std::string expectation_status(Outcome outcome) {
  switch (outcome) {
    case Outcome::Crash:
    case Outcome::Timeout:
    case Outcome::Limit: return "crash";
    case Outcome::Flaky: return "flaky";
    default: return "fail";
  }
}

namespace {

bool admits(const ExpectationCheck::Entry& entry, Outcome outcome) {
  return entry.status == "either" || entry.status == expectation_status(outcome);
}

bool live(const ExpectationCheck::Entry& entry, const std::string& today) {
  return entry.expires.empty() || entry.expires >= today;
}

// A cause entry names the cause as the reports do: the operator ("REDUCE: ..."), or its REDUCE
// function when every failure of the cause was in one ("REDUCE.SUM: ..."). Another seed may find
// the same bug in a second function, so a function's entry covers that function's failures and an
// operator's entry all of them.
bool covers_cause(const ExpectationCheck::Entry& entry, const Failure& f) {
  const Cause c = cause_of(f);
  if (glob_match(entry.pattern, c.name())) return true;
  const bool in_cell = f.id.kind == CheckKind::Cell || f.id.kind == CheckKind::Sequence;
  const std::string function = in_cell ? f.id.subject() : f.op;
  return function.starts_with(c.where + ".") && glob_match(entry.pattern, function + ": " + c.family);
}

bool covers(const ExpectationCheck::Entry& entry, const Failure& f) {
  if (!admits(entry, f.outcome)) return false;
  return entry.cause ? covers_cause(entry, f) : glob_match(entry.pattern, f.counts_at.to_string());
}

// The failures that make a check fail: a flaky one only when the run counts it.
bool counts(const Report& r, const Failure& f) {
  return f.outcome != Outcome::Flaky || r.flaky_fails;
}

// Reads `word=value` options before the reason, in any order.
bool read_options(std::string* rest, ExpectationCheck::Entry* entry, std::string* why) {
  for (;;) {
    const bool status = rest->starts_with("status="), expires = rest->starts_with("expires=");
    if (!status && !expires) return true;
    const size_t end = rest->find_first_of(" \t");
    const size_t from = status ? 7 : 8;
    const std::string value = rest->substr(from, end == std::string::npos ? std::string::npos : end - from);
    *rest = end == std::string::npos ? "" : trim(rest->substr(end));
    if (expires) {
      entry->expires = value;
      if (!is_date(value)) {
        *why = "expires='" + printable(value, 40) + "' is not a date YYYY-MM-DD";
        return false;
      }
    } else {
      const auto& all = expectation_statuses();
      if (std::find(all.begin(), all.end(), value) == all.end()) {
        *why = "status='" + printable(value, 40) + "' is not one of fail, crash, flaky, either";
        return false;
      }
      entry->status = value;
    }
  }
}

}  // namespace

std::optional<Expectations> load_expectations(const std::string& path, std::string* error) {
  // Read like a case file: a FIFO or a device is refused, not waited on.
  constexpr uint64_t kMaxExpectationBytes = uint64_t{64} << 20;
  std::string contents, why;
  if (!read_text_file(path, kMaxExpectationBytes, &contents, &why)) {
    *error = printable(path, 200) + ": " + why;
    return std::nullopt;
  }
  Expectations e;
  e.file = path;
  // A previous JSON report: its failures are known now, as `dmlcert baseline` would list them.
  if (const size_t first = contents.find_first_not_of(" \t\r\n");
      first != std::string::npos && contents[first] == '{') {
    std::string not_a_report;
    const auto report = report_from_json(contents, &not_a_report);
    if (!report) {
      *error = printable(path, 200) + ": not a dmlcert report (" + printable(not_a_report, 200) + ")";
      return std::nullopt;
    }
    e.entries = baseline_entries(*report, path);
    return e;
  }
  std::istringstream lines(contents);
  int number = 0;
  for (std::string line; std::getline(lines, line);) {
    ++number;
    const auto fail = [&](const std::string& what) {
      *error = printable(path, 200) + ":" + std::to_string(number) + ": " + what;
      return std::nullopt;
    };
    line = trim(line);
    ExpectationCheck::Entry entry;
    std::string rest;
    if (line.starts_with("cause \"")) {
      // A cause's name has spaces and may hold '#' (never a '"'): quoted, and read before comments.
      const size_t close = line.find('"', 7);
      if (close == std::string::npos) return fail("the cause's name has no closing '\"'");
      entry.pattern = line.substr(7, close - 7);
      entry.cause = true;
      if (entry.pattern.empty()) return fail("the cause's name is empty");
      rest = trim(line.substr(close + 1));
      rest = trim(rest.substr(0, rest.find('#')));
    } else {
      line = trim(line.substr(0, line.find('#')));
      if (line.empty()) continue;
      std::istringstream words(line);
      words >> entry.pattern;
      std::getline(words, rest);
      rest = trim(rest);
    }
    if (std::string bad; !read_options(&rest, &entry, &bad)) return fail(bad);
    if (rest.empty())
      return fail("'" + printable(entry.pattern, 80) +
                  "' has no reason: say why the failure is known (a ticket, a plan)");
    entry.reason = rest;
    e.entries.push_back(std::move(entry));
  }
  return e;
}

std::vector<ExpectationCheck::Entry> baseline_entries(const Report& r, const std::string& source) {
  std::vector<ExpectationCheck::Entry> out;
  std::vector<std::string> explained;
  for (const FailureGroup& g : group_failures(r)) {
    std::vector<std::string> statuses;
    for (const Failure* f : g.failures) {
      const std::string s = expectation_status(f->outcome);
      if (std::find(statuses.begin(), statuses.end(), s) == statuses.end()) statuses.push_back(s);
      explained.push_back(f->counts_at.to_string());
    }
    ExpectationCheck::Entry entry;
    entry.pattern = g.cause.name();
    entry.cause = true;
    // A wrong index or offset gives a wrong value, a fault or a hang depending on where it lands,
    // and so on the seed: such a cause is expected either way.
    entry.status =
        statuses.size() == 1 && g.cause.family != kWrongExecutionFamily ? statuses.front() : "either";
    entry.reason =
        counted(g.failures.size(), "failure") + " in " + source + ", e.g. " + g.example->id.to_string();
    out.push_back(std::move(entry));
  }
  for (const std::string& key : failing_keys(r))
    if (std::find(explained.begin(), explained.end(), key) == explained.end())
      out.push_back({key, "failing in " + source, "", {}, false});
  return out;
}

std::string baseline_text(const Report& r, const std::string& source) {
  std::ostringstream out;
  out << "# Known failures of " << r.backend_name << " (" << r.backend << "), from " << source << ":\n"
      << "# seed " << r.seed << ", budget " << r.budget << ", feature level " << name(r.level) << ".\n"
      << "# certify --expect FILE passes while every failure is one of these; a cause covers its bug\n"
      << "# whichever cells another seed makes it fail. Add expires=YYYY-MM-DD to an entry to give it a "
         "date.\n";
  for (const auto& entry : baseline_entries(r, source)) {
    if (entry.cause)
      out << "cause \"" << entry.pattern << "\"";
    else
      out << entry.pattern;
    out << "  status=" << entry.status << "  " << entry.reason << "\n";
  }
  return out.str();
}

bool expects(const Expectations& e, std::string_view key, const std::string& today) {
  return std::any_of(e.entries.begin(), e.entries.end(), [&](const ExpectationCheck::Entry& entry) {
    return live(entry, today) && !entry.cause && glob_match(entry.pattern, key);
  });
}

bool expects(const Expectations& e, const Failure& f, const std::string& today) {
  return std::any_of(e.entries.begin(), e.entries.end(), [&](const ExpectationCheck::Entry& entry) {
    return live(entry, today) && covers(entry, f);
  });
}

namespace {

// The checks that ran here (their keys as failing_keys() would name them), and the places
// (operators, REDUCE functions, rules) a cause of theirs would name.
struct RanHere {
  std::vector<std::string> keys;
  std::vector<std::string> places;
};

RanHere ran_here(const Report& r) {
  RanHere ran;
  for (const CellResult& c : r.cells)
    if (status(c.counts) && !outside_scope(r, c)) {
      ran.keys.push_back(CheckId::of_cell(c.cell).to_string());
      ran.places.emplace_back(name(c.cell.op));
      if (c.cell.function) ran.places.push_back(std::string(name(c.cell.op)) + "." + name(*c.cell.function));
    }
  for (const RuleResult& rule : r.rules)
    if (status(rule.counts)) {
      const std::string key = CheckId::of_rule(rule.section, rule.rule).to_string();
      ran.keys.push_back(key);
      ran.places.push_back(rule.rule);
      ran.places.push_back(key);  // a rule check's cause is named by its key ("invalid/RULE: ...")
    }
  for (const CorpusCaseResult& c : r.corpus_cases)
    if (status(c.counts)) ran.keys.push_back(CheckId::corpus_case(0, c.name).check().to_string());
  // A report from before corpus cases were counted one by one: the corpus as a whole.
  if (r.corpus_cases.empty() && status(r.corpus)) ran.keys.emplace_back("corpus/*");
  return ran;
}

// An entry that covers nothing is a pass only if what it names ran: a key entry, some check its
// pattern matches; a cause entry, some check of the place its name begins with ("GATHER_ELEMENTS:
// ..."). Otherwise it did not run here, which a baseline of a wider run expects.
void mark_not_run(const Report& r, ExpectationCheck& check) {
  const RanHere ran = ran_here(r);
  for (auto& entry : check.entries) {
    if (!entry.matched.empty()) continue;
    if (entry.cause) {
      const std::string place = entry.pattern.substr(0, entry.pattern.find(": "));
      entry.not_run = std::none_of(ran.places.begin(), ran.places.end(), [&](const std::string& p) {
        return glob_match(place, p) || p.starts_with(place + ".");
      });
    } else {
      entry.not_run = std::none_of(ran.keys.begin(), ran.keys.end(), [&](const std::string& key) {
        return glob_match(entry.pattern, key) || (key == "corpus/*" && entry.pattern.starts_with("corpus/"));
      });
    }
  }
}

}  // namespace

ExpectationCheck check_expectations(const Expectations& e, const Report& r, const std::string& today) {
  ExpectationCheck check;
  check.file = e.file;
  check.entries = e.entries;
  for (auto& entry : check.entries) entry.expired = !entry.expires.empty() && entry.expires < today;
  // Each key's failures, found in one pass: a report may hold tens of thousands, and the check runs
  // each time a report is written while the run goes on.
  std::map<std::string, std::vector<const Failure*>> failures_at;
  for (const Failure& f : r.failures)
    if (counts(r, f)) failures_at[f.counts_at.to_string()].push_back(&f);
  for (const std::string& key : failing_keys(r)) {
    const std::vector<const Failure*>& at_key = failures_at[key];
    std::vector<bool> matched(check.entries.size(), false);
    // A key entry covers the key when it admits the status of each of its failures.
    for (size_t i = 0; i < check.entries.size(); ++i) {
      const auto& entry = check.entries[i];
      matched[i] = !entry.cause && glob_match(entry.pattern, key) &&
                   std::all_of(at_key.begin(), at_key.end(),
                               [&](const Failure* f) { return admits(entry, f->outcome); });
    }
    const bool by_key = std::find(matched.begin(), matched.end(), true) != matched.end();
    // Failing for known causes only: each of its failures is covered by some cause entry. A cause
    // entry that covers one of them is matched whether or not the others are (its bug is still here).
    bool by_causes = !at_key.empty();
    for (const Failure* f : at_key) {
      bool covered = false;
      for (size_t i = 0; i < check.entries.size(); ++i)
        if (check.entries[i].cause && covers(check.entries[i], *f)) matched[i] = covered = true;
      by_causes = by_causes && covered;
    }
    const bool known = by_key || by_causes;
    for (size_t i = 0; i < check.entries.size(); ++i)
      if (matched[i] && (known || check.entries[i].cause)) check.entries[i].matched.push_back(key);
    (known ? check.known : check.unexpected).push_back(key);
  }
  mark_not_run(r, check);
  return check;
}

}  // namespace dmlcert::cert

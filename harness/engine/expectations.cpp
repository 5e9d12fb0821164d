#include "expectations.h"

#include <algorithm>
#include <ctime>
#include <fstream>
#include <regex>
#include <sstream>

#include "dmlcert/case.h"
#include "dmlcert/text.h"

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

std::optional<Expectations> load_expectations(const std::string& path, std::string* error) {
  // Read like a case file: a FIFO or a device is refused, not waited on.
  constexpr uint64_t kMaxExpectationBytes = uint64_t{64} << 20;
  std::string contents, why;
  if (!read_text_file(path, kMaxExpectationBytes, &contents, &why)) {
    *error = printable(path, 200) + ": " + why;
    return std::nullopt;
  }
  std::stringstream text(contents);
  Expectations e;
  e.file = path;
  // A previous JSON report: what failed then is known now.
  if (const std::string all = text.str();
      all.find_first_not_of(" \t\r\n") != std::string::npos && all[all.find_first_not_of(" \t\r\n")] == '{') {
    std::string not_a_report;
    const auto report = report_from_json(all, &not_a_report);
    if (!report) {
      *error = printable(path, 200) + ": not a dmlcert report (" + printable(not_a_report, 200) + ")";
      return std::nullopt;
    }
    for (const std::string& key : failing_keys(*report))
      e.entries.push_back({key, "failing in " + path, "", {}, false});
    return e;
  }
  std::istringstream lines(text.str());
  int number = 0;
  for (std::string line; std::getline(lines, line);) {
    ++number;
    line = trim(line.substr(0, line.find('#')));
    if (line.empty()) continue;
    std::istringstream words(line);
    ExpectationCheck::Entry entry;
    words >> entry.pattern;
    std::string rest;
    std::getline(words, rest);
    rest = trim(rest);
    if (rest.starts_with("expires=")) {
      const size_t end = rest.find_first_of(" \t");
      entry.expires = rest.substr(8, end == std::string::npos ? std::string::npos : end - 8);
      rest = end == std::string::npos ? "" : trim(rest.substr(end));
      if (!is_date(entry.expires)) {
        *error = printable(path, 200) + ":" + std::to_string(number) + ": expires='" +
                 printable(entry.expires, 40) + "' is not a date YYYY-MM-DD";
        return std::nullopt;
      }
    }
    if (rest.empty()) {
      *error = printable(path, 200) + ":" + std::to_string(number) + ": '" + printable(entry.pattern, 80) +
               "' has no reason: say why the failure is known (a ticket, a plan)";
      return std::nullopt;
    }
    entry.reason = rest;
    e.entries.push_back(std::move(entry));
  }
  return e;
}

bool expects(const Expectations& e, std::string_view key, const std::string& today) {
  return std::any_of(e.entries.begin(), e.entries.end(), [&](const ExpectationCheck::Entry& entry) {
    return (entry.expires.empty() || entry.expires >= today) && glob_match(entry.pattern, key);
  });
}

ExpectationCheck check_expectations(const Expectations& e, const Report& r, const std::string& today) {
  ExpectationCheck check;
  check.file = e.file;
  check.entries = e.entries;
  for (auto& entry : check.entries) entry.expired = !entry.expires.empty() && entry.expires < today;
  for (const std::string& key : failing_keys(r)) {
    bool known = false;
    for (auto& entry : check.entries)
      if (glob_match(entry.pattern, key)) {
        entry.matched.push_back(key);
        known = true;
      }
    (known ? check.known : check.unexpected).push_back(key);
  }
  return check;
}

}  // namespace dmlcert::cert

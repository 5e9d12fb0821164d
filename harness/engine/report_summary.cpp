#include "report_summary.h"

#include <algorithm>
#include <cctype>
#include <map>

namespace dmlcert::cert {
namespace {

// What kind of failure a detail describes: its first clause (up to ';', before the examples of
// elements) with its numbers set aside, so that "wrong output: 3 of 16 elements differ; first at
// [0,2]: ..." and "wrong output: 1 of 4 elements differ; ..." are one cause.
std::string kind_of(const std::string& detail) {
  const std::string clause = detail.substr(0, detail.find(';'));
  std::string out;
  for (size_t i = 0; i < clause.size() && out.size() < 120; ++i) {
    const char c = clause[i];
    // An address ("at address 0x7f3a...") is a number too.
    if (c == '0' && i + 2 < clause.size() && clause[i + 1] == 'x' &&
        std::isxdigit(static_cast<unsigned char>(clause[i + 2]))) {
      i += 2;
      while (i + 1 < clause.size() && std::isxdigit(static_cast<unsigned char>(clause[i + 1]))) ++i;
      if (out.empty() || out.back() != '#') out += '#';
      continue;
    }
    const bool numeric = std::isdigit(static_cast<unsigned char>(c)) ||
                         ((c == '.' || c == '-') && i + 1 < clause.size() &&
                          std::isdigit(static_cast<unsigned char>(clause[i + 1])));
    if (!numeric)
      out += c;
    else if (out.empty() || out.back() != '#')
      out += '#';
  }
  return out;
}

bool is_known(const Report& r, const Failure& f) {
  if (!r.expectations) return false;
  const auto& known = r.expectations->known;
  return std::find(known.begin(), known.end(), f.counts_at.to_string()) != known.end();
}

}  // namespace

std::string cause_key(const CheckId& id, Outcome outcome, const std::string& detail) {
  return id.subject() + "\n" + std::string(name(outcome)) + "\n" + kind_of(detail);
}

std::vector<FailureGroup> group_failures(const Report& r) {
  std::vector<FailureGroup> groups;
  std::map<std::string, size_t> index;
  for (const Failure& f : r.failures) {
    const std::string where = f.id.subject();
    const bool known = is_known(r, f);
    const std::string key = cause_key(f.id, f.outcome, f.detail) + (known ? "\nknown" : "");
    auto [it, fresh] = index.emplace(key, groups.size());
    if (fresh) groups.push_back({where, f.outcome, f.detail, known, {}});
    groups[it->second].failures.push_back(&f);
  }
  // New failures first (they decide the run), then the most frequent.
  std::stable_sort(groups.begin(), groups.end(), [](const FailureGroup& a, const FailureGroup& b) {
    return a.known != b.known ? !a.known : a.failures.size() > b.failures.size();
  });
  return groups;
}

std::string profile_text(const BehaviourCounts& b) {
  std::vector<std::pair<std::string, uint64_t>> sorted(b.by_behaviour.begin(), b.by_behaviour.end());
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const auto& x, const auto& y) { return x.second > y.second; });
  std::string out;
  for (const auto& [behaviour, count] : sorted)
    out +=
        (out.empty() ? "" : ", ") + behaviour + " " + std::to_string(count) + "/" + std::to_string(b.cases);
  return out + (b.consistent() ? " (every time)" : " (varies)");
}

std::string expectations_text(const ExpectationCheck& e) {
  std::string out = std::to_string(e.known.size()) + " known failure" + (e.known.size() == 1 ? "" : "s") +
                    " (" + e.file + "), " + std::to_string(e.unexpected.size()) + " new";
  for (size_t i = 0; i < e.unexpected.size() && i < 5; ++i) out += (i ? ", " : ": ") + e.unexpected[i];
  if (e.unexpected.size() > 5) out += ", ...";
  if (const auto passes = e.unexpected_passes(); !passes.empty()) {
    out += "; unexpected passes (remove these entries):";
    for (const auto* entry : passes) out += " " + entry->pattern;
  }
  if (const auto expired = e.expired(); !expired.empty()) {
    out += "; expired entries:";
    for (const auto* entry : expired) out += " " + entry->pattern + " (" + entry->expires + ")";
  }
  return out;
}

}  // namespace dmlcert::cert

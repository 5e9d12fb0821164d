#include "report_summary.h"

#include <algorithm>
#include <cctype>
#include <map>

namespace dmlcert::cert {
namespace {

// The part of a failure's key that names what failed, without the case: "cells/SLICE1/output/
// INT8/r3/exact/0" -> "SLICE1", "invalid/SLICE1.WINDOW_BOUNDS/2" -> "invalid/SLICE1.WINDOW_BOUNDS".
std::string where_of(const std::string& key) {
  if (key.starts_with("cells/")) {
    const std::string rest = key.substr(6);
    return rest.substr(0, rest.find('/'));
  }
  if (key.starts_with("corpus/")) return "corpus";
  const size_t last = key.rfind('/');
  return last == std::string::npos || last == key.find('/') ? key : key.substr(0, last);
}

// The detail with its numbers set aside, so that "3 of 16 elements differ" and "1 of 4 elements
// differ" are one cause.
std::string shape_of(const std::string& detail) {
  std::string out;
  for (size_t i = 0; i < detail.size() && out.size() < 120; ++i) {
    if (std::isdigit(static_cast<unsigned char>(detail[i]))) {
      if (out.empty() || out.back() != '#') out += '#';
    } else {
      out += detail[i];
    }
  }
  return out;
}

}  // namespace

std::vector<FailureGroup> group_failures(const Report& r) {
  std::vector<FailureGroup> groups;
  std::map<std::string, size_t> index;
  for (const Failure& f : r.failures) {
    const std::string where = where_of(f.where);
    const std::string key = where + "\n" + std::string(name(f.outcome)) + "\n" + shape_of(f.detail);
    auto [it, fresh] = index.emplace(key, groups.size());
    if (fresh) groups.push_back({where, f.outcome, f.detail, {}});
    groups[it->second].failures.push_back(&f);
  }
  std::stable_sort(groups.begin(), groups.end(), [](const FailureGroup& a, const FailureGroup& b) {
    return a.failures.size() > b.failures.size();
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

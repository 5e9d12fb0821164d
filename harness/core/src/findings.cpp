#include "dmlcert/findings.h"

namespace dmlcert {

std::string_view name(CaseClass c) {
  switch (c) {
    case CaseClass::Valid: return "valid";
    case CaseClass::Invalid: return "invalid";
    case CaseClass::Unspecified: return "unspecified";
  }
  return "valid";
}

bool Findings::count(Kept& k, std::string_view rule) {
  auto it = k.counts.find(rule);
  if (it == k.counts.end()) it = k.counts.emplace(std::string(rule), 0).first;
  return ++it->second <= kReportedPerRule;
}

void Findings::add(Kept& k, std::string_view rule, std::string message) {
  k.list.push_back({std::string(rule), std::move(message)});
}

std::vector<Violation> Findings::take(Kept& k) {
  for (const auto& [rule, n] : k.counts)
    if (n > kReportedPerRule)
      k.list.push_back(
          {rule, "... and " + std::to_string(n - kReportedPerRule) + " more " + rule + " findings"});
  k.counts.clear();
  return std::move(k.list);
}

}  // namespace dmlcert

// What the validator finds: rule violations, each with its rule ID and a message that names the
// field and the values, and the class of case they make.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace dmlcert {

struct Violation {
  std::string rule;     // rule ID from the catalog
  std::string message;  // names the field and the values, e.g. "tensors.output.sizes[2] is 3, ..."
  bool operator==(const Violation&) const = default;
};

enum class CaseClass { Valid, Invalid, Unspecified };
std::string_view name(CaseClass c);  // "valid", "invalid", "unspecified"

// Collects violations. At most kReportedPerRule messages are kept per rule; the rest are counted
// and summarised, so that a descriptor with a million bad entries yields a short, linear report.
class Findings {
 public:
  static constexpr size_t kReportedPerRule = 8;
  void invalid(std::string_view rule, std::string message) {
    if (count(invalid_, rule)) add(invalid_, rule, std::move(message));
  }
  void unspecified(std::string_view rule, std::string message) {
    if (count(unspecified_, rule)) add(unspecified_, rule, std::move(message));
  }
  // The same, with the message made only when it is kept: a loop over a million entries then
  // costs a count per finding, not a string.
  template <class MakeMessage>
  void invalid_lazy(std::string_view rule, MakeMessage&& make) {
    if (count(invalid_, rule)) add(invalid_, rule, make());
  }
  template <class MakeMessage>
  void unspecified_lazy(std::string_view rule, MakeMessage&& make) {
    if (count(unspecified_, rule)) add(unspecified_, rule, make());
  }
  // Class I findings, then class U findings, each with the summaries of what was dropped.
  std::vector<Violation> take_invalid() { return take(invalid_); }
  std::vector<Violation> take_unspecified() { return take(unspecified_); }

 private:
  struct Kept {
    std::vector<Violation> list;
    std::map<std::string, size_t, std::less<>> counts;
  };
  // Counts one finding of rule; true when its message is still kept.
  static bool count(Kept& k, std::string_view rule);
  static void add(Kept& k, std::string_view rule, std::string message);
  static std::vector<Violation> take(Kept& k);
  Kept invalid_, unspecified_;
};

}  // namespace dmlcert

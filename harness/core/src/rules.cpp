// The rule catalog (docs/rules.md): the rules every operator shares, then each operator's own
// rules from its declaration, in registry order.
#include "dmlcert/rules.h"

#include <array>
#include <vector>

#include "dmlcert/operators.h"

namespace dmlcert {
namespace {

using enum RuleTag;

// Overlapping output elements written in row-major order: the last write wins.
constexpr std::array kOverlapProfile = {ProfileReading{"row-major, last write wins", {}}};

constexpr std::array kGenericRules = {
    Rule{"T.RANK", Doc,
         "Each tensor's DimensionCount is in the range the support table gives for the op, role and "
         "feature level."},
    Rule{"T.DTYPE", Doc,
         "Each tensor's DataType is in the support table for the op (and REDUCE function), role and "
         "feature level."},
    Rule{"T.SIZE_ZERO", Doc, "No size may be 0."},
    Rule{"T.TOTAL_BYTES", Doc,
         "TotalTensorSizeInBytes >= roundup4((dot(Sizes-1, Strides) + 1) * elementSize) and is a "
         "multiple of 4."},
    Rule{"T.ELEMENT_LIMIT", Doc, "dot(Sizes-1, Strides) + 1 must not exceed 2^32-1."},
    Rule{"T.STRIDES_COUNT", Inferred, "If Strides is present, it has DimensionCount entries."},
    Rule{"T.OUTPUT_OVERLAP",
         Unspecified,
         "An output whose strides map two coordinates to one element (a 0 stride, say) is class U.",
         Admits::Anything,
         {},
         kOverlapProfile},
    Rule{"OP.FEATURE_LEVEL", Doc,
         "An operator exists from the feature level that introduced it (its first column in "
         "docs/support.md)."},
    Rule{"OP.FUNCTION", Doc, "The REDUCE function is one of the 12 DML_REDUCE_FUNCTION values."},
};

constexpr std::array kRobustnessChecks = {
    RobustnessCheck{"BACKEND.DESTROY",
                    "Destroying the backend returns, without crashing, within 5 s of its last call."},
    RobustnessCheck{"BACKEND.SIGNAL_HANDLERS",
                    "Loading and calling the backend leave the handlers of SIGSEGV and SIGBUS of the process "
                    "that hosts it as they were: the host's own handling of faults keeps working."},
};

const std::vector<Rule>& catalog() {
  static const std::vector<Rule> all = [] {
    std::vector<Rule> v(kGenericRules.begin(), kGenericRules.end());
    for_each_operator_type([&](auto tag) {
      const auto own = decltype(tag)::type::rules();
      v.insert(v.end(), own.begin(), own.end());
    });
    return v;
  }();
  return all;
}

}  // namespace

std::string_view name(RuleTag t) {
  switch (t) {
    case Doc: return "doc";
    case Inferred: return "inferred";
    case Unspecified: return "unspecified";
    case DocData: return "doc/U";
  }
  return "tag?";
}

std::span<const Rule> rule_catalog() {
  return catalog();
}

std::span<const RobustnessCheck> robustness_checks() {
  return kRobustnessChecks;
}

const Rule* find_rule(std::string_view id) {
  for (const Rule& r : catalog())
    if (r.id == id) return &r;
  return nullptr;
}

bool makes_invalid(const Rule& r) {
  return r.tag == Doc || r.tag == Inferred;
}

}  // namespace dmlcert

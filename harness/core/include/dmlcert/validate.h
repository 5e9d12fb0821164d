// The validator (docs/rules.md): every violation of the rule catalog, each with its rule ID and a
// message that names the field and the values, and the class of case they make.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "dmlcert/findings.h"
#include "dmlcert/operators.h"

namespace dmlcert {

struct Validation {
  std::vector<Violation> invalid;      // class I findings (doc and inferred rules)
  std::vector<Violation> unspecified;  // class U findings (unspecified rules)
  CaseClass case_class() const {
    return !invalid.empty() ? CaseClass::Invalid
                            : (!unspecified.empty() ? CaseClass::Unspecified : CaseClass::Valid);
  }
  bool has(std::string_view rule) const;
};

// Checks the descriptor alone against every rule at the feature level. Linear in the size of
// the descriptor.
Validation validate(const OperatorDesc& desc, FeatureLevel level);

// Checks the data-dependent rules (index ranges, SCATTER_ND duplicates, integer overflow and
// non-finite data in reductions) for a descriptor that validate() found not invalid. Returns the
// class U findings.
std::vector<Violation> check_data(const OperatorDesc& desc, FeatureLevel level, const InputData& data);

// A case's class, descriptor and data together, with the findings that decide it: the class I
// findings of an invalid case, the class U findings of an unspecified one. A run computes it once
// per case and hands it on (runner, oracle, coverage).
struct Classification {
  CaseClass case_class = CaseClass::Valid;
  std::vector<Violation> findings;
  bool has(std::string_view rule) const;
  std::string rule_list() const;  // "SLICE.IN_BOUNDS, T.RANK"
};
Classification classify(const OperatorDesc& desc, FeatureLevel level, const InputData& data);
// How many cases this process has classified so far. The engine classifies each case once and
// hands the classification to every run of it (tests/engine_test.cpp counts them).
uint64_t classifications();

}  // namespace dmlcert

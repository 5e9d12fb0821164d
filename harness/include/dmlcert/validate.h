// The validator: every violation of the rule catalog, each with its rule ID and a message that
// names the field and the values.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "dmlcert/feature_level.h"
#include "dmlcert/operators.h"
#include "dmlcert/tensor.h"

namespace dmlcert {

struct Violation {
  std::string rule;     // rule ID from the catalog
  std::string message;  // names the field and the values, e.g. "tensors.output.sizes[2] is 3, ..."
  bool operator==(const Violation&) const = default;
};

enum class CaseClass { Valid, Invalid, Unspecified };

struct Validation {
  std::vector<Violation> invalid;      // class I findings (doc and inferred rules)
  std::vector<Violation> unspecified;  // class U findings (unspecified rules)
  CaseClass case_class() const {
    return !invalid.empty() ? CaseClass::Invalid
                            : (!unspecified.empty() ? CaseClass::Unspecified : CaseClass::Valid);
  }
  bool has(std::string_view rule) const;
};

// Checks the descriptor alone against every rule at the feature level.
Validation validate(const OperatorDesc& desc, FeatureLevel level);

// Logical input data per role (empty for roles the operator lacks).
struct InputData {
  Bytes input, indices, updates;
  const Bytes& of(Role r) const;
};

// Checks the data-dependent rules (index ranges, SCATTER_ND duplicates, integer overflow and
// non-finite data in reductions) for a descriptor that validate() found not invalid. Returns
// the class U findings.
std::vector<Violation> check_data(const OperatorDesc& desc, FeatureLevel level, const InputData& data);

}  // namespace dmlcert

// The support tables of SPEC.md for every operator, REDUCE function group, tensor role and
// feature level, kept as data.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "dmlcert/dtype.h"
#include "dmlcert/feature_level.h"
#include "dmlcert/operators.h"

namespace dmlcert {

struct RoleSupport {
  uint32_t min_rank = 0, max_rank = 0;
  std::vector<DataType> types;
  bool allows(DataType t) const;
};

// First feature level at which the operator exists (OP.FEATURE_LEVEL).
FeatureLevel introduced_at(OpKind op);
// The support for (op, function, role) at a level, or nullopt when the operator does not exist
// at that level, has no such role, or the function is not one of the 12. `function` is ignored
// for operators other than REDUCE.
std::optional<RoleSupport> support(OpKind op, std::optional<ReduceFunction> function, Role role,
                                   FeatureLevel level);

// One cell of the support matrix: an operator (with its REDUCE function), a role, a data type
// and a rank, legal at a table level. Generators must reach every cell; reports count per cell.
struct SupportCell {
  OpKind op;
  std::optional<ReduceFunction> function;
  Role role;
  DataType type;
  uint32_t rank;
  bool operator==(const SupportCell&) const = default;
};
std::vector<SupportCell> support_cells(FeatureLevel level);

}  // namespace dmlcert

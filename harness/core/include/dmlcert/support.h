// The support tables (docs/support.md): for every operator, REDUCE function, tensor role and
// feature level, the ranks and data types allowed. Each operator lists its rows in its
// declaration file; this is the generic query over them.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "dmlcert/operators.h"

namespace dmlcert {

struct RoleSupport {
  uint32_t min_rank = 0, max_rank = 0;
  std::vector<DataType> types;
  bool allows(DataType t) const;
};

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

// The functions an operator has: the 12 REDUCE functions, or one "no function" entry.
std::vector<std::optional<ReduceFunction>> functions_of(OpKind op);

}  // namespace dmlcert

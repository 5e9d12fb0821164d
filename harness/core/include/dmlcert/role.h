// Tensor roles, and the logical input data a case holds per input role.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "dmlcert/tensor.h"

namespace dmlcert {

// In the order of the DML_*_OPERATOR_DESC members of the operators that have them.
enum class Role : uint8_t { INPUT, INDICES, UPDATES, OUTPUT };
inline constexpr int kRoleCount = 4;
inline constexpr Role kAllRoles[kRoleCount] = {Role::INPUT, Role::INDICES, Role::UPDATES, Role::OUTPUT};
std::string_view name(Role r);  // "input", "indices", "updates", "output" (case-file keys)
std::optional<Role> parse_role(std::string_view s);
inline constexpr bool is_input_role(Role r) {
  return r != Role::OUTPUT;
}

// Logical row-major data per input role (empty for roles the operator lacks).
struct InputData {
  Bytes input, indices, updates;
  const Bytes& of(Role r) const;  // the output role has no data: an empty Bytes
  Bytes& of(Role r);              // the output role: an empty scratch Bytes, emptied at every call
  bool operator==(const InputData&) const = default;
};

}  // namespace dmlcert

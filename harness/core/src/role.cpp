#include "dmlcert/role.h"

#include <array>

namespace dmlcert {
namespace {
constexpr std::array<std::string_view, kRoleCount> kNames = {"input", "indices", "updates", "output"};
}  // namespace

std::string_view name(Role r) {
  return kNames.at(static_cast<size_t>(r));
}
std::optional<Role> parse_role(std::string_view s) {
  for (Role r : kAllRoles)
    if (name(r) == s) return r;
  return std::nullopt;
}

const Bytes& InputData::of(Role r) const {
  static const Bytes kNone;
  switch (r) {
    case Role::INPUT: return input;
    case Role::INDICES: return indices;
    case Role::UPDATES: return updates;
    case Role::OUTPUT: break;
  }
  return kNone;
}
Bytes& InputData::of(Role r) {
  switch (r) {
    case Role::INPUT: return input;
    case Role::INDICES: return indices;
    case Role::UPDATES: return updates;
    case Role::OUTPUT: break;
  }
  thread_local Bytes scratch;
  scratch.clear();
  return scratch;
}

}  // namespace dmlcert

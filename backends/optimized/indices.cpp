#include "optimized/indices.h"

#include <span>

#include "dmlcert/validate.h"

namespace dmlcert::optimized {

ExecResult index_range_rejection(const OperatorDesc& desc, FeatureLevel level, const Bindings& b,
                                 const std::string& rule, const std::string& fallback) {
  ExecResult r;
  r.status = Status::InvalidArgument;
  // This path is rare (class U data), so reading every input into logical form is affordable.
  InputData data;
  for (Role role : roles(op_kind(desc))) {
    if (!is_input_role(role)) continue;
    const ConstBuffer buf = b.of(role);
    Bytes logical = from_memory(*tensor(desc, role), std::span<const std::byte>(buf.data, buf.size));
    if (role == Role::INPUT) data.input = std::move(logical);
    if (role == Role::INDICES) data.indices = std::move(logical);
    if (role == Role::UPDATES) data.updates = std::move(logical);
  }
  for (Violation& v : check_data(desc, level, data))
    if (v.rule == rule) r.violations.push_back(std::move(v));
  if (r.violations.empty()) r.violations.push_back(Violation{rule, fallback});
  r.message = rule + ": " + r.violations.front().message;
  return r;
}

}  // namespace dmlcert::optimized

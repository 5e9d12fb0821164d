#include "dmlcert/operators.h"

#include <array>

namespace dmlcert {
namespace {
constexpr std::array<std::string_view, kOpCount> kOpNames = {"SLICE", "SLICE1", "SCATTER_ND", "REDUCE",
                                                             "GATHER_ELEMENTS"};
constexpr std::array<std::string_view, kOpCount> kOpStems = {"slice", "slice1", "scatter_nd", "reduce",
                                                             "gather_elements"};
constexpr std::array<std::string_view, kReduceFunctionCount> kFunctionNames = {
    "ARGMAX", "ARGMIN", "AVERAGE", "L1", "L2", "LOG_SUM", "LOG_SUM_EXP", "MAX", "MIN", "MULTIPLY", "SUM", "SUM_SQUARE"};
constexpr std::array<std::string_view, kRoleCount> kRoleNames = {"input", "indices", "updates", "output"};
}  // namespace

std::string_view name(OpKind op) { return kOpNames.at(static_cast<size_t>(op)); }
std::string_view file_stem(OpKind op) { return kOpStems.at(static_cast<size_t>(op)); }
std::optional<OpKind> parse_op(std::string_view s) {
  for (OpKind op : kAllOps)
    if (name(op) == s) return op;
  return std::nullopt;
}

bool is_valid(ReduceFunction f) { return static_cast<uint32_t>(f) < kReduceFunctionCount; }
std::string name(ReduceFunction f) {
  if (!is_valid(f)) return "FUNCTION(" + std::to_string(static_cast<uint32_t>(f)) + ")";
  return std::string(kFunctionNames[static_cast<size_t>(f)]);
}
std::optional<ReduceFunction> parse_reduce_function(std::string_view s) {
  for (size_t i = 0; i < kFunctionNames.size(); ++i)
    if (kFunctionNames[i] == s) return static_cast<ReduceFunction>(i);
  return std::nullopt;
}
bool is_arg_function(ReduceFunction f) { return f == ReduceFunction::ARGMAX || f == ReduceFunction::ARGMIN; }

std::string_view name(Role r) { return kRoleNames.at(static_cast<size_t>(r)); }
std::optional<Role> parse_role(std::string_view s) {
  for (size_t i = 0; i < kRoleNames.size(); ++i)
    if (kRoleNames[i] == s) return static_cast<Role>(i);
  return std::nullopt;
}
bool is_input_role(Role r) { return r != Role::OUTPUT; }

OpKind op_kind(const OperatorDesc& d) { return static_cast<OpKind>(d.index()); }

std::optional<ReduceFunction> reduce_function(const OperatorDesc& d) {
  if (auto* r = std::get_if<ReduceDesc>(&d)) return r->function;
  return std::nullopt;
}

std::vector<Role> roles(OpKind op) {
  switch (op) {
    case OpKind::SCATTER_ND: return {Role::INPUT, Role::INDICES, Role::UPDATES, Role::OUTPUT};
    case OpKind::GATHER_ELEMENTS: return {Role::INPUT, Role::INDICES, Role::OUTPUT};
    default: return {Role::INPUT, Role::OUTPUT};
  }
}

TensorDesc* tensor(OperatorDesc& d, Role r) {
  return std::visit(
      [r](auto& op) -> TensorDesc* {
        using T = std::decay_t<decltype(op)>;
        if (r == Role::INPUT) return &op.input;
        if (r == Role::OUTPUT) return &op.output;
        if constexpr (std::is_same_v<T, ScatterNdDesc>) {
          if (r == Role::INDICES) return &op.indices;
          if (r == Role::UPDATES) return &op.updates;
        }
        if constexpr (std::is_same_v<T, GatherElementsDesc>) {
          if (r == Role::INDICES) return &op.indices;
        }
        return nullptr;
      },
      d);
}

const TensorDesc* tensor(const OperatorDesc& d, Role r) { return tensor(const_cast<OperatorDesc&>(d), r); }

}  // namespace dmlcert

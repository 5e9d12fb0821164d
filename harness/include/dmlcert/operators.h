// One descriptor struct per operator, mirroring DirectML's DML_*_OPERATOR_DESC. The length of
// the per-dimension parameter arrays plays the role of DimensionCount.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "dmlcert/tensor.h"

namespace dmlcert {

enum class OpKind : uint8_t { SLICE, SLICE1, SCATTER_ND, REDUCE, GATHER_ELEMENTS };
inline constexpr int kOpCount = 5;
inline constexpr OpKind kAllOps[kOpCount] = {OpKind::SLICE, OpKind::SLICE1, OpKind::SCATTER_ND,
                                             OpKind::REDUCE, OpKind::GATHER_ELEMENTS};
std::string_view name(OpKind op);
std::optional<OpKind> parse_op(std::string_view s);
// The lower-case file stem used for the operator in every layer ("slice1", "scatter_nd").
std::string_view file_stem(OpKind op);

// Values are DirectML's DML_REDUCE_FUNCTION. The enum may hold a value outside the 12 (that is
// how OP.FUNCTION violations are represented), so always check is_valid().
enum class ReduceFunction : uint32_t {
  ARGMAX = 0, ARGMIN = 1, AVERAGE = 2, L1 = 3, L2 = 4, LOG_SUM = 5, LOG_SUM_EXP = 6,
  MAX = 7, MIN = 8, MULTIPLY = 9, SUM = 10, SUM_SQUARE = 11,
};
inline constexpr int kReduceFunctionCount = 12;
inline constexpr ReduceFunction kAllReduceFunctions[kReduceFunctionCount] = {
    ReduceFunction::ARGMAX, ReduceFunction::ARGMIN,      ReduceFunction::AVERAGE,
    ReduceFunction::L1,     ReduceFunction::L2,          ReduceFunction::LOG_SUM,
    ReduceFunction::LOG_SUM_EXP, ReduceFunction::MAX,    ReduceFunction::MIN,
    ReduceFunction::MULTIPLY, ReduceFunction::SUM,       ReduceFunction::SUM_SQUARE};
bool is_valid(ReduceFunction f);
std::string name(ReduceFunction f);  // "SUM", or "FUNCTION(99)" for an invalid value
std::optional<ReduceFunction> parse_reduce_function(std::string_view s);
bool is_arg_function(ReduceFunction f);  // ARGMAX or ARGMIN

// Tensor roles, in the order of the DML_*_OPERATOR_DESC members.
enum class Role : uint8_t { INPUT, INDICES, UPDATES, OUTPUT };
inline constexpr int kRoleCount = 4;
std::string_view name(Role r);  // "input", "indices", "updates", "output" (case-file keys)
std::optional<Role> parse_role(std::string_view s);

struct SliceDesc {
  TensorDesc input, output;
  std::vector<uint32_t> offsets, sizes, strides;
  bool operator==(const SliceDesc&) const = default;
};

struct Slice1Desc {
  TensorDesc input, output;
  std::vector<uint32_t> input_window_offsets, input_window_sizes;
  std::vector<int32_t> input_window_strides;
  bool operator==(const Slice1Desc&) const = default;
};

struct ScatterNdDesc {
  TensorDesc input, indices, updates, output;
  uint32_t input_dimension_count = 0;
  uint32_t indices_dimension_count = 0;
  bool operator==(const ScatterNdDesc&) const = default;
};

struct ReduceDesc {
  ReduceFunction function = ReduceFunction::SUM;
  TensorDesc input, output;
  std::vector<uint32_t> axes;
  bool operator==(const ReduceDesc&) const = default;
};

struct GatherElementsDesc {
  TensorDesc input, indices, output;
  uint32_t axis = 0;
  bool operator==(const GatherElementsDesc&) const = default;
};

using OperatorDesc = std::variant<SliceDesc, Slice1Desc, ScatterNdDesc, ReduceDesc, GatherElementsDesc>;

OpKind op_kind(const OperatorDesc& d);
// The REDUCE function, or nullopt for the other operators.
std::optional<ReduceFunction> reduce_function(const OperatorDesc& d);
// The roles the operator has, in member order.
std::vector<Role> roles(OpKind op);
bool is_input_role(Role r);
// The tensor for a role, or nullptr when the operator has no such role.
const TensorDesc* tensor(const OperatorDesc& d, Role r);
TensorDesc* tensor(OperatorDesc& d, Role r);

}  // namespace dmlcert

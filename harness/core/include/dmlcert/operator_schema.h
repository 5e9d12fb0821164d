// The building blocks of an operator's declaration (dmlcert/ops/<operator>.h). Generic code
// derives case JSON, the wire format of the isolation child, the C ABI conversion, printing and
// dimension edits from them; none of that is written per operator
// (docs/adding-an-operator.md).
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <tuple>
#include <vector>

#include "dmlcert/dmlcert_backend_abi.h"
#include "dmlcert/dtype.h"
#include "dmlcert/feature_level.h"
#include "dmlcert/findings.h"
#include "dmlcert/reduce_function.h"
#include "dmlcert/role.h"
#include "dmlcert/rules.h"
#include "dmlcert/tensor.h"

namespace dmlcert {

// Defined in compare.h; operators that refine the comparison model name them in their hooks.
struct Expectation;
enum class AccumulationProfile : uint8_t;

struct OperatorInfo {
  std::string_view name;         // "SLICE1": the case file's `op`, reports, messages
  std::string_view stem;         // "slice1": the operator's file name in every layer
  std::string_view rule_prefix;  // "SLICE1": the operator's rule IDs are "<prefix>.<NAME>"
  FeatureLevel introduced;       // OP.FEATURE_LEVEL
  uint32_t abi_type;             // its DMLCERT_OPERATOR_* value
  // The rule that PerDimension arrays of different lengths break. The C ABI cannot carry such a
  // descriptor (one DimensionCount per operator), so plugins are never asked about it.
  std::string_view dimcount_rule;
  // The DMLCERT_ABI_VERSION that brought abi_type: a plugin of an older version never sees the
  // operator (dmlcert_backend_abi.h, "Versioning").
  uint32_t abi_version = 1;
};

// Where a tensor's data type comes from in the support tables.
enum class TypeSource : uint8_t {
  Data,                  // the operator's data type, shared by its data tensors
  Index,                 // its own type: index tensors
  IndexForArgFunctions,  // its own type when the REDUCE function is ARGMAX or ARGMIN
};

template <class Desc, class Abi>
struct TensorField {
  Role role;
  TensorDesc Desc::*member;
  const dmlcert_tensor_desc* Abi::*abi;
  TypeSource type_source = TypeSource::Data;
};

enum class ParamKind : uint8_t {
  PerDimension,  // one entry per dimension: the arrays' length is the DimensionCount
  AxisList,      // dimension indices
  Axis,          // one dimension index
  Count,         // a number of (trailing) dimensions
  Function,      // the REDUCE function
};

// One parameter of a descriptor. Arrays name the C member that holds their length (shared by
// the arrays of one DimensionCount); scalars leave it null. `unit` is what a PerDimension array
// holds for a new leading dimension of size 1, which leaves the operator's result unchanged.
template <class Desc, class T, class Abi, class AbiT>
struct ParamField {
  std::string_view key;  // the case-file key: the DirectML member name in snake_case
  ParamKind kind;
  T Desc::*member;
  AbiT Abi::*abi;
  uint32_t Abi::*abi_count = nullptr;
  int64_t unit = 0;
  using Value = T;
};

template <class Desc, class E, class Abi>
constexpr auto per_dimension(std::string_view key, std::vector<E> Desc::*member, int64_t unit,
                             const E* Abi::*abi, uint32_t Abi::*count) {
  return ParamField<Desc, std::vector<E>, Abi, const E*>{key, ParamKind::PerDimension, member, abi, count,
                                                         unit};
}
template <class Desc, class Abi>
constexpr auto axis_list(std::string_view key, std::vector<uint32_t> Desc::*member, const uint32_t* Abi::*abi,
                         uint32_t Abi::*count) {
  return ParamField<Desc, std::vector<uint32_t>, Abi, const uint32_t*>{key, ParamKind::AxisList, member, abi,
                                                                       count};
}
template <class Desc, class Abi>
constexpr auto scalar(std::string_view key, ParamKind kind, uint32_t Desc::*member, uint32_t Abi::*abi) {
  return ParamField<Desc, uint32_t, Abi, uint32_t>{key, kind, member, abi};
}
template <class Desc, class Abi>
constexpr auto function_param(std::string_view key, ReduceFunction Desc::*member, uint32_t Abi::*abi) {
  return ParamField<Desc, ReduceFunction, Abi, uint32_t>{key, ParamKind::Function, member, abi};
}

// One row of an operator's support table (docs/support.md): from table level `from` on, until a
// later row for the same role and function replaces it.
struct SupportRow {
  std::span<const ReduceFunction> functions;  // the REDUCE functions it is for; empty: every one
  Role role;
  FeatureLevel from;
  uint32_t min_rank, max_rank;
  std::span<const DataType> types;
};

// Calls f(field) for each tensor or parameter declaration of Desc, in declaration order.
template <class Desc, class F>
constexpr void for_each_tensor_field(F&& f) {
  std::apply([&](const auto&... field) { (f(field), ...); }, Desc::tensors());
}
template <class Desc, class F>
constexpr void for_each_param_field(F&& f) {
  std::apply([&](const auto&... field) { (f(field), ...); }, Desc::params());
}

}  // namespace dmlcert

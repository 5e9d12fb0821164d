// The operator registry: every operator dmlcert knows, one line each. Each operator declares
// itself once, in dmlcert/ops/<stem>.h and src/ops/<stem>.cpp (its descriptor's fields, tensor
// roles, rules and support table); everything generic (case files, the wire format, the C ABI,
// printing, dispatch) derives from those declarations, and every layer finds its own
// per-operator file through DMLCERT_FOR_EACH_OPERATOR (docs/adding-an-operator.md).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "dmlcert/ops/gather_elements.h"
#include "dmlcert/ops/reduce.h"
#include "dmlcert/ops/scatter_nd.h"
#include "dmlcert/ops/slice.h"
#include "dmlcert/ops/slice1.h"

// X(ENUMERATOR, file stem, descriptor type), in the order of the DMLCERT_OPERATOR_* values.
#define DMLCERT_FOR_EACH_OPERATOR(X)       \
  X(SLICE, slice, SliceDesc)               \
  X(SLICE1, slice1, Slice1Desc)            \
  X(SCATTER_ND, scatter_nd, ScatterNdDesc) \
  X(REDUCE, reduce, ReduceDesc)            \
  X(GATHER_ELEMENTS, gather_elements, GatherElementsDesc)

namespace dmlcert {

#define DMLCERT_ENUMERATOR(KIND, stem, Desc) KIND,
enum class OpKind : uint8_t { DMLCERT_FOR_EACH_OPERATOR(DMLCERT_ENUMERATOR) };
#undef DMLCERT_ENUMERATOR

namespace detail {
struct EndOfList {};
template <class Variant, class... Ts>
struct VariantOf;
template <class... As>
struct VariantOf<std::variant<As...>, EndOfList> {
  using type = std::variant<As...>;
};
template <class... As, class T, class... Ts>
struct VariantOf<std::variant<As...>, T, Ts...> {
  using type = typename VariantOf<std::variant<As..., T>, Ts...>::type;
};
}  // namespace detail

// The descriptor of any operator. Its index is its OpKind.
#define DMLCERT_ALTERNATIVE(KIND, stem, Desc) Desc,
using OperatorDesc =
    detail::VariantOf<std::variant<>, DMLCERT_FOR_EACH_OPERATOR(DMLCERT_ALTERNATIVE) detail::EndOfList>::type;
#undef DMLCERT_ALTERNATIVE

inline constexpr int kOpCount = static_cast<int>(std::variant_size_v<OperatorDesc>);

// Every operator, in registry order.
std::span<const OpKind> all_ops();

// The declaration of an operator known only by its kind.
const OperatorInfo& info(OpKind op);
std::string_view name(OpKind op);
std::optional<OpKind> parse_op(std::string_view s);
// The lower-case file stem used for the operator in every layer ("slice1", "scatter_nd").
std::string_view file_stem(OpKind op);
FeatureLevel introduced_at(OpKind op);  // OP.FEATURE_LEVEL
// The roles the operator has, in member order.
std::span<const Role> roles(OpKind op);
// Whether the operator has a function parameter (REDUCE).
bool has_function(OpKind op);
// Whether the role's data type is chosen apart from the operator's data type: indices, and the
// output of ARGMAX and ARGMIN.
bool typed_separately(OpKind op, std::optional<ReduceFunction> function, Role role);
// Whether the operator, with this function, has such a role: an index tensor (REDUCE SUM has none,
// ARGMAX has its output).
bool has_index_role(OpKind op, std::optional<ReduceFunction> function);

OpKind op_kind(const OperatorDesc& d);
// A default-constructed descriptor of the operator.
OperatorDesc make_desc(OpKind op);
// The REDUCE function, or nullopt for the other operators.
std::optional<ReduceFunction> reduce_function(const OperatorDesc& d);
// The tensor for a role, or nullptr when the operator has no such role.
const TensorDesc* tensor(const OperatorDesc& d, Role r);
TensorDesc* tensor(OperatorDesc& d, Role r);
// The type of the descriptor's index tensor (the role typed_separately() names: indices, or the
// output of ARGMAX and ARGMIN), or nullopt when it has none.
std::optional<DataType> index_type(const OperatorDesc& d);
// The operator and its parameters in one line: "SLICE offsets=[0, 1] sizes=[2, 2] strides=[1, 1]".
std::string describe_params(const OperatorDesc& d);

// Calls f(const D& desc) / f(D& desc) with the operator's own descriptor type.
template <class F>
decltype(auto) visit(const OperatorDesc& d, F&& f) {
  return std::visit(std::forward<F>(f), d);
}
template <class F>
decltype(auto) visit(OperatorDesc& d, F&& f) {
  return std::visit(std::forward<F>(f), d);
}

// Calls f(type_tag<D>{}) for every descriptor type, in registry order.
template <class F>
void for_each_operator_type(F&& f) {
  [&]<size_t... I>(std::index_sequence<I...>) {
    (f(type_tag<std::variant_alternative_t<I, OperatorDesc>>{}), ...);
  }
  (std::make_index_sequence<kOpCount>{});
}

}  // namespace dmlcert

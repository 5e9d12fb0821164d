// Conversions between the C++ model (OperatorDesc, DataType, FeatureLevel) and the C ABI of
// dmlcert_backend_abi.h, derived from the operators' declarations (dmlcert/ops/). The harness side
// uses AbiOperator to hand a descriptor to a plugin; plugins written on top of a C++ Backend use
// from_abi() to get it back.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "dmlcert/dmlcert_backend_abi.h"
#include "dmlcert/operators.h"

namespace dmlcert::plugin {

uint32_t to_abi(DataType t);
std::optional<DataType> data_type_from_abi(uint32_t t);
uint32_t to_abi(FeatureLevel l);
std::optional<FeatureLevel> feature_level_from_abi(uint32_t l);
uint32_t to_abi(OpKind op);
std::optional<OpKind> op_from_abi(uint32_t op);

// The C structs describing one OperatorDesc. Their pointers point into this object (and into
// its copy of the descriptor), so it must outlive the call that uses get().
class AbiOperator {
 public:
  explicit AbiOperator(const OperatorDesc& desc);
  AbiOperator(const AbiOperator&) = delete;
  AbiOperator& operator=(const AbiOperator&) = delete;

  // Nullopt when the descriptor can be represented in the ABI. Otherwise the rule it breaks in
  // a way the ABI cannot express: C structs carry one count per array group (DimensionCount),
  // so parallel arrays of different lengths (SLICE.DIMCOUNT, T.STRIDES_COUNT, ...) do not fit.
  const std::optional<Violation>& unrepresentable() const { return unrepresentable_; }
  const dmlcert_operator_desc* get() const { return &op_; }

 private:
  OperatorDesc desc_;
  dmlcert_tensor_desc tensors_[kRoleCount] = {};
  // One C struct per operator, by the declarations' `Abi` types.
  template <class... Ds>
  static std::variant<typename Ds::Abi...> abi_structs(std::variant<Ds...>*);
  decltype(abi_structs(static_cast<OperatorDesc*>(nullptr))) abi_;
  dmlcert_operator_desc op_ = {};
  std::optional<Violation> unrepresentable_;
};

// Reads a descriptor a plugin received. Returns nullopt and says why when the tags or data types
// are not values of the ABI (a harness bug or a different ABI version).
std::optional<OperatorDesc> from_abi(const dmlcert_operator_desc& op, std::string* error);

// Copies `text` into a caller-provided message buffer, truncating, always NUL-terminated.
void write_message(const std::string& text, char* message, size_t capacity);

}  // namespace dmlcert::plugin

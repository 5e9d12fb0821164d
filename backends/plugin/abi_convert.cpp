#include "plugin/abi_convert.h"

#include <algorithm>
#include <cstring>

namespace dmlcert::plugin {
namespace {

constexpr uint32_t kAbiDataTypes[kDataTypeCount] = {
    DMLCERT_DATA_TYPE_FLOAT64, DMLCERT_DATA_TYPE_FLOAT32, DMLCERT_DATA_TYPE_FLOAT16, DMLCERT_DATA_TYPE_INT64,
    DMLCERT_DATA_TYPE_INT32,   DMLCERT_DATA_TYPE_INT16,   DMLCERT_DATA_TYPE_INT8,    DMLCERT_DATA_TYPE_UINT64,
    DMLCERT_DATA_TYPE_UINT32,  DMLCERT_DATA_TYPE_UINT16,  DMLCERT_DATA_TYPE_UINT8};  // DataType order

constexpr uint32_t kAbiLevels[kFeatureLevelCount] = {
    DMLCERT_FEATURE_LEVEL_1_0, DMLCERT_FEATURE_LEVEL_2_0, DMLCERT_FEATURE_LEVEL_2_1,
    DMLCERT_FEATURE_LEVEL_3_0, DMLCERT_FEATURE_LEVEL_3_1, DMLCERT_FEATURE_LEVEL_4_0,
    DMLCERT_FEATURE_LEVEL_4_1, DMLCERT_FEATURE_LEVEL_5_0, DMLCERT_FEATURE_LEVEL_5_1,
    DMLCERT_FEATURE_LEVEL_5_2, DMLCERT_FEATURE_LEVEL_6_0, DMLCERT_FEATURE_LEVEL_6_1,
    DMLCERT_FEATURE_LEVEL_6_2, DMLCERT_FEATURE_LEVEL_6_3, DMLCERT_FEATURE_LEVEL_6_4};  // FeatureLevel order

bool tensor_from_abi(const dmlcert_tensor_desc* t, TensorDesc& out, std::string& error) {
  if (t == nullptr) {
    error = "null tensor descriptor";
    return false;
  }
  auto type = data_type_from_abi(t->data_type);
  if (!type) {
    error = "unknown data type " + std::to_string(t->data_type);
    return false;
  }
  if (t->dimension_count > 0 && t->sizes == nullptr) {
    error = "null sizes with a dimension_count of " + std::to_string(t->dimension_count);
    return false;
  }
  out.type = *type;
  out.sizes.assign(t->sizes, t->sizes + t->dimension_count);
  out.strides.reset();
  if (t->strides) out.strides = std::vector<uint32_t>(t->strides, t->strides + t->dimension_count);
  out.total_bytes = t->total_tensor_size_in_bytes;
  return true;
}

// One parameter into or out of its C member, by its C++ type.
template <class Abi, class Field>
void param_to_abi(Abi& abi, const Field& field, const typename Field::Value& v) {
  using T = typename Field::Value;
  if constexpr (std::is_same_v<T, ReduceFunction>) {
    abi.*field.abi = static_cast<uint32_t>(v);
  } else if constexpr (std::is_integral_v<T>) {
    abi.*field.abi = v;
  } else {
    abi.*field.abi = v.data();
    abi.*field.abi_count = static_cast<uint32_t>(v.size());
  }
}

template <class Abi, class Field>
bool param_from_abi(const Abi& abi, const Field& field, typename Field::Value& v, std::string& error) {
  using T = typename Field::Value;
  if constexpr (std::is_same_v<T, ReduceFunction>) {
    v = static_cast<ReduceFunction>(abi.*field.abi);
  } else if constexpr (std::is_integral_v<T>) {
    v = abi.*field.abi;
  } else {
    const auto* p = abi.*field.abi;
    const uint32_t n = abi.*field.abi_count;
    if (n > 0 && p == nullptr) {
      error = "null " + std::string(field.key) + " with a count of " + std::to_string(n);
      return false;
    }
    v.assign(p, p + n);
  }
  return true;
}

}  // namespace

uint32_t to_abi(DataType t) {
  return kAbiDataTypes[static_cast<size_t>(t)];
}
std::optional<DataType> data_type_from_abi(uint32_t t) {
  for (int i = 0; i < kDataTypeCount; ++i)
    if (kAbiDataTypes[i] == t) return kAllDataTypes[i];
  return std::nullopt;
}
uint32_t to_abi(FeatureLevel l) {
  return kAbiLevels[static_cast<size_t>(l)];
}
std::optional<FeatureLevel> feature_level_from_abi(uint32_t l) {
  for (int i = 0; i < kFeatureLevelCount; ++i)
    if (kAbiLevels[i] == l) return static_cast<FeatureLevel>(i);
  return std::nullopt;
}
uint32_t to_abi(OpKind op) {
  return info(op).abi_type;
}
std::optional<OpKind> op_from_abi(uint32_t op) {
  for (OpKind k : all_ops())
    if (info(k).abi_type == op) return k;
  return std::nullopt;
}

AbiOperator::AbiOperator(const OperatorDesc& desc) : desc_(desc) {
  visit(desc_, [&](const auto& d) {
    using D = std::decay_t<decltype(d)>;
    auto& abi = abi_.template emplace<typename D::Abi>();
    for_each_tensor_field<D>([&](const auto& field) {
      const TensorDesc& t = d.*field.member;
      dmlcert_tensor_desc& out = tensors_[static_cast<size_t>(field.role)];
      // Strides that are present keep a pointer even with no entry, so that "no strides" and
      // "strides of no dimension" stay apart through the ABI.
      static constexpr uint32_t kNoEntry = 0;
      const uint32_t* strides = t.strides ? (t.strides->empty() ? &kNoEntry : t.strides->data()) : nullptr;
      out = {to_abi(t.type), t.rank(), t.sizes.data(), strides, t.total_bytes};
      abi.*field.abi = &out;
      if (t.strides && t.strides->size() != t.sizes.size() && !unrepresentable_)
        unrepresentable_ = Violation{"T.STRIDES_COUNT",
                                     "strides and sizes differ in length; the C ABI has one DimensionCount"};
    });
    // Arrays that share a C count member must agree on their length.
    std::optional<size_t> per_dimension;
    for_each_param_field<D>([&](const auto& field) {
      param_to_abi(abi, field, d.*field.member);
      if constexpr (!std::is_integral_v<typename std::decay_t<decltype(field)>::Value> &&
                    !std::is_same_v<typename std::decay_t<decltype(field)>::Value, ReduceFunction>) {
        if (field.kind != ParamKind::PerDimension) return;
        const size_t n = (d.*field.member).size();
        if (per_dimension && *per_dimension != n && !unrepresentable_)
          unrepresentable_ = Violation{std::string(D::kInfo.dimcount_rule),
                                       "parameter arrays differ in length; the C ABI has one DimensionCount"};
        per_dimension = n;
      }
    });
    op_.type = D::kInfo.abi_type;
    op_.desc = &abi;
  });
}

std::optional<OperatorDesc> from_abi(const dmlcert_operator_desc& op, std::string* error) {
  const auto kind = op_from_abi(op.type);
  std::string err;
  if (op.desc == nullptr)
    err = "null operator descriptor";
  else if (!kind)
    err = "unknown operator type " + std::to_string(op.type);
  if (!err.empty()) {
    if (error) *error = err;
    return std::nullopt;
  }
  OperatorDesc result = make_desc(*kind);
  const bool ok = visit(result, [&](auto& d) {
    using D = std::decay_t<decltype(d)>;
    const auto& abi = *static_cast<const typename D::Abi*>(op.desc);
    bool fine = true;
    for_each_tensor_field<D>(
        [&](const auto& field) { fine = fine && tensor_from_abi(abi.*field.abi, d.*field.member, err); });
    for_each_param_field<D>(
        [&](const auto& field) { fine = fine && param_from_abi(abi, field, d.*field.member, err); });
    return fine;
  });
  if (!ok) {
    if (error) *error = err;
    return std::nullopt;
  }
  return result;
}

void write_message(const std::string& text, char* message, size_t capacity) {
  if (message == nullptr || capacity == 0) return;
  const size_t n = std::min(text.size(), capacity - 1);
  std::memcpy(message, text.data(), n);
  message[n] = '\0';
}

}  // namespace dmlcert::plugin

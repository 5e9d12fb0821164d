#include "plugin/abi_convert.h"

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

TensorDesc tensor_from_abi(const dmlcert_tensor_desc* t, std::string* error) {
  TensorDesc out;
  if (t == nullptr) {
    if (error) *error = "null tensor descriptor";
    return out;
  }
  auto type = data_type_from_abi(t->data_type);
  if (!type) {
    if (error) *error = "unknown data type " + std::to_string(t->data_type);
    return out;
  }
  out.type = *type;
  out.sizes.assign(t->sizes, t->sizes + t->dimension_count);
  if (t->strides) out.strides = std::vector<uint32_t>(t->strides, t->strides + t->dimension_count);
  out.total_bytes = t->total_tensor_size_in_bytes;
  return out;
}

template <class T>
std::vector<T> array(const T* p, uint32_t n) {
  return p ? std::vector<T>(p, p + n) : std::vector<T>(n);
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
  return static_cast<uint32_t>(op) + DMLCERT_OPERATOR_SLICE;
}
std::optional<OpKind> op_from_abi(uint32_t op) {
  if (op < DMLCERT_OPERATOR_SLICE || op > DMLCERT_OPERATOR_GATHER_ELEMENTS) return std::nullopt;
  return static_cast<OpKind>(op - DMLCERT_OPERATOR_SLICE);
}

void AbiOperator::fill(const TensorDesc& t, dmlcert_tensor_desc& out) {
  out.data_type = to_abi(t.type);
  out.dimension_count = t.rank();
  out.sizes = t.sizes.data();
  out.strides = t.strides ? t.strides->data() : nullptr;
  out.total_tensor_size_in_bytes = t.total_bytes;
  if (t.strides && t.strides->size() != t.sizes.size() && !unrepresentable_)
    unrepresentable_ =
        Violation{"T.STRIDES_COUNT", "strides and sizes differ in length; the C ABI has one DimensionCount"};
}

AbiOperator::AbiOperator(const OperatorDesc& desc) : desc_(desc) {
  for (Role r : roles(op_kind(desc_))) fill(*tensor(desc_, r), tensors_[static_cast<size_t>(r)]);
  auto* in = &tensors_[static_cast<size_t>(Role::INPUT)];
  auto* idx = &tensors_[static_cast<size_t>(Role::INDICES)];
  auto* upd = &tensors_[static_cast<size_t>(Role::UPDATES)];
  auto* out = &tensors_[static_cast<size_t>(Role::OUTPUT)];
  op_.type = to_abi(op_kind(desc_));
  auto parallel = [this](std::string rule, size_t a, size_t b, size_t c) {
    if ((a != b || b != c) && !unrepresentable_)
      unrepresentable_ =
          Violation{std::move(rule), "parameter arrays differ in length; the C ABI has one DimensionCount"};
  };
  if (auto* d = std::get_if<SliceDesc>(&desc_)) {
    parallel("SLICE.DIMCOUNT", d->offsets.size(), d->sizes.size(), d->strides.size());
    u_.slice = {in,
                out,
                static_cast<uint32_t>(d->offsets.size()),
                d->offsets.data(),
                d->sizes.data(),
                d->strides.data()};
    op_.desc = &u_.slice;
  } else if (auto* d = std::get_if<Slice1Desc>(&desc_)) {
    parallel("SLICE1.DIMCOUNT", d->input_window_offsets.size(), d->input_window_sizes.size(),
             d->input_window_strides.size());
    u_.slice1 = {in,
                 out,
                 static_cast<uint32_t>(d->input_window_offsets.size()),
                 d->input_window_offsets.data(),
                 d->input_window_sizes.data(),
                 d->input_window_strides.data()};
    op_.desc = &u_.slice1;
  } else if (auto* d = std::get_if<ScatterNdDesc>(&desc_)) {
    u_.scatter_nd = {in, idx, upd, out, d->input_dimension_count, d->indices_dimension_count};
    op_.desc = &u_.scatter_nd;
  } else if (auto* d = std::get_if<ReduceDesc>(&desc_)) {
    u_.reduce = {static_cast<uint32_t>(d->function), in, out, static_cast<uint32_t>(d->axes.size()),
                 d->axes.data()};
    op_.desc = &u_.reduce;
  } else if (auto* d = std::get_if<GatherElementsDesc>(&desc_)) {
    u_.gather_elements = {in, idx, out, d->axis};
    op_.desc = &u_.gather_elements;
  }
}

std::optional<OperatorDesc> from_abi(const dmlcert_operator_desc& op, std::string* error) {
  std::string err;
  std::optional<OperatorDesc> result;
  auto t = [&err](const dmlcert_tensor_desc* d) { return tensor_from_abi(d, err.empty() ? &err : nullptr); };
  if (op.desc == nullptr) {
    if (error) *error = "null operator descriptor";
    return std::nullopt;
  }
  switch (op.type) {
    case DMLCERT_OPERATOR_SLICE: {
      auto& d = *static_cast<const dmlcert_slice_operator_desc*>(op.desc);
      result = SliceDesc{t(d.input_tensor), t(d.output_tensor), array(d.offsets, d.dimension_count),
                         array(d.sizes, d.dimension_count), array(d.strides, d.dimension_count)};
      break;
    }
    case DMLCERT_OPERATOR_SLICE1: {
      auto& d = *static_cast<const dmlcert_slice1_operator_desc*>(op.desc);
      result = Slice1Desc{
          t(d.input_tensor), t(d.output_tensor), array(d.input_window_offsets, d.dimension_count),
          array(d.input_window_sizes, d.dimension_count), array(d.input_window_strides, d.dimension_count)};
      break;
    }
    case DMLCERT_OPERATOR_SCATTER_ND: {
      auto& d = *static_cast<const dmlcert_scatter_nd_operator_desc*>(op.desc);
      result = ScatterNdDesc{t(d.input_tensor),  t(d.indices_tensor),     t(d.updates_tensor),
                             t(d.output_tensor), d.input_dimension_count, d.indices_dimension_count};
      break;
    }
    case DMLCERT_OPERATOR_REDUCE: {
      auto& d = *static_cast<const dmlcert_reduce_operator_desc*>(op.desc);
      result = ReduceDesc{static_cast<ReduceFunction>(d.function), t(d.input_tensor), t(d.output_tensor),
                          array(d.axes, d.axis_count)};
      break;
    }
    case DMLCERT_OPERATOR_GATHER_ELEMENTS: {
      auto& d = *static_cast<const dmlcert_gather_elements_operator_desc*>(op.desc);
      result = GatherElementsDesc{t(d.input_tensor), t(d.indices_tensor), t(d.output_tensor), d.axis};
      break;
    }
    default: err = "unknown operator type " + std::to_string(op.type);
  }
  if (!err.empty()) {
    if (error) *error = err;
    return std::nullopt;
  }
  return result;
}

void write_message(const std::string& text, char* message, size_t capacity) {
  if (message == nullptr || capacity == 0) return;
  size_t n = std::min(text.size(), capacity - 1);
  std::memcpy(message, text.data(), n);
  message[n] = '\0';
}

}  // namespace dmlcert::plugin

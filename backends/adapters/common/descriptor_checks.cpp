#include "descriptor_checks.h"

#include <algorithm>
#include <array>

namespace dmlcert_adapter {
namespace {

using u128 = unsigned __int128;

constexpr uint32_t bit(uint32_t type) {
  return 1u << type;
}
constexpr uint32_t kFloat = bit(DMLCERT_DATA_TYPE_FLOAT32) | bit(DMLCERT_DATA_TYPE_FLOAT16);
constexpr uint32_t k32 = bit(DMLCERT_DATA_TYPE_INT32) | bit(DMLCERT_DATA_TYPE_UINT32);
constexpr uint32_t k64 = bit(DMLCERT_DATA_TYPE_INT64) | bit(DMLCERT_DATA_TYPE_UINT64);
constexpr uint32_t k16 = bit(DMLCERT_DATA_TYPE_INT16) | bit(DMLCERT_DATA_TYPE_UINT16);
constexpr uint32_t k8Bit = bit(DMLCERT_DATA_TYPE_INT8) | bit(DMLCERT_DATA_TYPE_UINT8);
constexpr uint32_t kSix = kFloat | k32 | k16;  // SLICE at 1_0
constexpr uint32_t kEight = kSix | k8Bit;      // "8 types": all but the 64-bit ones
constexpr uint32_t kAll = kEight | k64 | bit(DMLCERT_DATA_TYPE_FLOAT64);
constexpr uint32_t kIndex = k64 | k32;

// The support tables change at 1_0, 2_1, 3_0, 4_1 and 5_0 (docs/support.md); a table row lists
// the types allowed from each of them, 0 where the operator does not exist yet.
using Row = std::array<uint32_t, 5>;
constexpr Row kSliceTypes = {kSix, kEight, kEight, kAll, kAll};
constexpr Row kLaterDataTypes = {0, kEight, kEight, kAll, kAll};  // SLICE1, SCATTER_ND, GATHER_ELEMENTS
constexpr Row kIndexTypes = {0, bit(DMLCERT_DATA_TYPE_UINT32), kIndex, kIndex, kIndex};
constexpr Row kArgInput = {kFloat, kEight, kEight, kAll & ~bit(DMLCERT_DATA_TYPE_FLOAT64),
                           kAll & ~bit(DMLCERT_DATA_TYPE_FLOAT64)};
constexpr Row kArgOutput = {bit(DMLCERT_DATA_TYPE_UINT32), bit(DMLCERT_DATA_TYPE_UINT32), kIndex, kIndex,
                            kIndex};
constexpr Row kFloatOnly = {kFloat, kFloat, kFloat, kFloat, kFloat};
constexpr Row kL1SumSquare = {kFloat, kFloat, kFloat, kFloat, kFloat | k32 | k64};
constexpr Row kMaxMin = {kFloat, kFloat | k32, kEight, kEight, kEight | k64};
constexpr Row kSumMultiply = {kFloat, kFloat | k32, kFloat | k32, kFloat | k32, kFloat | k32 | k64};

enum Role { kInput, kIndices, kUpdates, kOutput };
constexpr const char* kRoleNames[] = {"InputTensor", "IndicesTensor", "UpdatesTensor", "OutputTensor"};

bool is_arg(uint32_t function) {
  return function == DMLCERT_REDUCE_FUNCTION_ARGMAX || function == DMLCERT_REDUCE_FUNCTION_ARGMIN;
}

const Row& reduce_row(uint32_t function, Role role) {
  switch (function) {
    case DMLCERT_REDUCE_FUNCTION_ARGMAX:
    case DMLCERT_REDUCE_FUNCTION_ARGMIN: return role == kOutput ? kArgOutput : kArgInput;
    case DMLCERT_REDUCE_FUNCTION_L1:
    case DMLCERT_REDUCE_FUNCTION_SUM_SQUARE: return kL1SumSquare;
    case DMLCERT_REDUCE_FUNCTION_MAX:
    case DMLCERT_REDUCE_FUNCTION_MIN: return kMaxMin;
    case DMLCERT_REDUCE_FUNCTION_MULTIPLY:
    case DMLCERT_REDUCE_FUNCTION_SUM: return kSumMultiply;
    default: return kFloatOnly;  // AVERAGE, L2, LOG_SUM, LOG_SUM_EXP
  }
}

const Row& types_row(uint32_t op, uint32_t function, Role role) {
  if (op == DMLCERT_OPERATOR_SLICE) return kSliceTypes;
  if (op == DMLCERT_OPERATOR_REDUCE) return reduce_row(function, role);
  return role == kIndices ? kIndexTypes : kLaterDataTypes;
}

// The column of the support tables a feature level uses, or -1 for a value that is no level.
int column(uint32_t level) {
  constexpr uint32_t kLevels[] = {0x1000, 0x2000, 0x2100, 0x3000, 0x3100, 0x4000, 0x4100, 0x5000,
                                  0x5100, 0x5200, 0x6000, 0x6100, 0x6200, 0x6300, 0x6400};
  if (std::find(std::begin(kLevels), std::end(kLevels), level) == std::end(kLevels)) return -1;
  return level >= 0x5000 ? 4 : level >= 0x4100 ? 3 : level >= 0x3000 ? 2 : level >= 0x2100 ? 1 : 0;
}

std::string list(const std::vector<int64_t>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + std::to_string(v[i]);
  return s + "]";
}

std::string at(const char* what, size_t i) {
  return std::string(what) + "[" + std::to_string(i) + "]";
}

// Checks one call; the first broken rule ends it (a library reports one error).
class Checker {
 public:
  Checker(uint32_t level, Operator* op) : column_(column(level)), op_(*op) { op_.level = level; }

  std::string run(const dmlcert_operator_desc* desc, const dmlcert_input_binding* inputs,
                  uint32_t input_count, const dmlcert_output_binding* outputs, uint32_t output_count) {
    if (!desc || !desc->desc) return "no operator descriptor";
    if (column_ < 0) return "unknown feature level " + std::to_string(op_.level);
    op_.type = desc->type;
    switch (desc->type) {
      case DMLCERT_OPERATOR_SLICE: slice(as<dmlcert_slice_operator_desc>(desc)); break;
      case DMLCERT_OPERATOR_SLICE1: slice1(as<dmlcert_slice1_operator_desc>(desc)); break;
      case DMLCERT_OPERATOR_SCATTER_ND: scatter_nd(as<dmlcert_scatter_nd_operator_desc>(desc)); break;
      case DMLCERT_OPERATOR_REDUCE: reduce(as<dmlcert_reduce_operator_desc>(desc)); break;
      case DMLCERT_OPERATOR_GATHER_ELEMENTS:
        gather_elements(as<dmlcert_gather_elements_operator_desc>(desc));
        break;
      default: return "unknown operator type " + std::to_string(desc->type);
    }
    if (error_.empty()) bind(inputs, input_count, outputs, output_count);
    return error_;
  }

 private:
  template <class Desc>
  static const Desc& as(const dmlcert_operator_desc* desc) {
    return *static_cast<const Desc*>(desc->desc);
  }

  bool fail(std::string why) {
    if (error_.empty()) error_ = std::move(why);
    return false;
  }
  bool ok() const { return error_.empty(); }

  // Rank, type, sizes, strides and byte counts of one tensor against the operator's table.
  bool tensor(const dmlcert_tensor_desc* d, Role role, Tensor* t) {
    const char* name = kRoleNames[role];
    if (!d) return fail(std::string(name) + " is missing");
    const uint32_t allowed = types_row(op_.type, op_.function, role)[column_];
    if (allowed == 0)
      return fail("the operator does not exist at feature level " + std::to_string(op_.level));
    const bool wide_ranks = column_ >= 2;
    const uint32_t lo = wide_ranks ? 1 : 4;
    const uint32_t hi = wide_ranks                                                                    ? 8
                        : (op_.type == DMLCERT_OPERATOR_SLICE || op_.type == DMLCERT_OPERATOR_SLICE1) ? 5
                                                                                                      : 4;
    if (d->dimension_count < lo || d->dimension_count > hi)
      return fail(std::string(name) + ".DimensionCount is " + std::to_string(d->dimension_count) +
                  "; it must be " + std::to_string(lo) + ".." + std::to_string(hi) +
                  " at this feature level");
    if (d->data_type >= 32 || !(allowed & bit(d->data_type)))
      return fail(std::string(name) + ".DataType " + type_name(d->data_type) + " is not supported here");
    if (!d->sizes) return fail(std::string(name) + ".Sizes is missing");
    t->type = d->data_type;
    t->sizes.assign(d->sizes, d->sizes + d->dimension_count);
    t->total_bytes = d->total_tensor_size_in_bytes;
    for (size_t i = 0; i < t->rank(); ++i)
      if (t->sizes[i] == 0) return fail(at((std::string(name) + ".Sizes").c_str(), i) + " is 0");
    t->strides.assign(t->rank(), 0);
    if (d->strides) {
      t->strides.assign(d->strides, d->strides + d->dimension_count);
    } else {
      u128 s = 1;  // at most 8 sizes below 2^32: no overflow in 128 bits
      for (size_t i = t->rank(); i-- > 0;) {
        t->strides[i] = s > u128(INT64_MAX) ? INT64_MAX : static_cast<int64_t>(s);
        s *= static_cast<uint64_t>(t->sizes[i]);
      }
    }
    u128 span = 1;
    for (size_t i = 0; i < t->rank(); ++i)
      span += u128(static_cast<uint64_t>(t->sizes[i] - 1)) * static_cast<uint64_t>(t->strides[i]);
    if (span > 0xFFFFFFFFu)
      return fail(std::string(name) + " spans more than 2^32-1 elements (dot(Sizes-1, Strides)+1)");
    const uint64_t need = (static_cast<uint64_t>(span) * element_size(t->type) + 3) / 4 * 4;
    if (t->total_bytes < need || t->total_bytes % 4 != 0)
      return fail(std::string(name) + ".TotalTensorSizeInBytes is " + std::to_string(t->total_bytes) +
                  "; it must be a multiple of 4 and at least " + std::to_string(need));
    span_bytes_[role] = static_cast<uint64_t>(span) * element_size(t->type);
    return true;
  }

  bool same_type(const Tensor& t, Role role, const Tensor& as) {
    if (t.type == as.type) return true;
    return fail(std::string(kRoleNames[role]) + ".DataType " + type_name(t.type) + " differs from " +
                type_name(as.type));
  }

  bool same_rank(const Tensor& t, Role role, size_t rank) {
    if (t.rank() == rank) return true;
    return fail(std::string(kRoleNames[role]) + ".DimensionCount is " + std::to_string(t.rank()) +
                "; it must equal InputTensor's " + std::to_string(rank));
  }

  // A parameter array of `count` entries; fails when it is missing.
  template <class T>
  bool params(const char* name, const T* values, uint32_t count, std::vector<int64_t>* out) {
    if (count > 0 && !values) return fail(std::string(name) + " is missing");
    out->assign(values, values + count);
    return true;
  }

  bool dimension_count(uint32_t n) {
    if (n == op_.input.rank() && n == op_.output.rank()) return true;
    return fail("DimensionCount is " + std::to_string(n) + "; InputTensor and OutputTensor have " +
                std::to_string(op_.input.rank()) + " and " + std::to_string(op_.output.rank()) +
                " dimensions");
  }

  // SLICE and SLICE1 share their tensors, their DimensionCount and three parameter arrays.
  template <class Desc, class Stride>
  bool window(const Desc& d, const uint32_t* offsets, const uint32_t* sizes, const Stride* strides,
              const char* const (&names)[3]) {
    return tensor(d.input_tensor, kInput, &op_.input) && tensor(d.output_tensor, kOutput, &op_.output) &&
           same_type(op_.output, kOutput, op_.input) && dimension_count(d.dimension_count) &&
           params(names[0], offsets, d.dimension_count, &op_.offsets) &&
           params(names[1], sizes, d.dimension_count, &op_.sizes) &&
           params(names[2], strides, d.dimension_count, &op_.strides);
  }

  void slice(const dmlcert_slice_operator_desc& d) {
    if (!window(d, d.offsets, d.sizes, d.strides, {"Offsets", "Sizes", "Strides"})) return;
    for (size_t i = 0; i < op_.sizes.size(); ++i) {
      if (op_.sizes[i] != op_.output.sizes[i])
        return void(fail(at("Sizes", i) + " is " + std::to_string(op_.sizes[i]) +
                         " but OutputTensor.Sizes has " + std::to_string(op_.output.sizes[i])));
      const u128 last = u128(op_.offsets[i]) + u128(op_.strides[i]) * u128(op_.sizes[i] - 1);
      if (last >= u128(op_.input.sizes[i]))
        return void(fail("the slice reads past InputTensor.Sizes[" + std::to_string(i) +
                         "] = " + std::to_string(op_.input.sizes[i])));
    }
  }

  void slice1(const dmlcert_slice1_operator_desc& d) {
    if (!window(d, d.input_window_offsets, d.input_window_sizes, d.input_window_strides,
                {"InputWindowOffsets", "InputWindowSizes", "InputWindowStrides"}))
      return;
    for (size_t i = 0; i < op_.sizes.size(); ++i) {
      const int64_t size = op_.sizes[i], stride = op_.strides[i];
      if (size < 1) return void(fail(at("InputWindowSizes", i) + " is 0"));
      if (op_.offsets[i] + size > op_.input.sizes[i])
        return void(fail("window " + std::to_string(i) + " ends past InputTensor.Sizes[" + std::to_string(i) +
                         "] = " + std::to_string(op_.input.sizes[i])));
      if (stride == 0) return void(fail(at("InputWindowStrides", i) + " is 0"));
      const int64_t most = 1 + (size - 1) / (stride < 0 ? -stride : stride);
      if (op_.output.sizes[i] > most)
        return void(fail(at("OutputTensor.Sizes", i) + " is " + std::to_string(op_.output.sizes[i]) +
                         "; the window holds at most " + std::to_string(most)));
    }
  }

  void scatter_nd(const dmlcert_scatter_nd_operator_desc& d) {
    if (!tensor(d.input_tensor, kInput, &op_.input) || !tensor(d.indices_tensor, kIndices, &op_.indices) ||
        !tensor(d.updates_tensor, kUpdates, &op_.updates) || !tensor(d.output_tensor, kOutput, &op_.output))
      return;
    const size_t rank = op_.input.rank();
    if (!same_rank(op_.indices, kIndices, rank) || !same_rank(op_.updates, kUpdates, rank) ||
        !same_rank(op_.output, kOutput, rank) || !same_type(op_.updates, kUpdates, op_.input) ||
        !same_type(op_.output, kOutput, op_.input))
      return;
    const uint32_t idc = op_.input_dimension_count = d.input_dimension_count;
    const uint32_t xdc = op_.indices_dimension_count = d.indices_dimension_count;
    if (idc < 1 || idc > rank) return void(fail("InputDimensionCount is " + std::to_string(idc)));
    if (xdc < 1 || xdc > rank) return void(fail("IndicesDimensionCount is " + std::to_string(xdc)));
    for (size_t i = 0; i + idc < rank; ++i)
      if (op_.input.sizes[i] != 1)
        return void(fail(at("InputTensor.Sizes", i) + " is a leading size but not 1"));
    for (size_t i = 0; i + xdc < rank; ++i)
      if (op_.indices.sizes[i] != 1)
        return void(fail(at("IndicesTensor.Sizes", i) + " is a leading size but not 1"));
    const int64_t k = op_.indices.sizes.back();
    if (k > static_cast<int64_t>(rank))
      return void(fail("the index tuples have " + std::to_string(k) + " entries; the input has " +
                       std::to_string(rank) + " dimensions"));
    // The tuple indexes dimensions [rank - m, rank - m + k) and addresses the block after them
    // (docs/ops/scatter_nd.md).
    const size_t m = std::max<size_t>(idc, static_cast<size_t>(k));
    std::vector<int64_t> expected(op_.indices.sizes.end() - xdc, op_.indices.sizes.end() - 1);
    expected.insert(expected.end(), op_.input.sizes.begin() + static_cast<ptrdiff_t>(rank - m + k),
                    op_.input.sizes.end());
    if (expected.size() < rank) expected.insert(expected.begin(), rank - expected.size(), 1);
    if (expected != op_.updates.sizes)
      return void(fail("UpdatesTensor.Sizes is " + list(op_.updates.sizes) + "; expected " + list(expected)));
    if (op_.output.sizes != op_.input.sizes)
      return void(fail("OutputTensor.Sizes " + list(op_.output.sizes) + " differs from InputTensor.Sizes " +
                       list(op_.input.sizes)));
  }

  void reduce(const dmlcert_reduce_operator_desc& d) {
    op_.function = d.function;
    if (d.function > DMLCERT_REDUCE_FUNCTION_SUM_SQUARE)
      return void(fail("unknown reduce function " + std::to_string(d.function)));
    if (!tensor(d.input_tensor, kInput, &op_.input) || !tensor(d.output_tensor, kOutput, &op_.output)) return;
    const size_t rank = op_.input.rank();
    if (!same_rank(op_.output, kOutput, rank)) return;
    if (!is_arg(d.function) && !same_type(op_.output, kOutput, op_.input)) return;
    if (!params("Axes", d.axes, d.axis_count, &op_.axes)) return;
    std::vector<bool> reduced(rank, false);
    for (size_t i = 0; i < op_.axes.size(); ++i) {
      if (op_.axes[i] >= static_cast<int64_t>(rank))
        return void(fail(at("Axes", i) + " is " + std::to_string(op_.axes[i]) + "; the input has " +
                         std::to_string(rank) + " dimensions"));
      reduced[op_.axes[i]] = true;
    }
    for (size_t i = 0; i < rank; ++i) {
      const int64_t want = reduced[i] ? 1 : op_.input.sizes[i];
      if (op_.output.sizes[i] != want)
        return void(fail(at("OutputTensor.Sizes", i) + " is " + std::to_string(op_.output.sizes[i]) +
                         "; it must be " + std::to_string(want)));
    }
  }

  void gather_elements(const dmlcert_gather_elements_operator_desc& d) {
    if (!tensor(d.input_tensor, kInput, &op_.input) || !tensor(d.indices_tensor, kIndices, &op_.indices) ||
        !tensor(d.output_tensor, kOutput, &op_.output))
      return;
    const size_t rank = op_.input.rank();
    if (!same_rank(op_.indices, kIndices, rank) || !same_rank(op_.output, kOutput, rank) ||
        !same_type(op_.output, kOutput, op_.input))
      return;
    op_.axis = d.axis;
    if (d.axis >= rank)
      return void(fail("Axis " + std::to_string(d.axis) + " is not below the input's rank"));
    for (size_t i = 0; i < rank; ++i)
      if (i != d.axis && op_.indices.sizes[i] != op_.input.sizes[i])
        return void(fail(at("IndicesTensor.Sizes", i) + " differs from InputTensor.Sizes"));
    if (op_.output.sizes != op_.indices.sizes)
      return void(fail("OutputTensor.Sizes differs from IndicesTensor.Sizes"));
  }

  // The bindings, in the ABI's order, must hold every byte the tensors address.
  void bind(const dmlcert_input_binding* inputs, uint32_t input_count, const dmlcert_output_binding* outputs,
            uint32_t output_count) {
    std::vector<std::pair<Tensor*, Role>> in = {{&op_.input, kInput}};
    if (op_.type == DMLCERT_OPERATOR_SCATTER_ND)
      in = {{&op_.input, kInput}, {&op_.indices, kIndices}, {&op_.updates, kUpdates}};
    if (op_.type == DMLCERT_OPERATOR_GATHER_ELEMENTS) in = {{&op_.input, kInput}, {&op_.indices, kIndices}};
    if (input_count != in.size() || !inputs || output_count != 1 || !outputs)
      return void(fail("expected " + std::to_string(in.size()) + " input bindings and 1 output binding"));
    auto check = [&](Tensor* t, Role role, const void* data, uint64_t bytes) {
      if (!data || bytes < span_bytes_[role])
        return fail(std::string(kRoleNames[role]) + "'s binding holds " + std::to_string(bytes) +
                    " bytes; the tensor addresses " + std::to_string(span_bytes_[role]));
      t->data = static_cast<std::byte*>(const_cast<void*>(data));
      t->binding_bytes = bytes;
      return true;
    };
    for (size_t i = 0; i < in.size(); ++i)
      if (!check(in[i].first, in[i].second, inputs[i].data, inputs[i].size_in_bytes)) return;
    check(&op_.output, kOutput, outputs[0].data, outputs[0].size_in_bytes);
  }

  int column_;
  Operator& op_;
  std::string error_;
  uint64_t span_bytes_[4] = {};
};

}  // namespace

size_t element_size(uint32_t data_type) {
  switch (data_type) {
    case DMLCERT_DATA_TYPE_FLOAT64:
    case DMLCERT_DATA_TYPE_INT64:
    case DMLCERT_DATA_TYPE_UINT64: return 8;
    case DMLCERT_DATA_TYPE_FLOAT32:
    case DMLCERT_DATA_TYPE_INT32:
    case DMLCERT_DATA_TYPE_UINT32: return 4;
    case DMLCERT_DATA_TYPE_FLOAT16:
    case DMLCERT_DATA_TYPE_INT16:
    case DMLCERT_DATA_TYPE_UINT16: return 2;
    case DMLCERT_DATA_TYPE_INT8:
    case DMLCERT_DATA_TYPE_UINT8: return 1;
    default: return 0;
  }
}

std::string type_name(uint32_t data_type) {
  constexpr const char* kNames[] = {"UNKNOWN", "FLOAT32", "FLOAT16", "UINT32",  "UINT16", "UINT8",
                                    "INT32",   "INT16",   "INT8",    "FLOAT64", "UINT64", "INT64"};
  return data_type < std::size(kNames) ? kNames[data_type] : "type " + std::to_string(data_type);
}

bool is_float_type(uint32_t t) {
  return t == DMLCERT_DATA_TYPE_FLOAT64 || t == DMLCERT_DATA_TYPE_FLOAT32 || t == DMLCERT_DATA_TYPE_FLOAT16;
}

bool is_signed_type(uint32_t t) {
  return is_float_type(t) || t == DMLCERT_DATA_TYPE_INT64 || t == DMLCERT_DATA_TYPE_INT32 ||
         t == DMLCERT_DATA_TYPE_INT16 || t == DMLCERT_DATA_TYPE_INT8;
}

int64_t Tensor::element_count() const {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  return n;
}

std::string decode_and_check(const dmlcert_operator_desc* op, uint32_t feature_level,
                             const dmlcert_input_binding* inputs, uint32_t input_count,
                             const dmlcert_output_binding* outputs, uint32_t output_count, Operator* out) {
  *out = Operator{};
  return Checker(feature_level, out).run(op, inputs, input_count, outputs, output_count);
}

}  // namespace dmlcert_adapter

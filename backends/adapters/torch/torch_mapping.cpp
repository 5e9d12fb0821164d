#include "torch_mapping.h"

#include <ATen/ATen.h>
#include <c10/util/Exception.h>
#include <torch/csrc/api/include/torch/version.h>

#include <algorithm>
#include <new>

#include "../common/plugin_table.h"

namespace dmlcert_adapter::torch_adapter {
namespace {

// The torch type holding a DirectML type's bits. torch 1.13 has no UINT16, UINT32 or UINT64:
// SLICE, SLICE1, GATHER_ELEMENTS and SCATTER_ND only move elements, so those borrow the signed
// type of their width; REDUCE widens them (values()), and cannot hold UINT64 at all.
at::ScalarType bits_type(uint32_t type) {
  switch (type) {
    case DMLCERT_DATA_TYPE_FLOAT64: return at::kDouble;
    case DMLCERT_DATA_TYPE_FLOAT32: return at::kFloat;
    case DMLCERT_DATA_TYPE_FLOAT16: return at::kHalf;
    case DMLCERT_DATA_TYPE_INT64:
    case DMLCERT_DATA_TYPE_UINT64: return at::kLong;
    case DMLCERT_DATA_TYPE_INT32:
    case DMLCERT_DATA_TYPE_UINT32: return at::kInt;
    case DMLCERT_DATA_TYPE_INT16:
    case DMLCERT_DATA_TYPE_UINT16: return at::kShort;
    case DMLCERT_DATA_TYPE_INT8: return at::kChar;
    default: return at::kByte;  // UINT8
  }
}

// The caller's memory as a strided torch view (0 strides broadcast).
at::Tensor view(const Tensor& t) {
  return at::from_blob(t.data, t.sizes, t.strides, at::TensorOptions().dtype(bits_type(t.type)));
}

// The values of a tensor REDUCE computes on: UINT16 and UINT32 widened to the next signed type.
at::Tensor values(const Tensor& t) {
  at::Tensor v = view(t);
  if (t.type == DMLCERT_DATA_TYPE_UINT16) return v.to(at::kInt).bitwise_and(0xFFFF);
  if (t.type == DMLCERT_DATA_TYPE_UINT32) return v.to(at::kLong).bitwise_and(int64_t{0xFFFFFFFF});
  return v;
}

// Index values as torch's int64 indices (negative values are left to each operator).
at::Tensor index_values(const Operator& op) {
  at::Tensor idx = view(op.indices).to(at::kLong);
  if (op.indices.type == DMLCERT_DATA_TYPE_UINT32) idx = idx.bitwise_and(int64_t{0xFFFFFFFF});
  // A UINT64 index at or above 2^63 has no int64 value; torch would read it as negative.
  TORCH_CHECK_INDEX(op.indices.type != DMLCERT_DATA_TYPE_UINT64 || !idx.lt(0).any().item<bool>(),
                    "a UINT64 index does not fit torch's int64 indices");
  return idx;
}

// Writes the whole result into the output view (converted to the output's bits).
void store(const Operator& op, const at::Tensor& result) {
  at::Tensor out = view(op.output);
  out.copy_(result.to(bits_type(op.output.type)).reshape(op.output.sizes));
}

std::vector<int64_t> slice_start_end(int64_t offset, int64_t step, int64_t count) {
  return {offset, offset + step * (count - 1) + 1};
}

// The step of a dimension that takes `count` elements. With one element the step is never taken,
// and torch's view would still multiply it into the dimension's stride: a tensor stride and a
// step near 2^32 each overflow int64 there, and torch rejects the negative stride that results.
int64_t step_of(int64_t step, int64_t count) {
  return count == 1 ? 1 : step;
}

void slice(const Operator& op) {
  at::Tensor x = view(op.input);
  for (size_t d = 0; d < op.input.rank(); ++d) {
    const int64_t step = step_of(op.strides[d], op.sizes[d]);
    const auto range = slice_start_end(op.offsets[d], step, op.sizes[d]);
    x = x.slice(static_cast<int64_t>(d), range[0], range[1], step);
  }
  store(op, x);
}

// A negative stride walks the window from its end: the window, flipped, walked with |stride|.
void slice1(const Operator& op) {
  at::Tensor x = view(op.input);
  std::vector<int64_t> reversed;
  for (size_t d = 0; d < op.input.rank(); ++d) {
    x = x.narrow(static_cast<int64_t>(d), op.offsets[d], op.sizes[d]);
    if (op.strides[d] < 0) reversed.push_back(static_cast<int64_t>(d));
  }
  if (!reversed.empty()) x = x.flip(reversed);
  for (size_t d = 0; d < op.input.rank(); ++d) {
    const int64_t step = step_of(std::abs(op.strides[d]), op.output.sizes[d]);
    const auto range = slice_start_end(0, step, op.output.sizes[d]);
    x = x.slice(static_cast<int64_t>(d), range[0], range[1], step);
  }
  store(op, x);
}

void gather_elements(const Operator& op) {
  at::Tensor idx = index_values(op);
  // From 3_0 a signed index in [-d, -1] means d + index (docs/ops/gather_elements.md); torch's
  // gather takes only [0, d).
  if (is_signed_type(op.indices.type)) {
    const int64_t d = op.input.sizes[op.axis];
    idx = at::where(idx.lt(0), idx + d, idx);
  }
  store(op, at::gather(view(op.input), static_cast<int64_t>(op.axis), idx));
}

// Tuples index dimensions [rank - m, rank - m + k) of the input and address the block after them
// (docs/ops/scatter_nd.md); the leading dimensions before rank - m are 1s.
void scatter_nd(const Operator& op) {
  const int64_t rank = static_cast<int64_t>(op.input.rank());
  const int64_t k = op.indices.sizes.back();
  const int64_t m = std::max<int64_t>(op.input_dimension_count, k);
  const std::vector<int64_t> tail(op.input.sizes.end() - m, op.input.sizes.end());
  at::Tensor result = view(op.input).clone(at::MemoryFormat::Contiguous).reshape(tail);
  at::Tensor idx = index_values(op).reshape({-1, k});
  std::vector<int64_t> update_sizes = {idx.size(0)};
  update_sizes.insert(update_sizes.end(), op.input.sizes.begin() + (rank - m + k), op.input.sizes.end());
  at::Tensor updates = view(op.updates).reshape(update_sizes);
  c10::List<c10::optional<at::Tensor>> tuple;
  for (int64_t j = 0; j < k; ++j) tuple.push_back(idx.select(1, j));
  result.index_put_(tuple, updates);
  store(op, result);
}

// The input with the kept axes first and the reduced ones (in increasing order) flattened into
// one last axis: the row-major index over the reduced axes is then ARGMAX's index
// (docs/ops/reduce.md), and prod, which takes one dimension, reduces them all at once.
at::Tensor reduced_last(const at::Tensor& x, const std::vector<int64_t>& axes) {
  std::vector<int64_t> sorted = axes;
  std::sort(sorted.begin(), sorted.end());
  std::vector<int64_t> order;
  int64_t kept = 1;
  for (int64_t d = 0; d < x.dim(); ++d)
    if (!std::binary_search(sorted.begin(), sorted.end(), d)) order.push_back(d), kept *= x.size(d);
  order.insert(order.end(), sorted.begin(), sorted.end());
  return x.permute(order).reshape({kept, -1});
}

at::Tensor reduce_result(const Operator& op) {
  const at::Tensor x = values(op.input);
  const at::IntArrayRef axes(op.axes);
  const bool floating = is_float_type(op.input.type);
  switch (op.function) {
    case DMLCERT_REDUCE_FUNCTION_SUM: return x.sum(axes, true, x.scalar_type());
    case DMLCERT_REDUCE_FUNCTION_MULTIPLY: return reduced_last(x, op.axes).prod(1, false, x.scalar_type());
    case DMLCERT_REDUCE_FUNCTION_MAX: return x.amax(axes, true);
    case DMLCERT_REDUCE_FUNCTION_MIN: return x.amin(axes, true);
    case DMLCERT_REDUCE_FUNCTION_AVERAGE: return x.mean(axes, true);
    case DMLCERT_REDUCE_FUNCTION_L1:
      return floating ? at::norm(x, 1, axes, true) : x.abs().sum(axes, true, x.scalar_type());
    case DMLCERT_REDUCE_FUNCTION_L2: return at::norm(x, 2, axes, true);
    case DMLCERT_REDUCE_FUNCTION_SUM_SQUARE: {
      // torch rounds each elementwise result to the tensor's type: FLOAT16 squares are taken in
      // float32, where torch's sum of FLOAT16 accumulates anyway.
      const at::Tensor wide = op.input.type == DMLCERT_DATA_TYPE_FLOAT16 ? x.to(at::kFloat) : x;
      return wide.square().sum(axes, true, wide.scalar_type());
    }
    case DMLCERT_REDUCE_FUNCTION_LOG_SUM: return x.sum(axes, true).log();
    case DMLCERT_REDUCE_FUNCTION_LOG_SUM_EXP: return x.logsumexp(axes, true);
    case DMLCERT_REDUCE_FUNCTION_ARGMAX: return reduced_last(x, op.axes).argmax(1);
    default: return reduced_last(x, op.axes).argmin(1);  // ARGMIN
  }
}

bool implements(uint32_t op, uint32_t function, uint32_t type) {
  if (op != DMLCERT_OPERATOR_REDUCE)
    return op >= DMLCERT_OPERATOR_SLICE && op <= DMLCERT_OPERATOR_GATHER_ELEMENTS;
  if (type == DMLCERT_DATA_TYPE_UINT64) return false;  // no torch type holds UINT64's range
  // torch 1.13 has no CPU kernel for prod, log or exp on Half ("prod_cpu" / "log_vml_cpu" /
  // "exp_vml_cpu" not implemented for 'Half').
  const bool needs_half_kernels = function == DMLCERT_REDUCE_FUNCTION_MULTIPLY ||
                                  function == DMLCERT_REDUCE_FUNCTION_LOG_SUM ||
                                  function == DMLCERT_REDUCE_FUNCTION_LOG_SUM_EXP;
  return !(needs_half_kernels && type == DMLCERT_DATA_TYPE_FLOAT16);
}

RunResult run(const Operator& op) {
  try {
    switch (op.type) {
      case DMLCERT_OPERATOR_SLICE: slice(op); break;
      case DMLCERT_OPERATOR_SLICE1: slice1(op); break;
      case DMLCERT_OPERATOR_SCATTER_ND: scatter_nd(op); break;
      case DMLCERT_OPERATOR_GATHER_ELEMENTS: gather_elements(op); break;
      default:
        // torch reads an empty dimension list as every dimension; DirectML's AxisCount 0 is class U
        // (REDUCE.AXES_EMPTY), so the adapter declines it.
        if (op.axes.empty()) return {DMLCERT_STATUS_INVALID_ARGUMENT, "torch cannot reduce over no axes"};
        store(op, reduce_result(op));
        break;
    }
    return {};
  } catch (const c10::NotImplementedError& e) {
    return {DMLCERT_STATUS_UNSUPPORTED, e.what_without_backtrace()};
  } catch (const c10::Error& e) {
    // TORCH_CHECK failures: torch refused the arguments.
    return {DMLCERT_STATUS_INVALID_ARGUMENT, e.what_without_backtrace()};
  } catch (const std::bad_alloc&) {
    return {DMLCERT_STATUS_ERROR, "out of memory"};
  } catch (const std::exception& e) {
    return {DMLCERT_STATUS_ERROR, e.what()};
  }
}

}  // namespace

const dmlcert_backend_v1* backend_table(uint32_t abi_version) {
  static const Library library{"libtorch " TORCH_VERSION " (dmlcert adapter)", DMLCERT_FEATURE_LEVEL_6_4,
                               implements, run};
  return export_table(abi_version, &library);
}

}  // namespace dmlcert_adapter::torch_adapter

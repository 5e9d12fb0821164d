#include "onednn_mapping.h"

#include <new>
#include <oneapi/dnnl/dnnl.hpp>
#include <optional>
#include <string>

#include "../common/plugin_table.h"

namespace dmlcert_adapter::onednn_adapter {
namespace {

using dnnl::memory;

// oneDNN's type for a DirectML type's bits. oneDNN 2.6 has f32, f16, bf16, s32, s8 and u8:
// UINT32 borrows s32 where only elements move (SLICE, SLICE1); nothing holds 64-bit or 16-bit
// integers, or FLOAT64.
std::optional<memory::data_type> onednn_type(uint32_t type) {
  switch (type) {
    case DMLCERT_DATA_TYPE_FLOAT32: return memory::data_type::f32;
    case DMLCERT_DATA_TYPE_FLOAT16: return memory::data_type::f16;
    case DMLCERT_DATA_TYPE_INT32:
    case DMLCERT_DATA_TYPE_UINT32: return memory::data_type::s32;
    case DMLCERT_DATA_TYPE_INT8: return memory::data_type::s8;
    case DMLCERT_DATA_TYPE_UINT8: return memory::data_type::u8;
    default: return std::nullopt;
  }
}

// The reduction algorithm for a REDUCE function and its p (docs/ops/reduce.md against the
// reduction primitive's formulas): L1 and L2 are Lp-norms, SUM_SQUARE the L2 norm's power p.
// LOG_SUM, LOG_SUM_EXP, ARGMAX and ARGMIN have no reduction algorithm.
std::optional<std::pair<dnnl::algorithm, float>> reduction_algorithm(uint32_t function) {
  using dnnl::algorithm;
  switch (function) {
    case DMLCERT_REDUCE_FUNCTION_SUM: return {{algorithm::reduction_sum, 0.f}};
    case DMLCERT_REDUCE_FUNCTION_MULTIPLY: return {{algorithm::reduction_mul, 0.f}};
    case DMLCERT_REDUCE_FUNCTION_MAX: return {{algorithm::reduction_max, 0.f}};
    case DMLCERT_REDUCE_FUNCTION_MIN: return {{algorithm::reduction_min, 0.f}};
    case DMLCERT_REDUCE_FUNCTION_AVERAGE: return {{algorithm::reduction_mean, 0.f}};
    case DMLCERT_REDUCE_FUNCTION_L1: return {{algorithm::reduction_norm_lp_sum, 1.f}};
    case DMLCERT_REDUCE_FUNCTION_L2: return {{algorithm::reduction_norm_lp_sum, 2.f}};
    case DMLCERT_REDUCE_FUNCTION_SUM_SQUARE: return {{algorithm::reduction_norm_lp_power_p_sum, 2.f}};
    default: return std::nullopt;
  }
}

struct Runtime {
  // oneDNN's primitive cache treats descriptors that differ only in the stride of a size-1
  // dimension as one key, so the implementation picked for the first call serves later ones and
  // a call's result would depend on the calls before it (docs/third-party.md). Without the cache
  // every call picks its own implementation, as docs/semantics.md requires.
  Runtime() { dnnl::set_primitive_cache_capacity(0); }
  dnnl::engine engine{dnnl::engine::kind::cpu, 0};
  dnnl::stream stream{engine};
};

Runtime& runtime() {
  static Runtime r;
  return r;
}

memory::desc desc_of(uint32_t type, const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides) {
  return memory::desc(sizes, *onednn_type(type), strides);
}

memory memory_of(const Tensor& t) {
  return memory(desc_of(t.type, t.sizes, t.strides), runtime().engine, t.data);
}

// SLICE and SLICE1 (non-negative strides): the elements read form a strided sub-view of the
// input, starting at the first one read, each stride scaled by the step; a reorder copies it
// into the output.
RunResult slice(const Operator& op) {
  const size_t rank = op.input.rank();
  std::vector<int64_t> strides(rank);
  int64_t first = 0;
  for (size_t d = 0; d < rank; ++d) {
    if (op.strides[d] < 0)
      return {DMLCERT_STATUS_UNSUPPORTED, "oneDNN memory descriptors have no negative strides"};
    first += op.offsets[d] * op.input.strides[d];
    strides[d] = op.input.strides[d] * op.strides[d];
  }
  Runtime& rt = runtime();
  memory src(desc_of(op.input.type, op.output.sizes, strides), rt.engine,
             op.input.data + first * static_cast<int64_t>(element_size(op.input.type)));
  memory dst = memory_of(op.output);
  dnnl::reorder(src, dst).execute(rt.stream, src, dst);
  rt.stream.wait();
  return {};
}

std::vector<int64_t> packed_strides(const std::vector<int64_t>& sizes) {
  std::vector<int64_t> strides(sizes.size(), 1);
  for (size_t d = sizes.size(); d-- > 1;) strides[d - 1] = strides[d] * sizes[d];
  return strides;
}

// A REDUCE whose reduced axes all have size 1 (N = 1), or that has no axes (class U, read
// literally): the reduction primitive refuses to run as an identity (src/common/reduction.cpp),
// so the input is reordered into the output, through a packed buffer made |x| or x^2 by the
// eltwise primitive for the norms. The buffer is packed because oneDNN 2.6's reference eltwise
// addresses a non-dense tensor of more than 5 dimensions wrongly (docs/third-party.md). Every
// primitive is created before any runs, so a refusal writes nothing.
RunResult reduce_identity(const Operator& op) {
  Runtime& rt = runtime();
  memory src = memory_of(op.input), dst = memory_of(op.output);
  if (op.function != DMLCERT_REDUCE_FUNCTION_L1 && op.function != DMLCERT_REDUCE_FUNCTION_L2 &&
      op.function != DMLCERT_REDUCE_FUNCTION_SUM_SQUARE) {
    dnnl::reorder(src, dst).execute(rt.stream, src, dst);
    rt.stream.wait();
    return {};
  }
  memory packed(desc_of(op.output.type, op.output.sizes, packed_strides(op.output.sizes)), rt.engine);
  const auto kind = op.function == DMLCERT_REDUCE_FUNCTION_SUM_SQUARE ? dnnl::algorithm::eltwise_square
                                                                      : dnnl::algorithm::eltwise_abs;
  const dnnl::eltwise_forward::desc desc(dnnl::prop_kind::forward_inference, kind, packed.get_desc(), 0.f,
                                         0.f);
  dnnl::eltwise_forward elementwise(dnnl::eltwise_forward::primitive_desc(desc, rt.engine));
  dnnl::reorder in(src, packed), out(packed, dst);
  in.execute(rt.stream, src, packed);
  elementwise.execute(rt.stream, {{DNNL_ARG_SRC, packed}, {DNNL_ARG_DST, packed}});
  out.execute(rt.stream, packed, dst);
  rt.stream.wait();
  return {};
}

RunResult reduce(const Operator& op) {
  if (op.input.sizes == op.output.sizes) return reduce_identity(op);
  const auto algorithm = reduction_algorithm(op.function);
  Runtime& rt = runtime();
  memory src = memory_of(op.input), dst = memory_of(op.output);
  const dnnl::reduction::desc desc(algorithm->first, src.get_desc(), dst.get_desc(), algorithm->second, 0.f);
  dnnl::reduction(dnnl::reduction::primitive_desc(desc, rt.engine))
      .execute(rt.stream, {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}});
  rt.stream.wait();
  return {};
}

bool implements(uint32_t op, uint32_t function, uint32_t type) {
  switch (op) {
    case DMLCERT_OPERATOR_SLICE:
    case DMLCERT_OPERATOR_SLICE1: return onednn_type(type).has_value();
    case DMLCERT_OPERATOR_REDUCE:
      // The reduction primitive takes f32, bf16 and int8 sources (oneDNN 2.6,
      // doc/primitives/reduction.md); of DirectML's int8 cells only MAX and MIN exist.
      if (!reduction_algorithm(function)) return false;
      return type == DMLCERT_DATA_TYPE_FLOAT32 ||
             ((type == DMLCERT_DATA_TYPE_INT8 || type == DMLCERT_DATA_TYPE_UINT8) &&
              (function == DMLCERT_REDUCE_FUNCTION_MAX || function == DMLCERT_REDUCE_FUNCTION_MIN));
    default: return false;
  }
}

uint32_t status_of(dnnl_status_t status) {
  switch (status) {
    case dnnl_invalid_arguments: return DMLCERT_STATUS_INVALID_ARGUMENT;
    case dnnl_unimplemented: return DMLCERT_STATUS_UNSUPPORTED;
    default: return DMLCERT_STATUS_ERROR;
  }
}

RunResult run(const Operator& op) {
  try {
    return op.type == DMLCERT_OPERATOR_REDUCE ? reduce(op) : slice(op);
  } catch (const dnnl::error& e) {
    return {status_of(e.status), e.what()};
  } catch (const std::bad_alloc&) {
    return {DMLCERT_STATUS_ERROR, "out of memory"};
  } catch (const std::exception& e) {
    return {DMLCERT_STATUS_ERROR, e.what()};
  }
}

std::string library_name() {
  const dnnl_version_t* v = dnnl_version();
  return "oneDNN " + std::to_string(v->major) + "." + std::to_string(v->minor) + "." +
         std::to_string(v->patch) + " (dmlcert adapter)";
}

}  // namespace

const dmlcert_backend_v1* backend_table(uint32_t abi_version) {
  static const Library library{library_name(), DMLCERT_FEATURE_LEVEL_6_4, implements, run};
  return export_table(abi_version, &library);
}

}  // namespace dmlcert_adapter::onednn_adapter

// A toy vendor backend: SLICE only, written against the C ABI, using dmlcert's validator to
// reject invalid descriptors.
#include <dmlcert_backend_abi.h>

#include <cstdio>
#include <cstring>
#include <string>

#include "dmlcert/tensor.h"
#include "dmlcert/validate.h"

namespace {

const uint32_t kTypes[] = {DMLCERT_DATA_TYPE_FLOAT64, DMLCERT_DATA_TYPE_FLOAT32, DMLCERT_DATA_TYPE_FLOAT16,
                           DMLCERT_DATA_TYPE_INT64,   DMLCERT_DATA_TYPE_INT32,   DMLCERT_DATA_TYPE_INT16,
                           DMLCERT_DATA_TYPE_INT8,    DMLCERT_DATA_TYPE_UINT64,  DMLCERT_DATA_TYPE_UINT32,
                           DMLCERT_DATA_TYPE_UINT16,  DMLCERT_DATA_TYPE_UINT8};  // dmlcert::DataType order

dmlcert::TensorDesc tensor(const dmlcert_tensor_desc& t) {
  dmlcert::TensorDesc out;
  for (int i = 0; i < dmlcert::kDataTypeCount; ++i)
    if (kTypes[i] == t.data_type) out.type = dmlcert::kAllDataTypes[i];
  out.sizes.assign(t.sizes, t.sizes + t.dimension_count);
  if (t.strides) out.strides = std::vector<uint32_t>(t.strides, t.strides + t.dimension_count);
  out.total_bytes = t.total_tensor_size_in_bytes;
  return out;
}

uint32_t max_level(void*) {
  return DMLCERT_FEATURE_LEVEL_1_0;
}

int implements(void*, uint32_t op, uint32_t, uint32_t) {
  return op == DMLCERT_OPERATOR_SLICE;
}

uint32_t execute(void*, const dmlcert_operator_desc* op, uint32_t, const dmlcert_input_binding* inputs,
                 uint32_t, const dmlcert_output_binding* outputs, uint32_t, char* message, size_t capacity) {
  if (op->type != DMLCERT_OPERATOR_SLICE) return DMLCERT_STATUS_UNSUPPORTED;
  const auto& d = *static_cast<const dmlcert_slice_operator_desc*>(op->desc);
  dmlcert::SliceDesc s{tensor(*d.input_tensor),
                       tensor(*d.output_tensor),
                       {d.offsets, d.offsets + d.dimension_count},
                       {d.sizes, d.sizes + d.dimension_count},
                       {d.strides, d.strides + d.dimension_count}};
  dmlcert::Validation v = dmlcert::validate(s, dmlcert::FeatureLevel::L1_0);
  if (!v.invalid.empty()) {
    if (message && capacity) std::snprintf(message, capacity, "%s", v.invalid.front().rule.c_str());
    return DMLCERT_STATUS_INVALID_ARGUMENT;
  }
  const size_t esize = dmlcert::element_size(s.input.type);
  const auto in_strides = dmlcert::effective_strides(s.input),
             out_strides = dmlcert::effective_strides(s.output);
  const auto* in = static_cast<const std::byte*>(inputs[0].data);
  auto* out = static_cast<std::byte*>(outputs[0].data);
  dmlcert::for_each_coord(s.output.sizes, [&](const dmlcert::Coord& c) {
    dmlcert::Coord from(c.size());
    for (size_t i = 0; i < c.size(); ++i) from[i] = s.offsets[i] + s.strides[i] * c[i];
    std::memcpy(out + dmlcert::element_offset(c, out_strides) * esize,
                in + dmlcert::element_offset(from, in_strides) * esize, esize);
  });
  return DMLCERT_STATUS_OK;
}

const dmlcert_backend_v1 kTable = {DMLCERT_ABI_VERSION,
                                   sizeof(dmlcert_backend_v1),
                                   "toy backend 0.1",
                                   nullptr,
                                   max_level,
                                   implements,
                                   execute,
                                   nullptr};

}  // namespace

extern "C" DMLCERT_PLUGIN_EXPORT const dmlcert_backend_v1* dmlcert_get_backend(uint32_t abi_version) {
  return abi_version == DMLCERT_ABI_VERSION ? &kTable : nullptr;
}

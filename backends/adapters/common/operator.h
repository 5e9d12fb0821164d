// What both adapters see of a call: the C ABI descriptor decoded into 64-bit sizes and strides,
// with each tensor's binding, after the adapters' own descriptor checks (descriptor_checks.h).
// Written against dmlcert_backend_abi.h alone, as a vendor's front end would be.
#pragma once

#include <dmlcert_backend_abi.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace dmlcert_adapter {

// Bytes per element of a DMLCERT_DATA_TYPE_* value; 0 for an unknown value.
size_t element_size(uint32_t data_type);
// "FLOAT32", "UINT8", ...; "type <n>" for an unknown value.
std::string type_name(uint32_t data_type);
bool is_float_type(uint32_t data_type);
bool is_signed_type(uint32_t data_type);

struct Tensor {
  uint32_t type = DMLCERT_DATA_TYPE_UNKNOWN;
  std::vector<int64_t> sizes;
  std::vector<int64_t> strides;  // in elements; the packed row-major ones when the descriptor has none
  uint64_t total_bytes = 0;
  std::byte* data = nullptr;  // the binding (read-only for inputs)
  uint64_t binding_bytes = 0;

  size_t rank() const { return sizes.size(); }
  int64_t element_count() const;
};

// One decoded operator call. Only the members of its operator type are meaningful.
struct Operator {
  uint32_t type = 0;
  uint32_t level = 0;
  Tensor input, indices, updates, output;
  // SLICE: Offsets, Sizes, Strides. SLICE1: InputWindowOffsets, InputWindowSizes,
  // InputWindowStrides (signed).
  std::vector<int64_t> offsets, sizes, strides;
  uint32_t input_dimension_count = 0, indices_dimension_count = 0;  // SCATTER_ND
  uint32_t function = 0;                                            // REDUCE
  std::vector<int64_t> axes;                                        // REDUCE
  uint32_t axis = 0;                                                // GATHER_ELEMENTS
};

}  // namespace dmlcert_adapter

// The data-type lists the support tables name (docs/support.md). Private to the operator
// declaration files.
#pragma once

#include <array>

#include "dmlcert/dtype.h"

namespace dmlcert::types {

using enum DataType;
inline constexpr std::array kF32F16 = {FLOAT32, FLOAT16};
// "8 types": everything but the 64-bit types.
inline constexpr std::array k8Types = {FLOAT32, FLOAT16, INT32, INT16, INT8, UINT32, UINT16, UINT8};
inline constexpr std::array kAll11 = {FLOAT64, FLOAT32, FLOAT16, INT64,  INT32, INT16,
                                      INT8,    UINT64,  UINT32,  UINT16, UINT8};
inline constexpr std::array kAllButF64 = {FLOAT32, FLOAT16, INT64,  INT32,  INT16,
                                          INT8,    UINT64,  UINT32, UINT16, UINT8};
inline constexpr std::array kIndexTypes = {INT64, INT32, UINT64, UINT32};
inline constexpr std::array kU32 = {UINT32};

}  // namespace dmlcert::types

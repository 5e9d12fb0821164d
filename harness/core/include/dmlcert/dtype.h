// Data types of docs/semantics.md ("Types and feature levels") and the one place that maps a DataType
// to its C++ element type.
#pragma once

#include <Eigen/Core>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string_view>
#include <type_traits>

namespace dmlcert {

// FLOAT16 is IEEE binary16; Eigen::half does the conversions with round-to-nearest-even.
using half = Eigen::half;

enum class DataType : uint8_t {
  FLOAT64,
  FLOAT32,
  FLOAT16,
  INT64,
  INT32,
  INT16,
  INT8,
  UINT64,
  UINT32,
  UINT16,
  UINT8,
};
inline constexpr int kDataTypeCount = 11;
inline constexpr DataType kAllDataTypes[kDataTypeCount] = {
    DataType::FLOAT64, DataType::FLOAT32, DataType::FLOAT16, DataType::INT64,
    DataType::INT32,   DataType::INT16,   DataType::INT8,    DataType::UINT64,
    DataType::UINT32,  DataType::UINT16,  DataType::UINT8};

std::string_view name(DataType t);
std::optional<DataType> parse_data_type(std::string_view s);
std::size_t element_size(DataType t);
bool is_float(DataType t);
bool is_signed_integer(DataType t);
bool is_integer(DataType t);

template <class T>
struct type_tag {
  using type = T;
};

// Calls f(type_tag<T>{}) with the element type of t. Every per-type switch in the project goes
// through here.
template <class F>
decltype(auto) dispatch(DataType t, F&& f) {
  switch (t) {
    case DataType::FLOAT64: return f(type_tag<double>{});
    case DataType::FLOAT32: return f(type_tag<float>{});
    case DataType::FLOAT16: return f(type_tag<half>{});
    case DataType::INT64: return f(type_tag<int64_t>{});
    case DataType::INT32: return f(type_tag<int32_t>{});
    case DataType::INT16: return f(type_tag<int16_t>{});
    case DataType::INT8: return f(type_tag<int8_t>{});
    case DataType::UINT64: return f(type_tag<uint64_t>{});
    case DataType::UINT32: return f(type_tag<uint32_t>{});
    case DataType::UINT16: return f(type_tag<uint16_t>{});
    case DataType::UINT8: return f(type_tag<uint8_t>{});
  }
  return f(type_tag<uint8_t>{});  // unreachable for a valid enum value
}

template <class T>
inline constexpr bool is_float_v = std::is_floating_point_v<T> || std::is_same_v<T, half>;

// Unaligned element access: buffers come from users and plugins, so never dereference a cast.
template <class T>
inline T load(const std::byte* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}
template <class T>
inline void store(std::byte* p, T v) {
  std::memcpy(p, &v, sizeof(T));
}

// Element value as double (exact for every type but 64-bit integers beyond 2^53).
double to_double(DataType t, const std::byte* p);
// Rounds a double to binary16 once, to nearest even (converting through float would round twice).
half round_to_half(double v);
// Writes v rounded once to the element type (integers: round to nearest, saturating).
void from_double(DataType t, double v, std::byte* p);

}  // namespace dmlcert

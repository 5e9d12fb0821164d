#include "dmlcert/dtype.h"

#include <array>

namespace dmlcert {
namespace {
constexpr std::array<std::string_view, kDataTypeCount> kNames = {"FLOAT64", "FLOAT32", "FLOAT16", "INT64",
                                                                 "INT32",   "INT16",   "INT8",    "UINT64",
                                                                 "UINT32",  "UINT16",  "UINT8"};
}

std::string_view name(DataType t) {
  return kNames.at(static_cast<size_t>(t));
}

std::optional<DataType> parse_data_type(std::string_view s) {
  for (DataType t : kAllDataTypes)
    if (name(t) == s) return t;
  return std::nullopt;
}

std::size_t element_size(DataType t) {
  return dispatch(t, [](auto tag) { return sizeof(typename decltype(tag)::type); });
}

bool is_float(DataType t) {
  return t == DataType::FLOAT64 || t == DataType::FLOAT32 || t == DataType::FLOAT16;
}

bool is_signed_integer(DataType t) {
  return t == DataType::INT64 || t == DataType::INT32 || t == DataType::INT16 || t == DataType::INT8;
}

bool is_integer(DataType t) {
  return !is_float(t);
}

}  // namespace dmlcert

#include <cmath>
#include <limits>

namespace dmlcert {

double to_double(DataType t, const std::byte* p) {
  return dispatch(t, [p](auto tag) {
    using T = typename decltype(tag)::type;
    return static_cast<double>(load<T>(p));
  });
}

half round_to_half(double v) {
  if (std::isnan(v) || std::isinf(v)) return half(static_cast<float>(v));
  const double a = std::fabs(v);
  // binary16: 10 fraction bits, exponent range [-14, 15]; values below 2^-14 are subnormal with a
  // fixed quantum of 2^-24. Round to a multiple of the quantum at v's binade in double, where the
  // rounding is exact, then the result converts to float and half exactly.
  int e = a == 0 ? -24 : std::ilogb(a);
  if (e < -14) e = -14;
  const double quantum = std::ldexp(1.0, e - 10);
  const double r = std::nearbyint(a / quantum) * quantum;  // default rounding mode: nearest even
  if (r >= 65520.0) return half(std::copysign(std::numeric_limits<float>::infinity(), v));
  return half(static_cast<float>(std::copysign(r, v)));
}

void from_double(DataType t, double v, std::byte* p) {
  dispatch(t, [v, p](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, half>) {
      store<T>(p, round_to_half(v));
    } else if constexpr (std::is_floating_point_v<T>) {
      store<T>(p, static_cast<T>(v));
    } else {
      const double r = std::nearbyint(v);
      T out;
      if (std::isnan(r))
        out = 0;
      else if (r <= static_cast<double>(std::numeric_limits<T>::lowest()))
        out = std::numeric_limits<T>::lowest();
      else if (r >= static_cast<double>(std::numeric_limits<T>::max()))
        out = std::numeric_limits<T>::max();
      else
        out = static_cast<T>(r);
      store<T>(p, out);
    }
  });
}

}  // namespace dmlcert

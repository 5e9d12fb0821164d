#include "dmlcert/indices.h"

namespace dmlcert {

bool negative_indices_allowed(DataType index_type, FeatureLevel level) {
  return level >= FeatureLevel::L3_0 && is_signed_integer(index_type);
}

std::optional<__int128> integer_value(DataType type, const std::byte* p) {
  return dispatch(type, [&](auto tag) -> std::optional<__int128> {
    using T = typename decltype(tag)::type;
    if constexpr (is_float_v<T>)
      return std::nullopt;
    else
      return static_cast<__int128>(load<T>(p));
  });
}

std::optional<uint32_t> resolve_index(__int128 v, uint32_t d, bool negative_allowed) {
  if (v >= 0 && v < d) return static_cast<uint32_t>(v);
  if (negative_allowed && v < 0 && v >= -static_cast<__int128>(d)) return static_cast<uint32_t>(d + v);
  return std::nullopt;
}

std::optional<uint32_t> resolve_index_as(__int128 v, uint32_t d, bool negative_allowed, Behaviour reading) {
  if (auto in_range = resolve_index(v, d, negative_allowed); in_range || d == 0) return in_range;
  if (reading == Behaviour::IndexClamped) return v < 0 ? 0u : d - 1;
  if (reading == Behaviour::IndexWrapped) return static_cast<uint32_t>(((v % d) + d) % d);
  return std::nullopt;
}

std::string index_range_text(uint32_t d, bool negative_allowed) {
  const std::string n = std::to_string(d);
  return negative_allowed ? "[-" + n + ", " + n + ")" : "[0, " + n + ")";
}

std::string to_string(__int128 v) {
  if (v == 0) return "0";
  const bool negative = v < 0;
  unsigned __int128 m = negative ? -static_cast<unsigned __int128>(v) : static_cast<unsigned __int128>(v);
  std::string s;
  for (; m != 0; m /= 10) s.insert(s.begin(), static_cast<char>('0' + static_cast<int>(m % 10)));
  return negative ? "-" + s : s;
}

}  // namespace dmlcert

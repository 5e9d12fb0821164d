// Private helpers shared by the case-file reader and writer (not a public header).
#pragma once

#include <cmath>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace dmlcert::case_json {

// Thrown inside the reader, caught at its boundary and turned into a CaseError.
struct Malformed {
  std::string path;
  std::string message;
};

// A JSON value as an error message shows it after "got": scalars verbatim (shortened), containers
// by kind.
inline std::string describe(const nlohmann::json& v) {
  switch (v.type()) {
    case nlohmann::json::value_t::object: return "an object";
    case nlohmann::json::value_t::array: return "an array";
    case nlohmann::json::value_t::null: return "null";
    default: break;
  }
  std::string s = v.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  if (s.size() > 60) s = s.substr(0, 57) + "...";
  return s;
}

// The exact integral value of a JSON number: 64-bit integers as parsed (never through double),
// and integral floats ("2.0") only where a double is still exact (|x| <= 2^53).
inline std::optional<__int128> exact_integer(const nlohmann::json& v) {
  if (v.is_number_unsigned()) return static_cast<__int128>(v.get<uint64_t>());
  if (v.is_number_integer()) return static_cast<__int128>(v.get<int64_t>());
  if (v.is_number_float()) {
    const double d = v.get<double>();
    if (std::isfinite(d) && d == std::trunc(d) && std::fabs(d) <= 9007199254740992.0)
      return static_cast<__int128>(static_cast<int64_t>(d));
  }
  return std::nullopt;
}

}  // namespace dmlcert::case_json

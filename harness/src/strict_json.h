// A JSON reader stricter than JSON itself, for files other tools and people write
// (docs/case-format.md, "Malformed files"): duplicate keys, a NUL byte, anything after the value
// and numbers that do not fit are errors that name their JSON path; integral float literals
// ("3.0", "1e3", "9007199254740993.0") become exact integers, computed from their text, and
// "-0" keeps its sign. Private to the case reader.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <variant>

namespace dmlcert::strict_json {

struct Error {
  std::string path;  // "tensors.input.data[3]", or "(root)"
  std::string message;
};

std::variant<nlohmann::json, Error> parse(std::string_view text, size_t max_depth);

}  // namespace dmlcert::strict_json

// The one codec for element values (docs/case-format.md, "Element values"): how an element is written in
// case files, in `dmlcert run` output, in messages and in reports, and how it is read back.
//   integers   exactly, as JSON integers
//   floats     the shortest decimal that reads back (rounded once to the type) to the same bits;
//              integral values as integers ("3"); negative zero as -0.0
//   specials   "inf", "-inf", "nan" for the type's default quiet NaN, and "0x7e01" (lower-case
//              hex of the element's bits) for every other NaN, so payloads and signs survive
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "dmlcert/dtype.h"
#include "dmlcert/tensor.h"

namespace dmlcert {

nlohmann::ordered_json element_json(DataType t, const std::byte* p);
// The same spelling as plain text, for messages: 1.5, -0.0, nan, 0x7fc00001, 18446744073709551615.
std::string element_text(DataType t, const std::byte* p);
// Logical data as a JSON array, or as "[1, 2, nan]" text (at most `max_elements`, then "...").
nlohmann::ordered_json data_json(DataType t, const Bytes& logical);
// The same as compact JSON text, appended to `out`, byte for byte what dump() makes of the
// values above, without a JSON value per element (case files are written for every case a fuzz
// run executes in-process).
void append_element_json(std::string& out, DataType t, const std::byte* p);
void append_data_json(std::string& out, DataType t, const Bytes& logical);
std::string data_text(DataType t, const Bytes& logical, size_t max_elements = 64);

// Reads one element of type t from its JSON form into *out. Returns what was expected instead
// ("an INT8 integer (-128..127)", ...) when the value does not denote exactly one element of t.
std::optional<std::string> decode_element(DataType t, const nlohmann::json& v, std::byte* out);

}  // namespace dmlcert

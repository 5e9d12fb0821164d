// Case files (docs/case-format.md): malformed files give one precise error, well-formed ones load as
// written, and to_json() round-trips every case bit for bit.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "dmlcert/case.h"
#include "dmlcert/validate.h"
#include "linear_time.h"

namespace dmlcert {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

// ---- bases the table patches -----------------------------------------------------------------

const char* const kSlice1 = R"({
  "format": 1, "name": "slice1/base", "op": "SLICE1", "feature_level": "5_0",
  "params": {"input_window_offsets": [0, 0, 0, 1], "input_window_sizes": [1, 1, 4, 3],
             "input_window_strides": [1, 1, -2, 2]},
  "tensors": {
    "input": {"type": "FLOAT32", "sizes": [1, 1, 4, 4],
              "data": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16]},
    "output": {"type": "FLOAT32", "sizes": [1, 1, 2, 2]}},
  "expect": "valid",
  "expected_output": [14, 16, 6, 8]
})";

const char* const kReduce = R"({
  "name": "reduce/base", "op": "REDUCE",
  "params": {"function": "SUM", "axes": [0]},
  "tensors": {"input": {"type": "FLOAT32", "sizes": [3, 3], "data": [1, 2, 3, 3, 0, 4, 2, 4, 2]},
              "output": {"type": "FLOAT32", "sizes": [1, 3]}},
  "expect": "valid"
})";

const char* const kGather = R"({
  "name": "gather_elements/base", "op": "GATHER_ELEMENTS", "params": {"axis": 0},
  "tensors": {"input": {"type": "FLOAT32", "sizes": [3, 3], "data": [1, 2, 3, 4, 5, 6, 7, 8, 9]},
              "indices": {"type": "UINT32", "sizes": [2, 3], "data": [1, 2, 0, 2, 0, 0]},
              "output": {"type": "FLOAT32", "sizes": [2, 3]}},
  "expect": "valid"
})";

// Either raw text, or a base with an RFC 7386 merge patch applied (null deletes a key).
struct FileText {
  const char* base = nullptr;
  const char* patch = nullptr;
  std::string raw;
  std::string text() const {
    if (!base) return raw;
    json j = json::parse(base);
    if (patch) j.merge_patch(json::parse(patch));
    return j.dump();
  }
};
FileText raw(std::string s) {
  return FileText{nullptr, nullptr, std::move(s)};
}
FileText slice1(const char* patch) {
  return FileText{kSlice1, patch, {}};
}
FileText reduce(const char* patch) {
  return FileText{kReduce, patch, {}};
}
FileText gather(const char* patch) {
  return FileText{kGather, patch, {}};
}

// The base's own text with one piece replaced: for what a JSON round trip would lose (a duplicate
// key, the token -0, a float literal's exact digits, text after the value).
FileText edited(const char* base, const std::string& from, const std::string& to) {
  std::string text = base;
  const size_t at = text.find(from);
  if (at == std::string::npos) throw std::logic_error("no '" + from + "' in the base");
  return raw(text.replace(at, from.size(), to));
}
const std::string kSlice1Data = "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16]";
// kSlice1 with its input of another type and these data; the expected output is left out.
FileText slice1_typed(const std::string& type, const std::string& data) {
  std::string text = edited(kSlice1, kSlice1Data, data).raw;
  for (size_t at; (at = text.find("FLOAT32")) != std::string::npos;) text.replace(at, 7, type);
  text.replace(text.find(",\n  \"expected_output\": [14, 16, 6, 8]"),
               std::string(",\n  \"expected_output\": [14, 16, 6, 8]").size(), "");
  return raw(text);
}

std::string sanitize(std::string s) {
  for (char& c : s)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return s;
}

// ---- malformed files -------------------------------------------------------------------------

struct MalformedFile {
  std::string name;
  FileText file;
  std::string path;     // substring of CaseError::path
  std::string message;  // substring of CaseError::message
};

const MalformedFile kMalformed[] = {
    {"truncated", raw(std::string(kSlice1).substr(0, 120)), "(root)", "invalid JSON at byte 121"},
    {"empty_file", raw(""), "(root)", "empty; expected a JSON object"},
    {"whitespace_only", raw(" \n\t "), "(root)", "empty"},
    {"binary_garbage", raw(std::string("\x00\xff\xfe{\x01", 5)), "(root)", "a NUL byte at byte 1"},
    {"nul_after_the_value", raw(std::string("{}\0garbage", 10)), "(root)", "a NUL byte at byte 3"},
    {"duplicate_op", raw("{\"op\": \"REDUCE\", " + std::string(kSlice1).substr(1)), "op",
     "duplicate key \"op\""},
    {"invalid_utf8_in_string", raw("{\"name\": \"\xc3\x28\"}"), "(root)", "invalid JSON"},
    {"deeply_nested", raw(std::string(100000, '[')), "(root)", "nested deeper than 64 levels"},
    // The JSON grammar, strictly (RFC 8259), with the byte where the text stops being JSON.
    {"lone_low_surrogate", raw(R"({"name": "\udc00"})"), "(root)",
     "invalid JSON at byte 11: a \\u escape of a lone low surrogate"},
    {"high_surrogate_alone", raw(R"({"name": "\ud800x"})"), "(root)", "without its low surrogate"},
    {"invalid_escape", raw(R"({"name": "\q"})"), "(root)", "invalid JSON at byte 11: an invalid escape"},
    {"short_unicode_escape", raw(R"({"name": "\u12"})"), "(root)", "four hex digits"},
    {"raw_control_character", raw("{\"name\": \"a\tb\"}"), "(root)", "a control character in a string"},
    {"overlong_utf8", raw("{\"name\": \"\xc0\xaf\"}"), "(root)", "invalid UTF-8 in a string"},
    {"utf8_surrogate", raw("{\"name\": \"\xed\xa0\x80\"}"), "(root)", "invalid UTF-8 in a string"},
    {"unterminated_string", raw(R"({"name": "abc)"), "(root)", "without its closing quote"},
    {"leading_zero", raw(R"({"format": 01})"), "(root)", "invalid JSON at byte 13: expected ',' or '}'"},
    {"minus_alone", raw(R"({"format": -})"), "(root)", "a number needs a digit here"},
    {"point_without_digits", raw(R"({"format": 1.})"), "(root)", "a digit after its decimal point"},
    {"exponent_without_digits", raw(R"({"format": 1e+})"), "(root)", "a digit in its exponent"},
    {"single_quotes", raw("{'op': 'SLICE1'}"), "(root)", "invalid JSON at byte 2: expected a string key"},
    {"missing_colon", raw(R"({"op" "SLICE1"})"), "(root)", "expected ':' after the key"},
    {"trailing_comma", raw(R"({"op": "SLICE1",})"), "(root)", "expected a string key"},
    {"bare_word", raw(R"({"op": SLICE1})"), "(root)", "invalid JSON at byte 8: expected a value"},
    {"duplicate_key_spelled_with_an_escape", raw(R"({"op": "SLICE1", "\u006fp": "REDUCE"})"), "op",
     "duplicate key \"op\""},
    // An escaped key is held while deeper containers are opened (the parser's stack grows); a
    // later duplicate of it is still seen. Found by fuzz/case_file_fuzzer.cpp.
    {"duplicate_escaped_key_after_nested_containers",
     raw(R"({"\u006fp": {"a": {"b": {"c": {"d": {"e": []}}}}}, "op": "SLICE1"})"), "op",
     "duplicate key \"op\""},
    {"duplicate_among_many_keys", raw([] {
       std::string text = "{";
       for (int i = 0; i < 100; ++i) text += "\"k" + std::to_string(i) + "\": 0, ";
       return text + "\"k57\": 1}";
     }()),
     "k57", "duplicate key \"k57\""},
    {"out_of_range_in_an_ignored_field", raw(R"({"comment": [1, 2, 1e999]})"), "comment[2]",
     "the number 1e999 is out of range"},
    // A wrong count is named before a wrong element, however long the array.
    {"data_too_long_with_a_bad_element",
     slice1(
         R"({"tensors": {"input": {"data": [1, 2, "x", 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17]}}})"),
     "tensors.input.data", "expected 16 elements for sizes [1, 1, 4, 4], got 17"},
    {"number_overflow", raw(R"({"format": 1e999})"), "format", "the number 1e999 is out of range"},
    // Strict files (docs/case-format.md, "Malformed files"): what a lenient reader lets through.
    {"duplicate_nested_key",
     edited(kSlice1, R"("input": {"type": "FLOAT32",)", R"("input": {"type": "FLOAT32", "type": "INT32",)"),
     "tensors.input.type", "duplicate key \"type\""},
    {"duplicate_key_in_params",
     edited(kSlice1, R"("input_window_sizes": [1, 1, 4, 3],)",
            R"("input_window_sizes": [1, 1, 4, 3], "input_window_sizes": [1, 1, 4, 3],)"),
     "params.input_window_sizes", "duplicate key \"input_window_sizes\""},
    {"garbage_after_the_value", raw(std::string(kSlice1) + " garbage"), "(root)", "expected end of input"},
    {"second_value_after_the_value", raw(std::string(kSlice1) + std::string(kSlice1)), "(root)",
     "expected end of input"},
    {"nul_after_the_value_and_whitespace", raw(std::string(kSlice1) + std::string("\n\0\n", 3)), "(root)",
     "a NUL byte"},
    // Exact numbers: an overflow names its path; an integer tensor takes exact integers in range.
    {"float32_data_1e400", edited(kSlice1, "[1, 2, 3, 4,", "[1, 2, 3, 1e400,"), "tensors.input.data[3]",
     "the number 1e400 is out of range"},
    {"expected_output_1e400", edited(kSlice1, "[14, 16, 6, 8]", "[14, -1e400, 6, 8]"), "expected_output[1]",
     "out of range"},
    {"size_1e400", edited(kSlice1, "[1, 1, 4, 4]", "[1, 1, 1e400, 4]"), "tensors.input.sizes[2]",
     "out of range"},
    {"int64_data_1e400", slice1_typed("INT64", "[1e400, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16]"),
     "tensors.input.data[0]", "out of range"},
    {"int64_float_literal_past_the_max",
     slice1_typed("INT64", "[1, 9223372036854775808.0, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16]"),
     "tensors.input.data[1]", "INT64"},
    {"int64_1e20", slice1_typed("INT64", "[1, 2, 1e20, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16]"),
     "tensors.input.data[2]", "INT64"},
    {"int64_just_past_2_53_with_a_fraction",
     slice1_typed("INT64", "[9007199254740993.5, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16]"),
     "tensors.input.data[0]", "INT64"},
    {"int32_exponent_fraction",
     slice1_typed("INT32", "[1, 2, 3, 4, 25e-1, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16]"),
     "tensors.input.data[4]", "INT32"},
    {"uint8_float_literal_past_the_max",
     slice1_typed("UINT8", "[1, 2, 3, 4, 5, 2.56e2, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16]"),
     "tensors.input.data[5]", "UINT8"},
    {"uint64_negative_float_literal",
     slice1_typed("UINT64", "[1, 2, 3, 4, 5, 6, -1.0, 8, 9, 10, 11, 12, 13, 14, 15, 16]"),
     "tensors.input.data[6]", "UINT64"},
    {"root_not_object", raw("[1, 2]"), "(root)", "expected a JSON object (one case), got an array"},
    {"format_2", slice1(R"({"format": 2})"), "format", "expected 1 (the only format version), got 2"},
    {"format_string", slice1(R"({"format": "1"})"), "format", "got \"1\""},
    {"name_not_string", slice1(R"({"name": 7})"), "name", "expected a string, got 7"},
    {"missing_op", slice1(R"({"op": null})"), "op", "missing required field"},
    {"unknown_op", slice1(R"({"op": "CONV"})"), "op", "expected one of \"SLICE\", \"SLICE1\""},
    {"op_not_string", slice1(R"({"op": 5})"), "op", "expected a string, got 5"},
    {"unknown_level", slice1(R"({"feature_level": "7_0"})"), "feature_level", "got \"7_0\""},
    {"unknown_expect", slice1(R"({"expect": "maybe"})"), "expect",
     "expected one of \"valid\", \"invalid\", \"unspecified\", got \"maybe\""},
    {"missing_expect", slice1(R"({"expect": null})"), "expect", "missing required field"},
    {"missing_params", slice1(R"({"params": null})"), "params", "missing required field"},
    {"missing_tensors", slice1(R"({"tensors": null})"), "tensors", "missing required field"},
    {"size_negative", slice1(R"({"tensors": {"input": {"sizes": [1, 1, -1, 4]}}})"), "tensors.input.sizes[2]",
     "expected an unsigned 32-bit integer, got -1"},
    {"size_too_big", slice1(R"({"tensors": {"input": {"sizes": [1, 1, 4294967296, 4]}}})"),
     "tensors.input.sizes[2]", "got 4294967296"},
    {"size_fraction", slice1(R"({"tensors": {"output": {"sizes": [1, 1, 2.5, 2]}}})"),
     "tensors.output.sizes[2]", "got 2.5"},
    {"size_huge_integer", slice1(R"({"tensors": {"output": {"sizes": [1, 99999999999999999999999, 2, 2]}}})"),
     "tensors.output.sizes[1]", "expected an unsigned 32-bit integer"},
    {"sizes_not_array", slice1(R"({"tensors": {"output": {"sizes": 4}}})"), "tensors.output.sizes",
     "expected an array of unsigned 32-bit integers, got 4"},
    {"element_count_overflow",
     slice1(R"({"tensors": {"output": {"sizes": [4294967295, 4294967295, 4294967295, 4]}}})"),
     "tensors.output.sizes", "the element count overflows 64 bits"},
    {"unknown_type", slice1(R"({"tensors": {"input": {"type": "FLOAT8"}}})"), "tensors.input.type",
     "expected one of \"FLOAT64\""},
    {"missing_type", slice1(R"({"tensors": {"output": {"type": null}}})"), "tensors.output.type",
     "missing required field"},
    {"strides_negative", slice1(R"({"tensors": {"input": {"strides": [16, 16, 4, -1]}}})"),
     "tensors.input.strides[3]", "got -1"},
    {"total_bytes_negative", slice1(R"({"tensors": {"input": {"total_bytes": -4}}})"),
     "tensors.input.total_bytes", "expected an unsigned 64-bit integer, got -4"},
    {"unknown_tensor_field", slice1(R"({"tensors": {"input": {"stride": [16, 16, 4, 1]}}})"),
     "tensors.input.stride", "unknown field; expected one of \"type\""},
    {"role_the_op_lacks", slice1(R"({"tensors": {"indices": {"type": "UINT32", "sizes": [1]}}})"),
     "tensors.indices", "unknown field; expected one of \"input\", \"output\""},
    {"missing_output", slice1(R"({"tensors": {"output": null}})"), "tensors.output",
     "missing required field"},
    {"missing_input_data", slice1(R"({"tensors": {"input": {"data": null}}})"), "tensors.input.data",
     "missing required field"},
    {"output_with_data", slice1(R"({"tensors": {"output": {"data": [1, 2, 3, 4]}}})"), "tensors.output.data",
     "output tensors take no data"},
    {"data_too_short", slice1(R"({"tensors": {"input": {"data": [1, 2, 3]}}})"), "tensors.input.data",
     "expected 16 elements for sizes [1, 1, 4, 4], got 3"},
    {"data_not_array", slice1(R"({"tensors": {"input": {"data": {"a": 1}}}})"), "tensors.input.data",
     "expected an array of FLOAT32 values, got an object"},
    {"uint8_300", slice1(R"({"expected_output": null, "tensors": {"input": {"type": "UINT8",
               "data": [1, 2, 3, 300, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16]}, "output": {"type": "UINT8"}}})"),
     "tensors.input.data[3]", "expected a UINT8 integer (0..255), got 300"},
    {"int32_fraction", slice1(R"({"expected_output": null, "tensors": {"input": {"type": "INT32",
               "data": [1.5, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16]}, "output": {"type": "INT32"}}})"),
     "tensors.input.data[0]", "expected an INT32 integer (-2147483648..2147483647), got 1.5"},
    {"uint64_negative", slice1(R"({"expected_output": null, "tensors": {"input": {"type": "UINT64",
               "data": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, -1]}, "output": {"type": "UINT64"}}})"),
     "tensors.input.data[15]", "expected a UINT64 integer (0..18446744073709551615), got -1"},
    {"uint64_beyond_max", slice1(R"({"expected_output": null, "tensors": {"input": {"type": "UINT64",
               "data": [18446744073709551616, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16]},
               "output": {"type": "UINT64"}}})"),
     "tensors.input.data[0]", "expected a UINT64 integer"},
    {"int64_below_min", slice1(R"({"expected_output": null, "tensors": {"input": {"type": "INT64",
               "data": [-9223372036854775809, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16]},
               "output": {"type": "INT64"}}})"),
     "tensors.input.data[0]", "expected an INT64 integer"},
    {"nan_in_integer_tensor", slice1(R"({"expected_output": null, "tensors": {"input": {"type": "INT16",
               "data": [1, "nan", 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16]}, "output": {"type": "INT16"}}})"),
     "tensors.input.data[1]", "got \"nan\""},
    {"float16_overflow", slice1(R"({"expected_output": null, "tensors": {"input": {"type": "FLOAT16",
               "data": [1, 2, 70000, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16]}, "output": {"type": "FLOAT16"}}})"),
     "tensors.input.data[2]", "expected a finite FLOAT16 value (this one rounds to infinity"},
    {"float32_overflow",
     slice1(
         R"({"tensors": {"input": {"data": [1, 2, 3, 1e300, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16]}}})"),
     "tensors.input.data[3]", "rounds to infinity"},
    {"float_word", slice1(R"({"tensors": {"input": {"data": [1, 2, 3, 4, 5, "infinity", 7, 8, 9, 10, 11, 12,
                                                                 13, 14, 15, 16]}}})"),
     "tensors.input.data[5]",
     "expected a FLOAT32 number, \"nan\", \"inf\", \"-inf\" or a \"0x...\" bit pattern"},
    {"float_null",
     slice1(R"({"tensors": {"input": {"data": [null, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
                                                                 16]}}})"),
     "tensors.input.data[0]", "got null"},
    {"hex_not_hex",
     slice1(R"({"tensors": {"input": {"data": [1, 2, 3, 4, 5, 6, 7, "0x7fzz0000", 9, 10, 11, 12, 13,
                                                                  14, 15, 16]}}})"),
     "tensors.input.data[7]", "expected a FLOAT32 bit pattern of at most 8 hex digits"},
    {"hex_too_long",
     slice1(R"({"tensors": {"input": {"data": [1, 2, 3, 4, 5, 6, 7, "0x7fc000001", 9, 10, 11, 12,
                                                                   13, 14, 15, 16]}}})"),
     "tensors.input.data[7]", "at most 8 hex digits, got \"0x7fc000001\""},
    {"zero_stride_elements_differ", slice1(R"({"tensors": {"input": {"strides": [16, 16, 0, 1]}}})"),
     "tensors.input.data[4]", "elements [0, 0, 0, 0] and [0, 0, 1, 0] share memory (element offset 0)"},
    {"missing_window_strides", slice1(R"({"params": {"input_window_strides": null}})"),
     "params.input_window_strides", "missing required field"},
    {"window_stride_beyond_int32", slice1(R"({"params": {"input_window_strides": [1, 1, 2147483648, 2]}})"),
     "params.input_window_strides[2]", "expected a signed 32-bit integer, got 2147483648"},
    {"window_offset_negative", slice1(R"({"params": {"input_window_offsets": [0, 0, -1, 1]}})"),
     "params.input_window_offsets[2]", "expected an unsigned 32-bit integer, got -1"},
    {"unknown_param", slice1(R"({"params": {"offsets": [0, 0, 0, 0]}})"), "params.offsets",
     "unknown field; expected one of \"input_window_offsets\""},
    {"params_not_object", slice1(R"({"params": [1, 2]})"), "params",
     "expected an object of SLICE1 parameters, got an array"},
    {"axes_not_array", reduce(R"({"params": {"axes": "x"}})"), "params.axes",
     "expected an array of unsigned 32-bit integers, got \"x\""},
    {"axis_negative", reduce(R"({"params": {"axes": [0, -1]}})"), "params.axes[1]", "got -1"},
    {"unknown_function", reduce(R"({"params": {"function": "MEAN"}})"), "params.function",
     "expected one of \"ARGMAX\", \"ARGMIN\""},
    {"function_negative", reduce(R"({"params": {"function": -1}})"), "params.function",
     "expected an unsigned 32-bit integer, got -1"},
    {"function_fraction", reduce(R"({"params": {"function": 1.5}})"), "params.function", "got 1.5"},
    {"gather_axis_string", gather(R"({"params": {"axis": "0"}})"), "params.axis",
     "expected an unsigned 32-bit integer, got \"0\""},
    {"gather_missing_indices", gather(R"({"tensors": {"indices": null}})"), "tensors.indices",
     "missing required field"},
    {"gather_indices_data_short", gather(R"({"tensors": {"indices": {"data": [1, 2]}}})"),
     "tensors.indices.data", "expected 6 elements for sizes [2, 3], got 2"},
    {"expected_output_short", slice1(R"({"expected_output": [14, 16, 6]})"), "expected_output",
     "expected 4 elements for sizes [1, 1, 2, 2], got 3"},
    {"expected_output_bad_value", slice1(R"({"expected_output": [14, 16, "six", 8]})"), "expected_output[2]",
     "expected a FLOAT32 number"},
    {"expected_output_on_invalid", slice1(R"({"expect": "invalid", "violates": ["SLICE1.STRIDE_ZERO"]})"),
     "expected_output", "only a valid case has an expected output"},
    {"violates_not_array", slice1(R"({"expect": "invalid", "expected_output": null, "violates": "T.RANK"})"),
     "violates", "expected an array of rule ID strings, got \"T.RANK\""},
    {"violates_not_strings", slice1(R"({"expect": "invalid", "expected_output": null, "violates": [3]})"),
     "violates[0]", "expected a rule ID string, got 3"},
    {"violates_on_valid", slice1(R"({"violates": ["T.RANK"]})"), "violates", "a valid case violates no rule"},
    {"tolerance_negative_ulp", slice1(R"({"tolerance": {"ulp": -1}})"), "tolerance.ulp",
     "expected an unsigned 64-bit integer, got -1"},
    {"tolerance_abs_string", slice1(R"({"tolerance": {"abs": "x"}})"), "tolerance.abs",
     "expected a finite non-negative number, got \"x\""},
    {"tolerance_empty", slice1(R"({"tolerance": {}})"), "tolerance", "expected {\"ulp\": N}"},
    {"tolerance_both", slice1(R"({"tolerance": {"ulp": 1, "abs": 0.5}})"), "tolerance", "not both"},
    {"tolerance_unknown", slice1(R"({"tolerance": {"ulps": 1}})"), "tolerance.ulps", "unknown field"},
};

class CaseMalformedFile : public testing::TestWithParam<MalformedFile> {};

TEST_P(CaseMalformedFile, GivesOneLineErrorNamingFilePathAndExpectation) {
  const MalformedFile& m = GetParam();
  CaseError error;
  const auto c = parse_case(m.file.text(), "bad.json", &error);
  ASSERT_FALSE(c.has_value()) << "parsed although malformed";
  EXPECT_EQ(error.file, "bad.json");
  EXPECT_NE(error.path.find(m.path), std::string::npos) << "path: " << error.path;
  EXPECT_NE(error.message.find(m.message), std::string::npos) << "message: " << error.message;
  const std::string line = error.to_string();
  EXPECT_EQ(line.find('\n'), std::string::npos);
  EXPECT_EQ(line.rfind("bad.json: ", 0), 0u) << line;
}

INSTANTIATE_TEST_SUITE_P(Case, CaseMalformedFile, testing::ValuesIn(kMalformed),
                         [](const auto& row) { return sanitize(row.param.name); });

// ---- well-formed files that a strict reader might wrongly refuse -----------------------------

struct WellFormedFile {
  std::string name;
  FileText file;
  std::function<void(const Case&)> check;
};

const Slice1Desc& s1(const Case& c) {
  return std::get<Slice1Desc>(c.op);
}

const WellFormedFile kWellFormed[] = {
    {"default_level_is_5_0", slice1(R"({"feature_level": null, "format": null})"),
     [](const Case& c) { EXPECT_EQ(c.level, FeatureLevel::L5_0); }},
    {"unknown_top_level_key_ignored", slice1(R"({"written_by": {"tool": "x"}})"),
     [](const Case& c) { EXPECT_EQ(c.name, "slice1/base"); }},
    {"param_arrays_of_different_lengths",  // SLICE1.DIMCOUNT is the validator's business
     slice1(R"({"params": {"input_window_offsets": [0, 0], "input_window_strides": []}})"),
     [](const Case& c) {
       EXPECT_EQ(s1(c).input_window_offsets.size(), 2u);
       EXPECT_TRUE(s1(c).input_window_strides.empty());
     }},
    {"unknown_rule_id_on_invalid",
     slice1(R"({"expect": "invalid", "expected_output": null, "violates": ["NOT.A_RULE"]})"),
     [](const Case& c) { EXPECT_EQ(c.violates, std::vector<std::string>{"NOT.A_RULE"}); }},
    {"violates_on_unspecified",
     slice1(R"({"expect": "unspecified", "expected_output": null, "violates": ["T.OUTPUT_OVERLAP"]})"),
     [](const Case& c) { EXPECT_EQ(c.expect, CaseClass::Unspecified); }},
    {"total_bytes_absent_is_minimum", slice1(R"({"tensors": {"input": {"strides": [32, 32, 8, 1]}}})"),
     [](const Case& c) { EXPECT_EQ(s1(c).input.total_bytes, (24u + 3 + 1) * 4); }},
    {"total_bytes_absent_and_span_overflows_is_0",
     slice1(R"({"expected_output": null, "tensors": {"output": {"sizes": [1, 1, 4294967295, 4294967295],
                                       "strides": [1, 1, 4294967295, 4294967295]}}})"),
     [](const Case& c) { EXPECT_EQ(s1(c).output.total_bytes, 0u); }},
    {"strides_count_mismatch_is_not_malformed", slice1(R"({"tensors": {"input": {"strides": [1]}}})"),
     [](const Case& c) { EXPECT_EQ(s1(c).input.strides->size(), 1u); }},
    {"zero_stride_with_equal_elements", slice1(R"({"tensors": {"input": {"strides": [4, 4, 0, 1],
               "data": [1, 2, 3, 4, 1, 2, 3, 4, 1, 2, 3, 4, 1, 2, 3, 4]}}, "expected_output": [2, 4, 2, 4]})"),
     [](const Case& c) { EXPECT_EQ(s1(c).input.total_bytes, 16u); }},
    {"integral_float_as_size", slice1(R"({"tensors": {"output": {"sizes": [1, 1, 2.0, 2]}}})"),
     [](const Case& c) { EXPECT_EQ(s1(c).output.sizes[2], 2u); }},
    {"raw_function_value", reduce(R"({"params": {"function": 99}})"),
     [](const Case& c) { EXPECT_EQ(static_cast<uint32_t>(std::get<ReduceDesc>(c.op).function), 99u); }},
    {"function_by_name", reduce(R"({"params": {"function": "ARGMAX"}})"),
     [](const Case& c) { EXPECT_EQ(std::get<ReduceDesc>(c.op).function, ReduceFunction::ARGMAX); }},
    {"tolerance_abs_only", slice1(R"({"tolerance": {"abs": 0.25}})"),
     [](const Case& c) {
       EXPECT_EQ(c.tolerance->abs, 0.25);
       EXPECT_FALSE(c.tolerance->rel.has_value());
     }},
    {"fp16_rounds_once_from_the_json_double",  // via float, 1 + 2^-11 + 2^-30 would tie to 1.0
     slice1(R"({"expected_output": null, "tensors": {"input": {"type": "FLOAT16",
               "data": [1.0004882821813226, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16]},
               "output": {"type": "FLOAT16"}}})"),
     [](const Case& c) {
       uint16_t bits;
       std::memcpy(&bits, c.data.input.data(), 2);
       EXPECT_EQ(bits, 0x3c01);
     }},
    {"int64_exact_beyond_2_53", slice1(R"({"expected_output": null, "tensors": {"input": {"type": "INT64",
               "data": [9007199254740993, -9223372036854775808, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16]},
               "output": {"type": "INT64"}}})"),
     [](const Case& c) {
       int64_t v[2];
       std::memcpy(v, c.data.input.data(), sizeof v);
       EXPECT_EQ(v[0], 9007199254740993);
       EXPECT_EQ(v[1], std::numeric_limits<int64_t>::min());
     }},
    {"int64_integral_float_literals_are_exact",
     slice1_typed(
         "INT64",
         "[9007199254740993.0, -9223372036854775808.0, 9223372036854775807e0, 1e18, 3.0, 4, 5, 6, 7, 8, "
         "9, 10, 11, 12, 13, 14]"),
     [](const Case& c) {
       int64_t v[5];
       std::memcpy(v, c.data.input.data(), sizeof v);
       EXPECT_EQ(v[0], 9007199254740993);  // 2^53 + 1, which a double would round to 2^53
       EXPECT_EQ(v[1], std::numeric_limits<int64_t>::min());
       EXPECT_EQ(v[2], std::numeric_limits<int64_t>::max());
       EXPECT_EQ(v[3], 1000000000000000000);
       EXPECT_EQ(v[4], 3);
     }},
    {"uint64_max_as_a_float_literal",
     slice1_typed("UINT64", "[18446744073709551615.0, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16]"),
     [](const Case& c) {
       uint64_t v;
       std::memcpy(&v, c.data.input.data(), sizeof v);
       EXPECT_EQ(v, std::numeric_limits<uint64_t>::max());
     }},
    {"negative_zero_token_in_float32_data", edited(kSlice1, "[1, 2, 3, 4, 5, 6,", "[-0, 2, 3, 4, 5, -0,"),
     [](const Case& c) {
       uint32_t b[6];
       std::memcpy(b, c.data.input.data(), sizeof b);
       EXPECT_EQ(b[0], 0x80000000u);
       EXPECT_EQ(b[5], 0x80000000u);
     }},
    {"negative_zero_token_in_expected_output", edited(kSlice1, "[14, 16, 6, 8]", "[14, 16, -0, 8]"),
     [](const Case& c) {
       uint32_t b[4];
       ASSERT_EQ(c.expected_output->size(), sizeof b);
       std::memcpy(b, c.expected_output->data(), sizeof b);
       EXPECT_EQ(b[2], 0x80000000u);
     }},
    {"negative_zero_token_in_float16",
     slice1_typed("FLOAT16", "[-0,-0, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16]"),
     [](const Case& c) {
       uint16_t b[2];
       std::memcpy(b, c.data.input.data(), sizeof b);
       EXPECT_EQ(b[0], 0x8000u);
       EXPECT_EQ(b[1], 0x8000u);
     }},
    {"negative_zero_token_in_float64",
     slice1_typed("FLOAT64", "[1,\n-0, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16]"),
     [](const Case& c) {
       uint64_t b[2];
       std::memcpy(b, c.data.input.data(), sizeof b);
       EXPECT_EQ(b[1], 0x8000000000000000u);
     }},
    {"negative_zero_token_in_an_integer_tensor_is_zero",
     slice1_typed("INT32", "[-0, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16]"),
     [](const Case& c) {
       int32_t v;
       std::memcpy(&v, c.data.input.data(), sizeof v);
       EXPECT_EQ(v, 0);
     }},
    {"negative_zero_inside_a_string_is_left_alone",
     edited(kSlice1, R"("name": "slice1/base")", R"("name": "say \"[-0]\" -0")"),
     [](const Case& c) { EXPECT_EQ(c.name, "say \"[-0]\" -0"); }},
    {"nan_inf_and_negative_zero",
     slice1(
         R"({"tensors": {"input": {"data": ["nan", "inf", "-inf", -0.0, "0xffc00001", 6, 7, 8, 9, 10, 11, 12,
               13, 14, 15, 16]}}})"),
     [](const Case& c) {
       uint32_t b[5];
       std::memcpy(b, c.data.input.data(), sizeof b);
       EXPECT_EQ(b[0], 0x7fc00000u);
       EXPECT_EQ(b[1], 0x7f800000u);
       EXPECT_EQ(b[2], 0xff800000u);
       EXPECT_EQ(b[3], 0x80000000u);
       EXPECT_EQ(b[4], 0xffc00001u);
     }},
};

class CaseWellFormedFile : public testing::TestWithParam<WellFormedFile> {};

TEST_P(CaseWellFormedFile, LoadsAsWritten) {
  CaseError error;
  const auto c = parse_case(GetParam().file.text(), "good.json", &error);
  ASSERT_TRUE(c.has_value()) << error.to_string();
  GetParam().check(*c);
}

INSTANTIATE_TEST_SUITE_P(Case, CaseWellFormedFile, testing::ValuesIn(kWellFormed),
                         [](const auto& row) { return sanitize(row.param.name); });

// ---- round trips -----------------------------------------------------------------------------

void expect_same_case(const Case& a, const Case& b) {
  EXPECT_EQ(a.name, b.name);
  EXPECT_EQ(a.level, b.level);
  EXPECT_TRUE(a.op == b.op);
  EXPECT_EQ(a.data.input, b.data.input);  // bytes: NaN payloads and -0.0 included
  EXPECT_EQ(a.data.indices, b.data.indices);
  EXPECT_EQ(a.data.updates, b.data.updates);
  EXPECT_EQ(a.expect, b.expect);
  EXPECT_EQ(a.expected_output, b.expected_output);
  EXPECT_EQ(a.violates, b.violates);
  EXPECT_EQ(a.tolerance, b.tolerance);
  EXPECT_EQ(a.origin, b.origin);
}

template <class T>
Bytes bytes_of(std::initializer_list<T> values) {
  Bytes b(values.size() * sizeof(T));
  std::memcpy(b.data(), std::data(values), b.size());
  return b;
}
Bytes half_bits(std::initializer_list<uint16_t> bits) {
  return bytes_of(bits);
}

TensorDesc packed(DataType t, Sizes s) {
  return packed_desc(t, std::move(s));
}

struct RoundTrip {
  std::string name;
  std::function<Case()> make;
};

const RoundTrip kRoundTrips[] = {
    {"slice_float32_nan_payloads_and_negative_zero",
     [] {
       Case c;
       c.name = "rt/slice";
       c.level = FeatureLevel::L3_0;
       c.op = SliceDesc{packed(DataType::FLOAT32, {6}), packed(DataType::FLOAT32, {3}), {0}, {3}, {2}};
       const float qnan = std::numeric_limits<float>::quiet_NaN();
       c.data.input = bytes_of<float>({-0.0f, qnan, 0.1f, -qnan, 3.4028235e38f, 1e-45f});
       uint32_t payload = 0x7fc00001;
       std::memcpy(c.data.input.data() + 4 * 4, &payload, 4);  // replaces 3.4e38
       c.expected_output = bytes_of<float>({-0.0f, 0.1f, 1e-45f});
       return c;
     }},
    {"slice1_float16_values_payloads_subnormals",
     [] {
       Case c;
       c.name = "rt/slice1";
       c.op = Slice1Desc{packed(DataType::FLOAT16, {8}), packed(DataType::FLOAT16, {4}), {0}, {8}, {-2}};
       c.data.input = half_bits({0x3c01, 0x7e01, 0x8000, 0x0001, 0x7bff, 0xfe00, 0x2e66, 0x7c00});
       c.expected_output = half_bits({0x7c00, 0x7bff, 0x8000, 0x3c01});
       c.tolerance = Tolerance{std::nullopt, 0.125, 1e-3};
       return c;
     }},
    {"scatter_nd_int64_extremes",
     [] {
       Case c;
       c.name = "rt/scatter_nd";
       c.expect = CaseClass::Invalid;
       c.violates = {"SCATTERND.UPDATES_SHAPE", "SOME.FUTURE_RULE"};
       c.op = ScatterNdDesc{packed(DataType::INT64, {1, 4}),
                            packed(DataType::INT64, {2, 1}),
                            packed(DataType::INT64, {1, 2}),
                            packed(DataType::INT64, {1, 4}),
                            2,
                            2};
       c.data.input = bytes_of<int64_t>(
           {std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max(), 9007199254740993, -1});
       c.data.indices = bytes_of<int64_t>({-1, 3});
       c.data.updates = bytes_of<int64_t>({std::numeric_limits<int64_t>::min() + 1, 0});
       return c;
     }},
    {"reduce_uint64_extremes_raw_function_strides",
     [] {
       Case c;
       c.name = "rt/reduce";
       c.expect = CaseClass::Invalid;
       c.violates = {"OP.FUNCTION"};
       c.origin = "fuzz seed=7 case=12";
       TensorDesc in{DataType::UINT64, {2, 2}, std::vector<uint32_t>{0, 1}, 0};
       in.total_bytes = 64;  // more than the minimum: written out
       c.op = ReduceDesc{static_cast<ReduceFunction>(99), in, packed(DataType::UINT64, {1, 2}), {0}};
       c.data.input = bytes_of<uint64_t>(
           {std::numeric_limits<uint64_t>::max(), 0, std::numeric_limits<uint64_t>::max(), 0});
       return c;
     }},
    {"gather_elements_every_integer_width",
     [] {
       Case c;
       c.name = "rt/gather_elements";
       c.level = FeatureLevel::L6_4;
       c.op = GatherElementsDesc{packed(DataType::INT8, {4}), packed(DataType::INT32, {3}),
                                 packed(DataType::INT8, {3}), 0};
       c.data.input = bytes_of<int8_t>({-128, 127, 0, -1});
       c.data.indices = bytes_of<int32_t>({-4, 3, 1});
       c.expected_output = bytes_of<int8_t>({-128, -1, 127});
       c.tolerance = Tolerance{uint64_t{3}, std::nullopt, std::nullopt};
       return c;
     }},
    {"reduce_float64_unspecified",
     [] {
       Case c;
       c.name = "rt/reduce64 \"quoted\" name";
       c.expect = CaseClass::Unspecified;
       c.violates = {"REDUCE.NONFINITE"};
       c.op = ReduceDesc{
           ReduceFunction::MAX, packed(DataType::FLOAT64, {3}), packed(DataType::FLOAT64, {1}), {0}};
       c.data.input = bytes_of<double>({std::numeric_limits<double>::quiet_NaN(), 0.1, -5e-324});
       return c;
     }},
};

class CaseRoundTrip : public testing::TestWithParam<RoundTrip> {};

TEST_P(CaseRoundTrip, ParseOfToJsonIsTheSameCase) {
  const Case c = GetParam().make();
  for (bool pretty : {true, false}) {
    SCOPED_TRACE(pretty ? "pretty" : "compact");
    const std::string text = to_json(c, pretty);
    CaseError error;
    const auto back = parse_case(text, "rt.json", &error);
    ASSERT_TRUE(back.has_value()) << error.to_string() << "\n" << text;
    expect_same_case(c, *back);
    EXPECT_EQ(to_json(*back, pretty), text) << "the canonical form is a fixed point";
  }
}

// The compact form is written field by field, not through a JSON library: its bytes are still
// what the library writes for the same values (numbers, escapes, key order).
TEST_P(CaseRoundTrip, CompactTextIsWhatAJsonLibraryWritesForItsValues) {
  const std::string text = to_json(GetParam().make(), false);
  EXPECT_EQ(nlohmann::ordered_json::parse(text).dump(), text);
}

INSTANTIATE_TEST_SUITE_P(Case, CaseRoundTrip, testing::ValuesIn(kRoundTrips),
                         [](const auto& row) { return sanitize(row.param.name); });

// The same for every case of the corpus: hand-written, seed examples, third-party repros.
TEST(CaseWriter, CompactTextOfEveryCorpusCaseIsWhatAJsonLibraryWrites) {
  const LoadedCases corpus = load_cases({std::string(DMLCERT_SOURCE_DIR) + "/corpora"});
  ASSERT_GT(corpus.cases.size(), 100u);
  for (const Case& c : corpus.cases) {
    const std::string text = to_json(c, false);
    ASSERT_EQ(nlohmann::ordered_json::parse(text).dump(), text) << c.name;
  }
}

TEST(CaseWriter, WritesNanPayloadsAsBitPatternsAndDefaultsAsWords) {
  const std::string text = to_json(kRoundTrips[0].make(), false);
  EXPECT_NE(text.find("\"0x7fc00001\""), std::string::npos) << text;
  EXPECT_NE(text.find("\"0xffc00000\""), std::string::npos) << text;  // -nan keeps its sign
  EXPECT_NE(text.find("\"nan\""), std::string::npos) << text;
  EXPECT_NE(text.find("-0.0"), std::string::npos) << text;
  EXPECT_NE(text.find("0.1,"), std::string::npos) << "shortest decimal for 0.1f: " << text;
}

TEST(CaseWriter, LeavesOutTheMinimumTotalBytes) {
  const Case c = kRoundTrips[2].make();
  EXPECT_EQ(to_json(c).find("total_bytes"), std::string::npos);
  EXPECT_NE(to_json(kRoundTrips[3].make()).find("\"total_bytes\": 64"), std::string::npos);
}

// No input may crash the reader: every prefix of a file, and every single-byte corruption.
TEST(CaseReader, SurvivesEveryTruncationAndByteFlip) {
  const std::string text = to_json(kRoundTrips[2].make(), true);
  for (size_t n = 0; n <= text.rfind('}'); ++n) {
    CaseError e;
    EXPECT_FALSE(parse_case(text.substr(0, n), "t.json", &e).has_value()) << n;
  }
  for (size_t i = 0; i < text.size(); ++i) {
    for (char ch : {'\0', '"', '9', '-', '[', '}', '\xff'}) {
      std::string t = text;
      t[i] = ch;
      CaseError e;
      (void)parse_case(t, "t.json", &e);
    }
  }
}

// ---- files on disk ---------------------------------------------------------------------------

class CaseFiles : public testing::Test {
 protected:
  void SetUp() override {
    // A parameterized test's name holds a '/': one directory level, not two.
    std::string test = ::testing::UnitTest::GetInstance()->current_test_info()->name();
    std::replace(test.begin(), test.end(), '/', '_');
    dir_ = fs::temp_directory_path() /
           ("dmlcert_case_files_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "_" +
            test);
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string put(const std::string& rel, const std::string& text) {
    const fs::path p = dir_ / rel;
    fs::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << text;
    return p.string();
  }
  fs::path dir_;
};

TEST_F(CaseFiles, JsonlCountsLinesAndSkipsBlankOnes) {
  const std::string good = json::parse(kReduce).dump();
  const std::string bad = slice1(R"({"tensors": {"input": {"sizes": [1, 1, 4, -4]}}})").text();
  const std::string path = put("group.jsonl", good + "\n\n   \n" + bad + "\n" + good + "\n{\"op\": \n");
  const LoadedCases loaded = load_case_file(path);
  EXPECT_EQ(loaded.cases.size(), 2u);
  ASSERT_EQ(loaded.errors.size(), 2u);
  EXPECT_EQ(loaded.errors[0].path, "line 4: tensors.input.sizes[3]");
  EXPECT_EQ(loaded.errors[0].file, path);
  EXPECT_EQ(loaded.errors[1].path, "line 6");
  EXPECT_NE(loaded.errors[1].message.find("invalid JSON at byte"), std::string::npos);
}

TEST_F(CaseFiles, DirectoriesExpandRecursivelyInSortedOrder) {
  put("b/2.json", json::parse(kGather).dump());
  put("a/z/1.json", json::parse(kReduce).dump());
  put("a/0.jsonl", json::parse(kSlice1).dump() + "\n");
  put("a/ignored.txt", "not a case");
  const LoadedCases loaded = load_cases({dir_.string()});
  EXPECT_TRUE(loaded.errors.empty());
  ASSERT_EQ(loaded.cases.size(), 3u);
  EXPECT_EQ(loaded.cases[0].name, "slice1/base");  // a/0.jsonl < a/z/1.json < b/2.json
  EXPECT_EQ(loaded.cases[1].name, "reduce/base");
  EXPECT_EQ(loaded.cases[2].name, "gather_elements/base");
}

TEST_F(CaseFiles, MissingFileIsAnErrorNotACrash) {
  const LoadedCases loaded = load_cases({(dir_ / "nope.json").string()});
  ASSERT_EQ(loaded.errors.size(), 1u);
  EXPECT_NE(loaded.errors[0].to_string().find("nope.json: (file): cannot read the file"), std::string::npos);
}

// Paths that cannot be read as a case file: each says what it is, never "empty"
// (docs/case-format.md, "Malformed files" and "Limits"). setup makes the path in a fresh directory.
struct UnreadablePath {
  std::string name;
  std::function<std::string(const fs::path& dir)> setup;
  std::string message;        // substring of the error's message
  bool skip_as_root = false;  // permissions do not stop root
};

void PrintTo(const UnreadablePath& p, std::ostream* os) {
  *os << p.name;
}

class CaseUnreadablePath : public CaseFiles, public testing::WithParamInterface<UnreadablePath> {};

TEST_P(CaseUnreadablePath, SaysWhatItIsInOneLine) {
  if (GetParam().skip_as_root && ::geteuid() == 0) GTEST_SKIP() << "root reads files whatever their mode";
  const std::string path = GetParam().setup(dir_);
  const auto start = std::chrono::steady_clock::now();
  ReadLimits limits;
  limits.max_file_bytes = 1 << 20;
  const LoadedCases loaded = load_case_file(path, limits);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
  EXPECT_TRUE(loaded.cases.empty());
  ASSERT_EQ(loaded.errors.size(), 1u);
  EXPECT_EQ(loaded.errors[0].path, "(file)");
  EXPECT_NE(loaded.errors[0].message.find(GetParam().message), std::string::npos) << loaded.errors[0].message;
  EXPECT_EQ(loaded.errors[0].message.find("empty"), std::string::npos) << loaded.errors[0].message;
}

std::string make_file(const fs::path& p, uintmax_t bytes) {
  std::ofstream{p};
  fs::resize_file(p, bytes);
  return p.string();
}

INSTANTIATE_TEST_SUITE_P(
    Case, CaseUnreadablePath,
    testing::Values(
        UnreadablePath{"directory", [](const fs::path& dir) { return dir.string(); }, "it is a directory"},
        UnreadablePath{"proc_self_mem", [](const fs::path&) { return std::string("/proc/self/mem"); },
                       "cannot read the file"},
        // Regular files only: a device or a FIFO is refused at once, never read or waited on.
        UnreadablePath{"dev_zero_is_refused_as_a_device",
                       [](const fs::path&) { return std::string("/dev/zero"); },
                       "it is not a regular file (a character device)"},
        UnreadablePath{"fifo_is_refused_without_waiting",
                       [](const fs::path& dir) {
                         const fs::path fifo = dir / "case.json";
                         ::mkfifo(fifo.c_str(), 0644);
                         return fifo.string();
                       },
                       "it is not a regular file (a FIFO)"},
        UnreadablePath{"regular_file_past_the_limit",
                       [](const fs::path& dir) { return make_file(dir / "big.json", (1 << 20) + 1); },
                       "it has 1048577 bytes, more than the limit of 1048576"},
        UnreadablePath{"dangling_link",
                       [](const fs::path& dir) {
                         fs::create_symlink("nowhere.json", dir / "link.json");
                         return (dir / "link.json").string();
                       },
                       "cannot read the file: No such file or directory"},
        UnreadablePath{"no_permission",
                       [](const fs::path& dir) {
                         const std::string p = make_file(dir / "secret.json", 2);
                         fs::permissions(p, fs::perms::none);
                         return p;
                       },
                       "cannot read the file: Permission denied", true}),
    [](const auto& row) { return row.param.name; });

// A walk of directories reports every path it cannot read, and goes on with the rest.
TEST_F(CaseFiles, DirectoryWalkReportsEveryPathItCannotRead) {
  put("a/good.json", json::parse(kReduce).dump());
  fs::create_symlink("nowhere.json", dir_ / "a" / "dangling.json");
  fs::create_symlink("loop.json", dir_ / "a" / "loop.json");
  fs::create_directories(dir_ / "locked");
  put("locked/hidden.json", json::parse(kReduce).dump());
  fs::permissions(dir_ / "locked", fs::perms::none);
  const LoadedCases loaded = load_cases({dir_.string()});
  fs::permissions(dir_ / "locked", fs::perms::owner_all);
  EXPECT_EQ(loaded.cases.size(), ::geteuid() == 0 ? 2u : 1u);
  std::vector<std::string> lines;
  for (const CaseError& e : loaded.errors) lines.push_back(e.to_string());
  auto reported = [&](const std::string& what) {
    return std::any_of(lines.begin(), lines.end(),
                       [&](const std::string& l) { return l.find(what) != std::string::npos; });
  };
  EXPECT_TRUE(reported((dir_ / "a" / "dangling.json").string() + ": (file): a link to nothing"))
      << testing::PrintToString(lines);
  EXPECT_TRUE(reported((dir_ / "a" / "loop.json").string() + ": (file): a link to nothing"))
      << testing::PrintToString(lines);
  if (::geteuid() != 0) {
    EXPECT_TRUE(reported((dir_ / "locked").string() + ": (file): cannot list the directory"))
        << testing::PrintToString(lines);
  }
}

// Untrusted text on its way to a terminal: control characters escaped, one line, capped.
struct ErrorLine {
  std::string name;
  CaseError error;
  std::vector<std::string> contains;
};

class CaseErrorLine : public testing::TestWithParam<ErrorLine> {};

TEST_P(CaseErrorLine, IsOneCappedPrintableLine) {
  const std::string line = GetParam().error.to_string();
  EXPECT_LE(line.size(), CaseError::kMaxErrorLine);
  for (char c : line) EXPECT_TRUE(static_cast<unsigned char>(c) >= 0x20 && c != 0x7f) << line;
  for (const std::string& part : GetParam().contains) EXPECT_NE(line.find(part), std::string::npos) << line;
}

INSTANTIATE_TEST_SUITE_P(
    Case, CaseErrorLine,
    testing::Values(ErrorLine{"newline_and_escape_in_file_name",
                              {"a\nb\x1b[2J.json", "(root)", "bad"},
                              {"a\\nb\\x1b[2J.json: (root): bad"}},
                    ErrorLine{"escape_in_message",
                              {"f.json", "name", std::string("got \"\x1b]0;pwned\x07\"")},
                              {"\\x1b]0;pwned\\x07"}},
                    ErrorLine{"megabyte_message",
                              {"f.json", "params.x", std::string(1 << 20, 'k')},
                              {"f.json: params.x: kkk", "k..."}},
                    ErrorLine{"megabyte_file_name_and_path",
                              {std::string(1 << 20, 'f'), std::string(1 << 20, 'p'), "why"},
                              {"f...: ppp", "p...: why"}},
                    ErrorLine{"megabyte_of_control_characters",
                              {"f.json", "(root)", std::string(1 << 20, '\x01')},
                              {"\\x01\\x01", "..."}}),
    [](const auto& row) { return row.param.name; });

// A REDUCE file listing a million axes (about 3 MB) loads and validates in linear time, under a
// second: nothing on the way (the reader, the duplicate-axis check) is quadratic in the axis count.
TEST(CaseReader, AMillionReduceAxesLoadAndValidateInLinearTime) {
  auto file_with_axes = [](size_t n) {
    std::string axes = "[0";
    for (size_t i = 1; i < n; ++i) axes += ", 0";
    return edited(kReduce, "\"axes\": [0]", "\"axes\": " + axes + "]").raw;
  };
  test::expect_linear(
      [&](size_t n) -> std::function<void()> {
        return [text = file_with_axes(n)] {
          CaseError error;
          const auto c = parse_case(text, "axes.json", &error);
          ASSERT_TRUE(c.has_value()) << error.to_string();
          EXPECT_TRUE(validate(c->op, c->level).has("REDUCE.AXES_DUPLICATE"));
        };
      },
      1'000'000, 1.0);
  CaseError error;
  const auto c = parse_case(file_with_axes(1'000'000), "axes.json", &error);
  ASSERT_TRUE(c.has_value()) << error.to_string();
  EXPECT_EQ(std::get<ReduceDesc>(c->op).axes.size(), 1'000'000u);
  EXPECT_EQ(validate(c->op, c->level).case_class(), CaseClass::Unspecified);
}

// A file whose unknown key is a megabyte long gives a line of at most kMaxErrorLine.
TEST(CaseReader, AnErrorAboutAHugeKeyIsCapped) {
  const std::string key(1 << 20, 'x');
  CaseError error;
  ASSERT_FALSE(parse_case(
      edited(kSlice1, R"("input_window_offsets")", "\"" + key + "\": 1, \"input_window_offsets\"").raw,
      "f.json", &error));
  const std::string line = error.to_string();
  EXPECT_LE(line.size(), CaseError::kMaxErrorLine);
  EXPECT_NE(line.find("f.json: params.xxx"), std::string::npos) << line;
  EXPECT_NE(line.find("x...: "), std::string::npos) << line;  // the path, cut
}

TEST_F(CaseFiles, WriteIsAtomicAndReadsBack) {
  const Case c = kRoundTrips[1].make();
  const std::string path = (dir_ / "case.json").string();
  put("case.json", "old, torn content");
  const FileWritten written = write_case_file(path, c);
  ASSERT_TRUE(written) << written.message;
  const LoadedCases loaded = load_case_file(path);
  ASSERT_EQ(loaded.cases.size(), 1u) << (loaded.errors.empty() ? "" : loaded.errors[0].to_string());
  expect_same_case(c, loaded.cases[0]);
  size_t files = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir_)) ++files;
  EXPECT_EQ(files, 1u) << "no temporary file left behind";
  const FileWritten nowhere = write_case_file((dir_ / "no/such/dir/x.json").string(), c);
  EXPECT_FALSE(nowhere);
  EXPECT_NE(nowhere.message.find("cannot create"), std::string::npos) << nowhere.message;
}

}  // namespace
}  // namespace dmlcert

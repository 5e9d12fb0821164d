// JSON text read in place, for files other tools and people write (docs/case-format.md,
// "Malformed files"). check() accepts one strict JSON value and nothing else: duplicate keys, a
// NUL byte, anything after the value, nesting past a depth and numbers past the double range are
// errors naming their JSON path or byte. After that a Value walks the checked text without
// building a tree, so a reader can decode a long array straight into its destination: what a case
// costs in memory is its text plus what it decodes to (docs/design.md, "Memory"). Numbers keep
// their text: integral literals ("3.0", "1e3", "9007199254740993.0") are exact integers and "-0"
// keeps its sign. Private to the case reader.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace dmlcert::json_text {

struct Error {
  std::string path;  // "tensors.input.data[3]", or "(root)"
  std::string message;
};

// The first reason `text` is not one strict JSON value, or nullopt.
std::optional<Error> check(std::string_view text, size_t max_depth);

// One value inside text that check() accepted (anything else is undefined behaviour).
class Value {
 public:
  enum class Kind { Null, Boolean, Number, String, Array, Object };

  // The value that starts at or after `at` (leading whitespace is skipped).
  Value(std::string_view text, size_t at);
  // The whole text's value.
  static Value root(std::string_view text) { return Value(text, 0); }

  Kind kind() const { return kind_; }
  bool is_array() const { return kind_ == Kind::Array; }
  bool is_object() const { return kind_ == Kind::Object; }
  bool is_string() const { return kind_ == Kind::String; }
  bool is_number() const { return kind_ == Kind::Number; }
  bool is_container() const { return is_array() || is_object(); }

  // The value's text as written: "3.0", "\"nan\"", "[1, 2]".
  std::string_view text() const { return text_.substr(begin_, end_ - begin_); }
  // A string's content, escapes decoded.
  std::string string() const;
  // A scalar as nlohmann::json: numbers exact (integral literals as integers when they fit 64
  // bits, "-0" as -0.0), strings decoded. Containers give null.
  nlohmann::json scalar() const;

  // Elements of an array: f(index, Value) in order.
  template <class F>
  void for_each_element(F&& f) const {
    size_t i = 0;
    for (size_t at = first_inner(); at != npos;) {
      const Value element(text_, at);
      f(i++, element);
      at = next_inner(element.end_);
    }
  }
  // The number of elements of an array or members of an object.
  size_t size() const;
  // Members of an object: f(key, Value) in order, keys decoded.
  template <class F>
  void for_each_member(F&& f) const {
    for (size_t at = first_inner(); at != npos;) {
      const Value key(text_, at);
      const Value value(text_, after_colon(key.end_));
      f(key.string(), value);
      at = next_inner(value.end_);
    }
  }

 private:
  static constexpr size_t npos = std::string_view::npos;
  size_t first_inner() const;
  // Where the next element or member starts after one that ends at `after`, or npos.
  size_t next_inner(size_t after) const;
  size_t after_colon(size_t after_key) const;

  std::string_view text_;
  size_t begin_ = 0, end_ = 0;
  Kind kind_ = Kind::Null;
};

}  // namespace dmlcert::json_text

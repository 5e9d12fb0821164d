#include "strict_json.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <optional>
#include <vector>

namespace dmlcert::strict_json {
namespace {

using json = nlohmann::json;

// The exact integer a float literal denotes, when it denotes one that fits 64 bits; computed from
// the digits, so that no double rounding decides it.
std::optional<json> integral_literal(const std::string& text) {
  size_t i = 0;
  const bool negative = i < text.size() && text[i] == '-';
  if (negative) ++i;
  std::string digits;
  int64_t exponent = 0;
  for (; i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])); ++i) digits += text[i];
  if (i < text.size() && text[i] == '.')
    for (++i; i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])); ++i, --exponent)
      digits += text[i];
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    const bool exp_negative = i < text.size() && text[i] == '-';
    if (i < text.size() && (text[i] == '-' || text[i] == '+')) ++i;
    int64_t e = 0;
    for (; i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])); ++i)
      e = std::min<int64_t>(e * 10 + (text[i] - '0'), 100000);
    exponent += exp_negative ? -e : e;
  }
  digits.erase(0, std::min(digits.find_first_not_of('0'), digits.size()));
  if (digits.empty()) return std::nullopt;  // zero: a float keeps the sign of -0.0
  while (!digits.empty() && digits.back() == '0') digits.pop_back(), ++exponent;
  if (exponent < 0 || static_cast<int64_t>(digits.size()) + exponent > 20) return std::nullopt;
  digits.append(static_cast<size_t>(exponent), '0');
  unsigned __int128 v = 0;
  for (char c : digits) v = v * 10 + static_cast<unsigned>(c - '0');
  if (!negative && v <= std::numeric_limits<uint64_t>::max()) return json(static_cast<uint64_t>(v));
  if (negative && v <= static_cast<unsigned __int128>(std::numeric_limits<int64_t>::max()) + 1)
    return json(static_cast<int64_t>(-static_cast<__int128>(v)));
  return std::nullopt;
}

// Builds the DOM, tracking the JSON path of every value for the errors above.
class Builder {
 public:
  explicit Builder(size_t max_depth) : max_depth_(max_depth) {}

  bool null() { return value(json(nullptr)); }
  bool boolean(bool v) { return value(json(v)); }
  bool number_integer(json::number_integer_t v) { return value(json(v)); }
  bool number_unsigned(json::number_unsigned_t v) { return value(json(v)); }
  bool number_float(json::number_float_t v, const std::string& text) {
    if (auto exact = integral_literal(text)) return value(std::move(*exact));
    return value(json(v));
  }
  bool string(std::string& v) { return value(json(std::move(v))); }
  bool binary(json::binary_t&) { return fail(path(), "binary values are not JSON"); }
  bool start_object(size_t) { return open(json::object()); }
  bool key(std::string& k) {
    Frame& f = stack_.back();
    if (f.value->contains(k))
      return fail(path() + (path().empty() ? "" : ".") + k, "duplicate key \"" + k + "\"");
    f.key = std::move(k);
    return true;
  }
  bool end_object() { return close(); }
  bool start_array(size_t) { return open(json::array()); }
  bool end_array() { return close(); }
  bool parse_error(size_t position, const std::string& token, const nlohmann::detail::exception& e) {
    std::string what = e.what();
    if (!what.empty() && what[0] == '[')
      what.erase(0, what.find("] ") == std::string::npos ? 0 : what.find("] ") + 2);
    if (e.id == 406)  // a number out of range ("1e400")
      return fail(current_path(), "the number " + token + " is out of range");
    return fail("(root)", "invalid JSON at byte " + std::to_string(position) + ": " + what);
  }

  json take() { return std::move(root_); }
  const std::optional<Error>& error() const { return error_; }

 private:
  struct Frame {
    json* value;
    std::string key;  // objects: the key of the next value
  };

  // Where the next value goes.
  std::string current_path() const {
    std::string p = path();
    if (stack_.empty()) return p.empty() ? "(root)" : p;
    const Frame& f = stack_.back();
    if (f.value->is_object()) return p + (p.empty() ? "" : ".") + f.key;
    return p + "[" + std::to_string(f.value->size()) + "]";
  }
  // The path of the innermost open container.
  std::string path() const {
    std::string p;
    for (size_t i = 0; i + 1 < stack_.size(); ++i) {
      const Frame& f = stack_[i];
      if (f.value->is_object())
        p += (p.empty() ? "" : ".") + f.key;
      else
        p += "[" + std::to_string(f.value->size() - 1) + "]";
    }
    return p;
  }

  json* put(json v) {
    if (stack_.empty()) {
      root_ = std::move(v);
      return &root_;
    }
    Frame& f = stack_.back();
    if (f.value->is_object()) return &((*f.value)[f.key] = std::move(v));
    f.value->push_back(std::move(v));
    return &f.value->back();
  }
  bool value(json v) {
    put(std::move(v));
    return true;
  }
  bool open(json container) {
    if (stack_.size() >= max_depth_)
      return fail("(root)", "nested deeper than " + std::to_string(max_depth_) + " levels");
    stack_.push_back({put(std::move(container)), {}});
    return true;
  }
  bool close() {
    stack_.pop_back();
    return true;
  }
  bool fail(std::string p, std::string message) {
    if (!error_) error_ = Error{p.empty() ? "(root)" : std::move(p), std::move(message)};
    return false;
  }

  size_t max_depth_;
  json root_;
  std::vector<Frame> stack_;
  std::optional<Error> error_;
};

}  // namespace

std::variant<json, Error> parse(std::string_view text, size_t max_depth) {
  // nlohmann's reader takes a NUL byte for the end of the input and would ignore what follows.
  if (const size_t nul = text.find('\0'); nul != std::string_view::npos)
    return Error{"(root)", "a NUL byte at byte " + std::to_string(nul + 1) + "; a case file is JSON text"};
  // "-0" is an integer token to the parser, which would drop its sign; "-0.0" is the same number
  // as a float, which keeps it. Rewrite those tokens (outside strings) before parsing.
  std::string rewritten;
  size_t copied = 0;
  bool in_string = false, escaped = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        in_string = false;
      continue;
    }
    if (c == '"') {
      in_string = true;
      continue;
    }
    const bool token_start = i == 0 || std::strchr(" \t\r\n[,:", text[i - 1]) != nullptr;
    const bool minus_zero = c == '-' && token_start && i + 1 < text.size() && text[i + 1] == '0' &&
                            (i + 2 == text.size() || std::strchr(".eE0123456789", text[i + 2]) == nullptr);
    if (minus_zero) {
      rewritten.append(text.substr(copied, i + 2 - copied));
      rewritten += ".0";
      copied = i + 2;
    }
  }
  if (copied > 0) {
    rewritten.append(text.substr(copied));
    text = rewritten;
  }
  Builder builder(max_depth);
  json::sax_parse(text.begin(), text.end(), &builder, json::input_format_t::json, /*strict=*/true);
  if (builder.error()) return *builder.error();
  return builder.take();
}

}  // namespace dmlcert::strict_json

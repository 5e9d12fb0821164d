#include "json_text.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <limits>
#include <unordered_set>
#include <vector>

namespace dmlcert::json_text {
namespace {

using json = nlohmann::json;

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}
bool is_digit(char c) {
  return c >= '0' && c <= '9';
}
int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}
size_t skip_space(std::string_view t, size_t at) {
  while (at < t.size() && is_space(t[at])) ++at;
  return at;
}

// The four hex digits of a \u escape at t[at..at+4), or -1.
int32_t hex4(std::string_view t, size_t at) {
  if (t.size() - at < 4) return -1;
  int32_t v = 0;
  for (size_t i = 0; i < 4; ++i) {
    const int d = hex_digit(t[at + i]);
    if (d < 0) return -1;
    v = v * 16 + d;
  }
  return v;
}

// The length of the well-formed UTF-8 sequence at t[at] (a byte >= 0x80), or 0 (overlong forms,
// surrogates and code points past U+10FFFF are not well formed).
size_t utf8_length(std::string_view t, size_t at) {
  const auto b = [&](size_t i) { return at + i < t.size() ? static_cast<unsigned char>(t[at + i]) : 0u; };
  const auto cont = [&](size_t i, unsigned lo = 0x80, unsigned hi = 0xBF) {
    return b(i) >= lo && b(i) <= hi;
  };
  const unsigned c = b(0);
  if (c >= 0xC2 && c <= 0xDF) return cont(1) ? 2 : 0;
  if (c == 0xE0) return cont(1, 0xA0) && cont(2) ? 3 : 0;
  if ((c >= 0xE1 && c <= 0xEC) || c == 0xEE || c == 0xEF) return cont(1) && cont(2) ? 3 : 0;
  if (c == 0xED) return cont(1, 0x80, 0x9F) && cont(2) ? 3 : 0;
  if (c == 0xF0) return cont(1, 0x90) && cont(2) && cont(3) ? 4 : 0;
  if (c >= 0xF1 && c <= 0xF3) return cont(1) && cont(2) && cont(3) ? 4 : 0;
  if (c == 0xF4) return cont(1, 0x80, 0x8F) && cont(2) && cont(3) ? 4 : 0;
  return 0;
}

void append_utf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

// The content of the checked string whose opening quote is at t[at], escapes decoded.
std::string decode_string(std::string_view t, size_t at) {
  std::string out;
  for (size_t i = at + 1;;) {
    const size_t stop = t.find_first_of("\"\\", i);
    out.append(t.substr(i, stop - i));
    if (t[stop] == '"') return out;
    const char e = t[stop + 1];
    i = stop + 2;
    switch (e) {
      case 'b': out += '\b'; break;
      case 'f': out += '\f'; break;
      case 'n': out += '\n'; break;
      case 'r': out += '\r'; break;
      case 't': out += '\t'; break;
      case 'u': {
        uint32_t cp = static_cast<uint32_t>(hex4(t, i));
        i += 4;
        if (cp >= 0xD800 && cp <= 0xDBFF) {  // check() saw the low surrogate that follows
          cp = 0x10000 + ((cp - 0xD800) << 10) + (static_cast<uint32_t>(hex4(t, i + 2)) - 0xDC00);
          i += 6;
        }
        append_utf8(out, cp);
        break;
      }
      default: out += e; break;  // " \ /
    }
  }
}

// Where the checked value starting at t[at] ends.
size_t skip_string(std::string_view t, size_t at) {
  for (size_t i = at + 1;;) {
    i = t.find_first_of("\"\\", i);
    if (t[i] == '"') return i + 1;
    i += 2;  // an escape; a \u escape's hex digits need no care
  }
}
size_t skip_value(std::string_view t, size_t at) {
  switch (t[at]) {
    case '"': return skip_string(t, at);
    case 't':
    case 'n': return at + 4;
    case 'f': return at + 5;
    case '[':
    case '{': {
      size_t depth = 0;
      for (size_t i = at;;) {
        const char c = t[i];
        if (c == '"') {
          i = skip_string(t, i);
          continue;
        }
        if (c == '[' || c == '{') ++depth;
        if ((c == ']' || c == '}') && --depth == 0) return i + 1;
        ++i;
      }
    }
    default: {
      size_t i = at;
      while (i < t.size() &&
             (is_digit(t[i]) || t[i] == '-' || t[i] == '+' || t[i] == '.' || t[i] == 'e' || t[i] == 'E'))
        ++i;
      return i;
    }
  }
}

double to_double(std::string_view token) {
  // strtod needs a terminated copy; a number token is short unless someone makes it long.
  char small[64];
  std::string large;
  const char* p = small;
  if (token.size() < sizeof small) {
    std::memcpy(small, token.data(), token.size());
    small[token.size()] = '\0';
  } else {
    large.assign(token);
    p = large.c_str();
  }
  return std::strtod(p, nullptr);
}

// The exact integer a float literal denotes, when it denotes one that fits 64 bits; computed from
// the digits, so that no double rounding decides it.
std::optional<json> integral_literal(std::string_view text) {
  size_t i = 0;
  const bool negative = i < text.size() && text[i] == '-';
  if (negative) ++i;
  std::string digits;
  int64_t exponent = 0;
  for (; i < text.size() && is_digit(text[i]); ++i) digits += text[i];
  if (i < text.size() && text[i] == '.')
    for (++i; i < text.size() && is_digit(text[i]); ++i, --exponent) digits += text[i];
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    const bool exp_negative = i < text.size() && text[i] == '-';
    if (i < text.size() && (text[i] == '-' || text[i] == '+')) ++i;
    int64_t e = 0;
    for (; i < text.size() && is_digit(text[i]); ++i) e = std::min<int64_t>(e * 10 + (text[i] - '0'), 100000);
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

// One pass over the text with an explicit stack (no recursion, however deep the input).
class Checker {
 public:
  Checker(std::string_view text, size_t max_depth) : t_(text), max_depth_(max_depth) {}

  std::optional<Error> run() {
    if (const size_t nul = t_.find('\0'); nul != std::string_view::npos)
      return Error{"(root)", "a NUL byte at byte " + std::to_string(nul + 1) + "; a case file is JSON text"};
    at_ = skip_space(t_, 0);
    Next next = Next::Value;
    while (next != Next::Stop) {
      if (next == Next::Value) {
        next = value();
        continue;
      }
      // After a value: the next element or member, the end of its container, or of the text.
      at_ = skip_space(t_, at_);
      if (depth_ == 0) {
        if (at_ != t_.size()) syntax("expected end of input after the JSON value");
        break;
      }
      Frame& f = stack_[depth_ - 1];
      if (at_ < t_.size() && t_[at_] == (f.object ? '}' : ']')) {
        ++at_;
        --depth_;
        continue;
      }
      if (at_ >= t_.size() || t_[at_] != ',') {
        syntax(f.object ? "expected ',' or '}'" : "expected ',' or ']'");
        break;
      }
      at_ = skip_space(t_, at_ + 1);
      if (f.object)
        next = key(f) ? Next::Value : Next::Stop;
      else
        ++f.index, next = Next::Value;
    }
    return std::move(error_);
  }

 private:
  struct Frame {
    bool object = false;
    size_t index = 0;                              // arrays: the element being read
    std::string_view key;                          // objects: the member being read, as written
    bool key_escaped = false;                      // ... with escapes, decoded in decoded.back()
    std::vector<std::string_view> keys;            // decoded, for duplicates
    std::deque<std::string> decoded;               // the storage of keys that had escapes
    std::unordered_set<std::string_view> key_set;  // once there are many keys
  };
  enum class Next { Value, AfterValue, Stop };

  // The value at at_: a scalar whole, or a container's opening (and an object's first key).
  Next value() {
    if (at_ >= t_.size()) return syntax("expected a value, got the end of the text"), Next::Stop;
    const char c = t_[at_];
    if (c == '{' || c == '[') {
      if (depth_ >= max_depth_)
        return fail("(root)", "nested deeper than " + std::to_string(max_depth_) + " levels"), Next::Stop;
      if (stack_.size() == depth_) stack_.emplace_back();
      Frame& f = stack_[depth_++];
      f.object = c == '{';
      f.index = 0;
      f.key = {};
      f.key_escaped = false;
      f.keys.clear();
      f.decoded.clear();
      f.key_set.clear();
      at_ = skip_space(t_, at_ + 1);
      if (at_ < t_.size() && t_[at_] == (f.object ? '}' : ']')) {
        ++at_;
        --depth_;
        return Next::AfterValue;
      }
      if (f.object && !key(f)) return Next::Stop;
      return Next::Value;
    }
    bool ok = false;
    if (c == '"')
      ok = string().has_value();
    else if (c == '-' || is_digit(c))
      ok = number();
    else if (literal("true") || literal("false") || literal("null"))
      ok = true;
    else
      syntax("expected a value");
    return ok ? Next::AfterValue : Next::Stop;
  }

  bool literal(std::string_view word) {
    if (t_.substr(at_, word.size()) != word) return false;
    at_ += word.size();
    return true;
  }

  // A member's key and its colon; on return at_ is at the member's value.
  bool key(Frame& f) {
    if (at_ >= t_.size() || t_[at_] != '"') return syntax("expected a string key");
    const size_t open = at_;
    const auto escaped = string();
    if (!escaped) return false;
    f.key = t_.substr(open + 1, at_ - open - 2);
    f.key_escaped = *escaped;
    std::string_view decoded = f.key;
    if (f.key_escaped) decoded = f.decoded.emplace_back(decode_string(t_, open));
    // Few keys: a look through them; many (a hostile file): a hash set, so that it stays linear.
    constexpr size_t kLinear = 32;
    bool duplicate = false;
    if (f.keys.size() < kLinear) {
      duplicate = std::find(f.keys.begin(), f.keys.end(), decoded) != f.keys.end();
    } else {
      if (f.key_set.empty()) f.key_set.insert(f.keys.begin(), f.keys.end());
      duplicate = !f.key_set.insert(decoded).second;
    }
    if (duplicate) return fail(path(), "duplicate key \"" + std::string(decoded) + "\"");
    f.keys.push_back(decoded);
    at_ = skip_space(t_, at_);
    if (at_ >= t_.size() || t_[at_] != ':') return syntax("expected ':' after the key");
    at_ = skip_space(t_, at_ + 1);
    return true;
  }

  // A string at at_; whether it had escapes, or nullopt on an error.
  std::optional<bool> string() {
    bool escaped = false;
    size_t i = at_ + 1;
    while (true) {
      while (i < t_.size() && static_cast<unsigned char>(t_[i]) >= 0x20 &&
             static_cast<unsigned char>(t_[i]) < 0x80 && t_[i] != '"' && t_[i] != '\\')
        ++i;
      if (i >= t_.size()) return at_ = i, syntax("a string without its closing quote"), std::nullopt;
      const auto c = static_cast<unsigned char>(t_[i]);
      if (c == '"') break;
      if (c == '\\') {
        escaped = true;
        const char e = i + 1 < t_.size() ? t_[i + 1] : '\0';
        if (e == 'u') {
          const int32_t cp = hex4(t_, i + 2);
          if (cp < 0) return at_ = i, syntax("a \\u escape needs four hex digits"), std::nullopt;
          i += 6;
          if (cp >= 0xDC00 && cp <= 0xDFFF)
            return at_ = i - 6, syntax("a \\u escape of a lone low surrogate"), std::nullopt;
          if (cp >= 0xD800 && cp <= 0xDBFF) {
            const int32_t low = t_.substr(i, 2) == "\\u" ? hex4(t_, i + 2) : -1;
            if (low < 0xDC00 || low > 0xDFFF)
              return at_ = i - 6, syntax("a \\u escape of a high surrogate without its low surrogate"),
                     std::nullopt;
            i += 6;
          }
        } else if (e != '\0' && std::strchr("\"\\/bfnrt", e) != nullptr) {
          i += 2;
        } else {
          return at_ = i, syntax("an invalid escape in a string"), std::nullopt;
        }
      } else if (c < 0x20) {
        return at_ = i, syntax("a control character in a string (write it as an escape such as \\n)"),
               std::nullopt;
      } else {
        const size_t n = utf8_length(t_, i);
        if (n == 0) return at_ = i, syntax("invalid UTF-8 in a string"), std::nullopt;
        i += n;
      }
    }
    at_ = i + 1;
    return escaped;
  }

  bool number() {
    const size_t begin = at_;
    size_t i = at_;
    auto digits = [&] {
      const size_t from = i;
      while (i < t_.size() && is_digit(t_[i])) ++i;
      return i > from;
    };
    if (t_[i] == '-') ++i;
    if (i < t_.size() && t_[i] == '0')
      ++i;
    else if (!digits())
      return at_ = i, syntax("a number needs a digit here");
    if (i < t_.size() && t_[i] == '.' && (++i, !digits()))
      return at_ = i, syntax("a number needs a digit after its decimal point");
    bool exponent = false;
    if (i < t_.size() && (t_[i] == 'e' || t_[i] == 'E')) {
      exponent = true;
      ++i;
      if (i < t_.size() && (t_[i] == '+' || t_[i] == '-')) ++i;
      if (!digits()) return at_ = i, syntax("a number needs a digit in its exponent");
    }
    at_ = i;
    // Only an exponent or hundreds of digits can take a number past the double range.
    const std::string_view token = t_.substr(begin, i - begin);
    if ((exponent || token.size() > 300) && !std::isfinite(to_double(token)))
      return fail(path(), "the number " + std::string(token) + " is out of range");
    return true;
  }

  // The JSON path of the value being read.
  std::string path() const {
    std::string p;
    for (size_t d = 0; d < depth_; ++d) {
      const Frame& f = stack_[d];
      if (f.object) {
        if (!p.empty()) p += '.';
        p += f.key_escaped ? std::string(f.decoded.back()) : std::string(f.key);
      } else {
        p += "[" + std::to_string(f.index) + "]";
      }
    }
    return p.empty() ? "(root)" : p;
  }

  bool syntax(std::string what) {
    return fail("(root)", "invalid JSON at byte " + std::to_string(at_ + 1) + ": " + std::move(what));
  }
  bool fail(std::string p, std::string message) {
    if (!error_) error_ = Error{std::move(p), std::move(message)};
    return false;
  }

  std::string_view t_;
  size_t max_depth_;
  size_t at_ = 0;
  // A deque: opening a container adds a frame without moving the others, whose keys are views
  // into their own `decoded` strings (a vector would copy frames as it grows, leaving them dangling).
  std::deque<Frame> stack_;
  size_t depth_ = 0;
  std::optional<Error> error_;
};

}  // namespace

std::optional<Error> check(std::string_view text, size_t max_depth) {
  return Checker(text, max_depth).run();
}

Value::Value(std::string_view text, size_t at) : text_(text) {
  begin_ = skip_space(text, at);
  end_ = skip_value(text, begin_);
  switch (text[begin_]) {
    case '{': kind_ = Kind::Object; break;
    case '[': kind_ = Kind::Array; break;
    case '"': kind_ = Kind::String; break;
    case 't':
    case 'f': kind_ = Kind::Boolean; break;
    case 'n': kind_ = Kind::Null; break;
    default: kind_ = Kind::Number; break;
  }
}

std::string Value::string() const {
  return is_string() ? decode_string(text_, begin_) : std::string();
}

json Value::scalar() const {
  switch (kind_) {
    case Kind::Null: return json(nullptr);
    case Kind::Boolean: return json(text_[begin_] == 't');
    case Kind::String: return json(string());
    case Kind::Number: break;
    default: return json();
  }
  const std::string_view token = text();
  if (token.find_first_of(".eE") == std::string_view::npos) {
    // An integer token: exact when it fits 64 bits (the common case, without a float in sight).
    if (token == "-0") return json(-0.0);
    const char* end = token.data() + token.size();
    if (token[0] == '-') {
      int64_t v = 0;
      if (const auto r = std::from_chars(token.data(), end, v); r.ec == std::errc() && r.ptr == end)
        return json(v);
    } else {
      uint64_t v = 0;
      if (const auto r = std::from_chars(token.data(), end, v); r.ec == std::errc() && r.ptr == end)
        return json(v);
    }
  } else if (auto exact = integral_literal(token)) {
    return std::move(*exact);
  }
  return json(to_double(token));
}

size_t Value::size() const {
  size_t n = 0;
  if (is_array())
    for_each_element([&](size_t, const Value&) { ++n; });
  else if (is_object())
    for_each_member([&](const std::string&, const Value&) { ++n; });
  return n;
}

size_t Value::first_inner() const {
  if (!is_container()) return npos;
  const size_t at = skip_space(text_, begin_ + 1);
  return text_[at] == ']' || text_[at] == '}' ? npos : at;
}

size_t Value::next_inner(size_t after) const {
  const size_t at = skip_space(text_, after);
  return text_[at] == ',' ? skip_space(text_, at + 1) : npos;
}

size_t Value::after_colon(size_t after_key) const {
  return skip_space(text_, skip_space(text_, after_key) + 1);
}

}  // namespace dmlcert::json_text

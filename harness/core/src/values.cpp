#include "dmlcert/values.h"

#include <algorithm>
#include <atomic>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <variant>

namespace dmlcert {
namespace {

template <class T>
uint64_t bits_of(T v) {
  uint64_t b = 0;
  std::memcpy(&b, &v, sizeof(T));
  return b;
}

template <class T>
T narrow(double d) {
  if constexpr (std::is_same_v<T, half>)
    return round_to_half(d);
  else
    return static_cast<T>(d);
}

template <class T>
T default_quiet_nan() {
  if constexpr (std::is_same_v<T, half>)
    return Eigen::numext::bit_cast<half>(static_cast<uint16_t>(0x7e00));
  else
    return std::numeric_limits<T>::quiet_NaN();
}

std::string hex_bits(uint64_t bits, size_t bytes) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%0*llx", static_cast<int>(2 * bytes),
                static_cast<unsigned long long>(bits));
  return buf;
}

// The shortest decimal that printf's %.Ng would write for x (the same rounding and style) and that
// reads back, through `reads_back`, to the element. `start`: a count of significant digits below
// which none reads back, from the type's own shortest form (std::to_chars); N grows from there.
// to_chars and from_chars are printf and strtod without the locale and the buffers: this runs for
// every element of every case file written, so it is on the fuzz loop's path.
template <class ReadsBack>
std::pair<std::string, double> shortest_decimal(double x, int start, ReadsBack reads_back) {
  char buf[40];
  for (int digits = std::max(start, 1); digits <= 17; ++digits) {
    const auto end = std::to_chars(buf, buf + sizeof buf, x, std::chars_format::general, digits).ptr;
    double d = 0;
    std::from_chars(buf, end, d);
    if (reads_back(d)) return {std::string(buf, end), d};
  }
  const auto end = std::to_chars(buf, buf + sizeof buf, x).ptr;
  return {std::string(buf, end), x};
}

// The significant digits of v's shortest round-trip form in its own type (float, double).
template <class T>
int shortest_digits(T v) {
  char buf[40];
  const auto end = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific).ptr;
  int digits = 0;
  for (const char* p = buf; p != end && *p != 'e'; ++p) digits += *p >= '0' && *p <= '9';
  return digits;
}

// A float element: either a special spelling or a double that reads back to the same bits.
template <class T>
std::variant<std::string, int64_t, double> float_form(T v) {
  const double x = static_cast<double>(v);
  if (std::isnan(x)) {
    if (bits_of(v) == bits_of(default_quiet_nan<T>())) return std::string("nan");
    return hex_bits(bits_of(v), sizeof(T));  // a payload or a sign the reader must keep
  }
  if (std::isinf(x)) return std::string(x > 0 ? "inf" : "-inf");
  if (x == std::trunc(x) && std::fabs(x) <= 9007199254740992.0 && !(x == 0 && std::signbit(x)))
    return static_cast<int64_t>(x);
  auto reads_back = [v](double d) { return bits_of(narrow<T>(d)) == bits_of(v); };
  if constexpr (std::is_same_v<T, half>) {
    // FLOAT16 has no to_chars of its own, so its digits are searched from one up. There are only
    // 65536 values: each is searched once per process and kept (the search gives the same double
    // in every thread, so a race only repeats it).
    static std::atomic<uint64_t> known[1 << 16];
    std::atomic<uint64_t>& slot = known[bits_of(v)];
    // 0 means not yet known: no finite non-integral half has a double of all-zero bits.
    if (const uint64_t b = slot.load(std::memory_order_relaxed)) return std::bit_cast<double>(b);
    const double d = shortest_decimal(x, 1, reads_back).second;
    slot.store(std::bit_cast<uint64_t>(d), std::memory_order_relaxed);
    return d;
  } else {
    return shortest_decimal(x, shortest_digits(v), reads_back).second;
  }
}

std::string double_text(double d) {
  if (d == 0) return std::signbit(d) ? "-0.0" : "0";
  return shortest_decimal(d, shortest_digits(d), [d](double back) { return back == d; }).first;
}

template <class T>
std::string integer_range(DataType t) {
  const std::string n(name(t));
  return (n[0] == 'I' ? "an " : "a ") + n + " integer (" + std::to_string(std::numeric_limits<T>::min()) +
         ".." + std::to_string(std::numeric_limits<T>::max()) + ")";
}

// "0x..." gives an element's raw bit pattern (NaN payloads); any type may use it.
template <class T>
bool decode_bits(const std::string& s, std::byte* out) {
  if (s.size() < 3 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X') || s.size() - 2 > 2 * sizeof(T))
    return false;
  uint64_t bits = 0;
  for (size_t i = 2; i < s.size(); ++i) {
    const char c = s[i];
    const int d = c >= '0' && c <= '9'   ? c - '0'
                  : c >= 'a' && c <= 'f' ? c - 'a' + 10
                  : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                         : -1;
    if (d < 0) return false;
    bits = bits << 4 | static_cast<uint64_t>(d);
  }
  std::memcpy(out, &bits, sizeof(T));  // little-endian hosts: the low bytes hold the pattern
  return true;
}

// The exact value of an integral JSON number (the case reader turns integral float literals
// into integers exactly, from their text, so a float here is never an integer in disguise; -0.0
// is the one exception, and it is 0).
std::optional<__int128> exact_integer(const nlohmann::json& v) {
  if (v.is_number_unsigned()) return static_cast<__int128>(v.get<uint64_t>());
  if (v.is_number_integer()) return static_cast<__int128>(v.get<int64_t>());
  if (v.is_number_float() && v.get<double>() == 0) return 0;
  return std::nullopt;
}

}  // namespace

nlohmann::ordered_json element_json(DataType t, const std::byte* p) {
  return dispatch(t, [p](auto tag) -> nlohmann::ordered_json {
    using T = typename decltype(tag)::type;
    const T v = load<T>(p);
    if constexpr (is_float_v<T>)
      return std::visit([](const auto& f) { return nlohmann::ordered_json(f); }, float_form(v));
    else if constexpr (std::is_signed_v<T>)
      return static_cast<int64_t>(v);
    else
      return static_cast<uint64_t>(v);
  });
}

std::string element_text(DataType t, const std::byte* p) {
  return dispatch(t, [p](auto tag) -> std::string {
    using T = typename decltype(tag)::type;
    const T v = load<T>(p);
    if constexpr (is_float_v<T>) {
      const auto form = float_form(v);
      if (const auto* s = std::get_if<std::string>(&form)) return *s;
      if (const auto* i = std::get_if<int64_t>(&form)) return std::to_string(*i);
      return double_text(std::get<double>(form));
    } else {
      return std::to_string(v);
    }
  });
}

void append_element_json(std::string& out, DataType t, const std::byte* p) {
  char buf[64];
  dispatch(t, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T v = load<T>(p);
    if constexpr (is_float_v<T>) {
      const auto form = float_form(v);
      if (const auto* s = std::get_if<std::string>(&form)) {
        out += '"';
        out += *s;  // "nan", "inf", "-inf", "0x...": nothing to escape
        out += '"';
      } else if (const auto* i = std::get_if<int64_t>(&form)) {
        out.append(buf, std::to_chars(buf, buf + sizeof buf, *i).ptr);
      } else {
        // The routine nlohmann::json's dump() writes doubles with, so that this text and
        // element_json(t, p).dump() are the same bytes.
        out.append(buf, nlohmann::detail::to_chars(buf, buf + sizeof buf, std::get<double>(form)));
      }
    } else {
      out.append(buf, std::to_chars(buf, buf + sizeof buf, v).ptr);
    }
  });
}

void append_data_json(std::string& out, DataType t, const Bytes& logical) {
  const size_t es = element_size(t);
  out += '[';
  for (size_t i = 0; i + es <= logical.size(); i += es) {
    if (i) out += ',';
    append_element_json(out, t, logical.data() + i);
  }
  out += ']';
}

nlohmann::ordered_json data_json(DataType t, const Bytes& logical) {
  nlohmann::ordered_json a = nlohmann::ordered_json::array();
  const size_t es = element_size(t);
  for (size_t i = 0; i + es <= logical.size(); i += es) a.push_back(element_json(t, logical.data() + i));
  return a;
}

std::string data_text(DataType t, const Bytes& logical, size_t max_elements) {
  const size_t es = element_size(t);
  std::string s = "[";
  for (size_t i = 0, n = 0; i + es <= logical.size(); i += es, ++n) {
    if (n == max_elements) {
      s += ", ...";
      break;
    }
    s += (n ? ", " : "") + element_text(t, logical.data() + i);
  }
  return s + "]";
}

std::optional<std::string> decode_element(DataType type, const nlohmann::json& v, std::byte* out) {
  return dispatch(type, [&](auto tag) -> std::optional<std::string> {
    using T = typename decltype(tag)::type;
    const std::string_view tname = name(type);
    if (v.is_string()) {
      const std::string& s = v.get_ref<const std::string&>();
      if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        if (decode_bits<T>(s, out)) return std::nullopt;
        return "a " + std::string(tname) + " bit pattern of at most " + std::to_string(2 * sizeof(T)) +
               " hex digits";
      }
      if constexpr (is_float_v<T>) {
        if (s == "nan") {
          store<T>(out, default_quiet_nan<T>());
          return std::nullopt;
        }
        if (s == "inf" || s == "-inf") {
          const double inf = std::numeric_limits<double>::infinity();
          store<T>(out, narrow<T>(s == "inf" ? inf : -inf));
          return std::nullopt;
        }
      }
    }
    if constexpr (is_float_v<T>) {
      if (!v.is_number())
        return "a " + std::string(tname) + " number, \"nan\", \"inf\", \"-inf\" or a \"0x...\" bit pattern";
      // Round once from the JSON number to T: integers go straight to T (int64 -> double ->
      // float could round twice); FLOAT16 goes through round_to_half, never through float.
      T x;
      if constexpr (std::is_same_v<T, half>) {
        x = v.is_number_unsigned()  ? round_to_half(static_cast<double>(v.get<uint64_t>()))
            : v.is_number_integer() ? round_to_half(static_cast<double>(v.get<int64_t>()))
                                    : round_to_half(v.get<double>());
      } else {
        x = v.is_number_unsigned()  ? static_cast<T>(v.get<uint64_t>())
            : v.is_number_integer() ? static_cast<T>(v.get<int64_t>())
                                    : static_cast<T>(v.get<double>());
      }
      if (!std::isfinite(static_cast<double>(x)))
        return "a finite " + std::string(tname) +
               " value (this one rounds to infinity; write \"inf\" or \"-inf\")";
      store<T>(out, x);
      return std::nullopt;
    } else {
      const auto x = exact_integer(v);
      if (!x || *x < static_cast<__int128>(std::numeric_limits<T>::min()) ||
          *x > static_cast<__int128>(std::numeric_limits<T>::max()))
        return integer_range<T>(type);
      store<T>(out, static_cast<T>(*x));
      return std::nullopt;
    }
  });
}

}  // namespace dmlcert

// Writing a case in the canonical form of CASE_FORMAT.md: fixed key order, packed defaults left
// out, numbers that read back to the same bits (parse_case(to_json(c)) == c).
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>

#include "dmlcert/case.h"

namespace dmlcert {
namespace {

using ojson = nlohmann::ordered_json;

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

std::string hex_bits(uint64_t bits, size_t bytes) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%0*llx", static_cast<int>(2 * bytes),
                static_cast<unsigned long long>(bits));
  return buf;
}

// The float as the shortest decimal that reads back (rounded once to T) to the same bits.
// Integral values are written as integers ("3", not "3.0"): the reader converts those to T exactly.
template <class T>
ojson float_value(T v) {
  const double x = static_cast<double>(v);
  if (std::isnan(x)) {
    const T quiet = std::is_same_v<T, half> ? T(std::numeric_limits<float>::quiet_NaN())
                                            : static_cast<T>(std::numeric_limits<double>::quiet_NaN());
    if (bits_of(v) == bits_of(quiet)) return "nan";
    return hex_bits(bits_of(v), sizeof(T));  // a payload or a sign the reader must keep
  }
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  if (x == std::trunc(x) && std::fabs(x) <= 9007199254740992.0 && !(x == 0 && std::signbit(x)))
    return static_cast<int64_t>(x);
  for (int digits = 1; digits <= 17; ++digits) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.*g", digits, x);
    const double d = std::strtod(buf, nullptr);
    if (bits_of(narrow<T>(d)) == bits_of(v)) return d;
  }
  return x;
}

ojson element_value(DataType type, const std::byte* p) {
  return dispatch(type, [p](auto tag) -> ojson {
    using T = typename decltype(tag)::type;
    const T v = load<T>(p);
    if constexpr (is_float_v<T>)
      return float_value(v);
    else if constexpr (std::is_signed_v<T>)
      return static_cast<int64_t>(v);
    else
      return static_cast<uint64_t>(v);
  });
}

ojson data_array(DataType type, const Bytes& bytes) {
  ojson a = ojson::array();
  const size_t es = element_size(type);
  for (size_t i = 0; i + es <= bytes.size(); i += es) a.push_back(element_value(type, bytes.data() + i));
  return a;
}

ojson tensor_json(const TensorDesc& t, const Bytes* data) {
  ojson j = ojson::object();
  j["type"] = std::string(name(t.type));
  j["sizes"] = t.sizes;
  if (t.strides) j["strides"] = *t.strides;
  // Absent total_bytes reads as the minimum implied size (or 0 when that overflows).
  if (t.total_bytes != min_implied_bytes(t).value_or(0)) j["total_bytes"] = t.total_bytes;
  if (data) j["data"] = data_array(t.type, *data);
  return j;
}

ojson params_json(const OperatorDesc& desc) {
  return std::visit(
      [](const auto& d) -> ojson {
        using D = std::decay_t<decltype(d)>;
        ojson p = ojson::object();
        if constexpr (std::is_same_v<D, SliceDesc>) {
          p["offsets"] = d.offsets;
          p["sizes"] = d.sizes;
          p["strides"] = d.strides;
        } else if constexpr (std::is_same_v<D, Slice1Desc>) {
          p["input_window_offsets"] = d.input_window_offsets;
          p["input_window_sizes"] = d.input_window_sizes;
          p["input_window_strides"] = d.input_window_strides;
        } else if constexpr (std::is_same_v<D, ScatterNdDesc>) {
          p["input_dimension_count"] = d.input_dimension_count;
          p["indices_dimension_count"] = d.indices_dimension_count;
        } else if constexpr (std::is_same_v<D, ReduceDesc>) {
          if (is_valid(d.function))
            p["function"] = name(d.function);
          else
            p["function"] = static_cast<uint32_t>(d.function);  // an OP.FUNCTION case
          p["axes"] = d.axes;
        } else {
          p["axis"] = d.axis;
        }
        return p;
      },
      desc);
}

const Bytes* input_bytes(const InputData& d, Role r) {
  switch (r) {
    case Role::INPUT: return &d.input;
    case Role::INDICES: return &d.indices;
    case Role::UPDATES: return &d.updates;
    default: return nullptr;
  }
}

ojson case_object(const Case& c) {
  ojson j = ojson::object();
  j["format"] = 1;
  j["name"] = c.name;
  j["op"] = std::string(name(op_kind(c.op)));
  j["feature_level"] = std::string(name(c.level));
  j["params"] = params_json(c.op);
  ojson tensors = ojson::object();
  for (Role r : roles(op_kind(c.op)))
    tensors[std::string(name(r))] = tensor_json(*tensor(c.op, r), input_bytes(c.data, r));
  j["tensors"] = std::move(tensors);
  j["expect"] = std::string(name(c.expect));
  if (c.expected_output)
    j["expected_output"] = data_array(tensor(c.op, Role::OUTPUT)->type, *c.expected_output);
  if (!c.violates.empty()) j["violates"] = c.violates;
  if (c.tolerance) {
    ojson t = ojson::object();
    if (c.tolerance->ulp) t["ulp"] = *c.tolerance->ulp;
    if (c.tolerance->abs) t["abs"] = *c.tolerance->abs;
    if (c.tolerance->rel) t["rel"] = *c.tolerance->rel;
    j["tolerance"] = std::move(t);
  }
  if (!c.origin.empty()) j["origin"] = c.origin;
  return j;
}

// Pretty printing for people: a container that fits on its line stays on one line, long arrays
// of numbers wrap, everything else is indented by two.
constexpr size_t kWidth = 100;

std::string compact(const ojson& v) {
  if (v.is_primitive()) return v.dump(-1, ' ', false, ojson::error_handler_t::replace);
  std::string s = v.is_object() ? "{" : "[";
  bool first = true;
  if (v.is_object()) {
    for (const auto& [k, x] : v.items()) {
      s += (first ? "" : ", ") + ojson(k).dump() + ": " + compact(x);
      first = false;
    }
  } else {
    for (const auto& x : v) {
      s += (first ? "" : ", ") + compact(x);
      first = false;
    }
  }
  return s + (v.is_object() ? "}" : "]");
}

void pretty(const ojson& v, size_t indent, size_t used, std::string& out) {
  const std::string one_line = compact(v);
  if (v.is_primitive() || indent + used + one_line.size() <= kWidth || v.empty()) {
    out += one_line;
    return;
  }
  const std::string pad(indent + 2, ' ');
  bool scalars = v.is_array();
  for (const auto& x : v) scalars = scalars && x.is_primitive();
  if (scalars) {  // wrap numbers like text
    out += "[\n" + pad;
    size_t col = pad.size();
    for (size_t i = 0; i < v.size(); ++i) {
      std::string item = compact(v[i]) + (i + 1 < v.size() ? "," : "");
      if (col > pad.size() && col + 1 + item.size() > kWidth) {
        out += "\n" + pad;
        col = pad.size();
      } else if (col > pad.size()) {
        out += " ";
        ++col;
      }
      out += item;
      col += item.size();
    }
    out += '\n';
    out.append(indent, ' ');
    out += ']';
    return;
  }
  out += v.is_object() ? "{\n" : "[\n";
  size_t i = 0;
  if (v.is_object()) {
    for (const auto& [k, x] : v.items()) {
      const std::string key = ojson(k).dump() + ": ";
      out += pad + key;
      pretty(x, indent + 2, key.size(), out);
      out += ++i < v.size() ? ",\n" : "\n";
    }
  } else {
    for (const auto& x : v) {
      out += pad;
      pretty(x, indent + 2, 0, out);
      out += ++i < v.size() ? ",\n" : "\n";
    }
  }
  out.append(indent, ' ');
  out += v.is_object() ? '}' : ']';
}

}  // namespace

std::string to_json(const Case& c, bool pretty_print) {
  const ojson j = case_object(c);
  if (!pretty_print) return j.dump(-1, ' ', false, ojson::error_handler_t::replace);
  std::string out;
  // The root always opens up, one top-level field per line.
  out += "{\n";
  size_t i = 0;
  for (const auto& [k, x] : j.items()) {
    const std::string key = ojson(k).dump() + ": ";
    out += "  " + key;
    pretty(x, 2, key.size(), out);
    out += ++i < j.size() ? ",\n" : "\n";
  }
  out += "}\n";
  return out;
}

}  // namespace dmlcert

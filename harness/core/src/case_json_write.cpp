// Writing a case in the canonical form of docs/case-format.md: fixed key order, packed defaults left
// out, numbers that read back to the same bits (parse_case(to_json(c)) == c).
#include <charconv>
#include <nlohmann/json.hpp>

#include "dmlcert/case.h"
#include "dmlcert/values.h"

namespace dmlcert {
namespace {

using ojson = nlohmann::ordered_json;

// One parameter, by its C++ type (the declarations in dmlcert/ops/ say which).
template <class T>
ojson param_json(const T& v) {
  if constexpr (std::is_same_v<T, ReduceFunction>) {
    if (is_valid(v)) return name(v);
    return static_cast<uint32_t>(v);  // an OP.FUNCTION case
  } else {
    return v;
  }
}

ojson params_json(const OperatorDesc& desc) {
  ojson p = ojson::object();
  visit(desc, [&](const auto& d) {
    using D = std::decay_t<decltype(d)>;
    for_each_param_field<D>(
        [&](const auto& field) { p[std::string(field.key)] = param_json(d.*field.member); });
  });
  return p;
}

void append_dump(std::string& out, const ojson& v) {
  out += v.dump(-1, ' ', false, ojson::error_handler_t::replace);
}

template <class T>
void append_numbers(std::string& out, const std::vector<T>& v) {
  char buf[24];
  out += '[';
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) out += ',';
    out.append(buf, std::to_chars(buf, buf + sizeof buf, v[i]).ptr);
  }
  out += ']';
}

void append_tensor(std::string& out, const TensorDesc& t, const Bytes* data) {
  out += "{\"type\":\"";
  out += name(t.type);
  out += "\",\"sizes\":";
  append_numbers(out, t.sizes);
  if (t.strides) {
    out += ",\"strides\":";
    append_numbers(out, *t.strides);
  }
  // Absent total_bytes reads as the minimum implied size (or 0 when that overflows).
  if (t.total_bytes != min_implied_bytes(t).value_or(0)) {
    out += ",\"total_bytes\":";
    out += std::to_string(t.total_bytes);
  }
  if (data) {
    out += ",\"data\":";
    append_data_json(out, t.type, *data);
  }
  out += '}';
}

// The canonical form, compact: written directly rather than through a JSON tree, since an
// in-process run writes one for every case before it runs it (engine/in_flight.h). The bytes are
// those nlohmann::json's dump() gives for the same fields, in this order (a test holds it to that).
std::string compact_json(const Case& c) {
  std::string out;
  size_t data_bytes = c.expected_output ? c.expected_output->size() : 0;
  for (Role r : roles(op_kind(c.op)))
    if (is_input_role(r)) data_bytes += c.data.of(r).size();
  out.reserve(512 + 4 * data_bytes);
  out += "{\"format\":1,\"name\":";
  append_dump(out, c.name);
  out += ",\"op\":\"";
  out += name(op_kind(c.op));
  out += "\",\"feature_level\":\"";
  out += name(c.level);
  out += "\",\"params\":";
  append_dump(out, params_json(c.op));
  out += ",\"tensors\":{";
  bool first = true;
  for (Role r : roles(op_kind(c.op))) {
    out += first ? "\"" : ",\"";
    first = false;
    out += name(r);
    out += "\":";
    append_tensor(out, *tensor(c.op, r), is_input_role(r) ? &c.data.of(r) : nullptr);
  }
  out += "},\"expect\":\"";
  out += name(c.expect);
  out += '"';
  if (c.expected_output) {
    out += ",\"expected_output\":";
    append_data_json(out, tensor(c.op, Role::OUTPUT)->type, *c.expected_output);
  }
  if (!c.violates.empty()) {
    out += ",\"violates\":";
    append_dump(out, c.violates);
  }
  if (c.tolerance) {
    ojson t = ojson::object();
    if (c.tolerance->ulp) t["ulp"] = *c.tolerance->ulp;
    if (c.tolerance->abs) t["abs"] = *c.tolerance->abs;
    if (c.tolerance->rel) t["rel"] = *c.tolerance->rel;
    out += ",\"tolerance\":";
    append_dump(out, t);
  }
  if (!c.origin.empty()) {
    out += ",\"origin\":";
    append_dump(out, c.origin);
  }
  out += '}';
  return out;
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
  std::string compact = compact_json(c);
  if (!pretty_print) return compact;
  // For people: the same text, laid out. Its numbers read back to the same JSON numbers, which
  // dump() writes as they were.
  const ojson j = ojson::parse(compact);
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

// Writing a case in the canonical form of docs/case-format.md: fixed key order, packed defaults left
// out, numbers that read back to the same bits (parse_case(to_json(c)) == c).
#include <nlohmann/json.hpp>

#include "dmlcert/case.h"
#include "dmlcert/values.h"

namespace dmlcert {
namespace {

using ojson = nlohmann::ordered_json;

ojson tensor_json(const TensorDesc& t, const Bytes* data) {
  ojson j = ojson::object();
  j["type"] = std::string(name(t.type));
  j["sizes"] = t.sizes;
  if (t.strides) j["strides"] = *t.strides;
  // Absent total_bytes reads as the minimum implied size (or 0 when that overflows).
  if (t.total_bytes != min_implied_bytes(t).value_or(0)) j["total_bytes"] = t.total_bytes;
  if (data) j["data"] = data_json(t.type, *data);
  return j;
}

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

ojson case_object(const Case& c) {
  ojson j = ojson::object();
  j["format"] = 1;
  j["name"] = c.name;
  j["op"] = std::string(name(op_kind(c.op)));
  j["feature_level"] = std::string(name(c.level));
  j["params"] = params_json(c.op);
  ojson tensors = ojson::object();
  for (Role r : roles(op_kind(c.op)))
    tensors[std::string(name(r))] = tensor_json(*tensor(c.op, r), is_input_role(r) ? &c.data.of(r) : nullptr);
  j["tensors"] = std::move(tensors);
  j["expect"] = std::string(name(c.expect));
  if (c.expected_output)
    j["expected_output"] = data_json(tensor(c.op, Role::OUTPUT)->type, *c.expected_output);
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

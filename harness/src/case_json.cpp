// Reading one case from JSON text (docs/case-format.md). Every way a file can be malformed ends
// in one CaseError naming the JSON path and what was expected there; nothing here may crash on
// any input.
//
// A descriptor that breaks a rule is NOT malformed: array lengths, ranks, types and sizes are
// taken as written and left to the validator. Malformed means the file cannot describe a case at
// all: bad JSON, wrong JSON types, unknown names, numbers that do not fit their field, data that
// does not match its tensor.
#include <cmath>
#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>
#include <unordered_map>

#include "dmlcert/case.h"
#include "dmlcert/values.h"
#include "strict_json.h"

namespace dmlcert {
namespace {

using json = nlohmann::json;

// Thrown inside the reader, caught at its boundary and turned into a CaseError.
struct Malformed {
  std::string path;
  std::string message;
};

[[noreturn]] void fail(std::string path, std::string message) {
  throw Malformed{std::move(path), std::move(message)};
}

// A JSON value as an error message shows it after "got": scalars verbatim (shortened),
// containers by kind.
std::string describe(const json& v) {
  switch (v.type()) {
    case json::value_t::object: return "an object";
    case json::value_t::array: return "an array";
    case json::value_t::null: return "null";
    default: break;
  }
  std::string s = v.dump(-1, ' ', false, json::error_handler_t::replace);
  if (s.size() > 60) s = s.substr(0, 57) + "...";
  return s;
}

std::string join(const std::string& path, std::string_view key) {
  return path.empty() ? std::string(key) : path + "." + std::string(key);
}
std::string at(const std::string& path, size_t i) {
  return path + "[" + std::to_string(i) + "]";
}

template <class Names>
std::string quoted_list(const Names& names) {
  std::string s;
  for (const auto& n : names) s += (s.empty() ? "\"" : ", \"") + std::string(n) + "\"";
  return s;
}

// ---- scalars ---------------------------------------------------------------------------------

// Integers only: the strict reader has already turned integral float literals into integers.
template <class T>
T integer(const json& v, const std::string& path, std::string_view what) {
  __int128 x = 0;
  if (v.is_number_unsigned())
    x = v.get<uint64_t>();
  else if (v.is_number_integer())
    x = v.get<int64_t>();
  else if (!(v.is_number_float() && v.get<double>() == 0))  // -0.0 is 0
    fail(path, "expected " + std::string(what) + ", got " + describe(v));
  if (x < static_cast<__int128>(std::numeric_limits<T>::min()) ||
      x > static_cast<__int128>(std::numeric_limits<T>::max()))
    fail(path, "expected " + std::string(what) + ", got " + describe(v));
  return static_cast<T>(x);
}
uint32_t u32(const json& v, const std::string& path) {
  return integer<uint32_t>(v, path, "an unsigned 32-bit integer");
}
uint64_t u64(const json& v, const std::string& path) {
  return integer<uint64_t>(v, path, "an unsigned 64-bit integer");
}

const std::string& str(const json& v, const std::string& path, std::string_view what = "a string") {
  if (!v.is_string()) fail(path, "expected " + std::string(what) + ", got " + describe(v));
  return v.get_ref<const std::string&>();
}

// `what` names one element: "unsigned 32-bit integer".
template <class T>
std::vector<T> integer_array(const json& v, const std::string& path, std::string_view what) {
  if (!v.is_array()) fail(path, "expected an array of " + std::string(what) + "s, got " + describe(v));
  const std::string one = (what.starts_with("u") ? "an " : "a ") + std::string(what);
  std::vector<T> out;
  out.reserve(v.size());
  for (size_t i = 0; i < v.size(); ++i) out.push_back(integer<T>(v[i], at(path, i), one));
  return out;
}

// One parameter, by its C++ type (the declarations in dmlcert/ops/ say which).
void read_param(const json& v, const std::string& path, uint32_t& out) {
  out = u32(v, path);
}
void read_param(const json& v, const std::string& path, std::vector<uint32_t>& out) {
  out = integer_array<uint32_t>(v, path, "unsigned 32-bit integer");
}
void read_param(const json& v, const std::string& path, std::vector<int32_t>& out) {
  out = integer_array<int32_t>(v, path, "signed 32-bit integer");
}
void read_param(const json& v, const std::string& path, ReduceFunction& out) {
  if (v.is_string()) {
    if (auto f = parse_reduce_function(v.get_ref<const std::string&>())) {
      out = *f;
      return;
    }
  } else if (v.is_number_integer()) {
    // A raw DML_REDUCE_FUNCTION value: how a file states an OP.FUNCTION violation.
    out = static_cast<ReduceFunction>(u32(v, path));
    return;
  }
  std::vector<std::string> names;
  for (auto f : kAllReduceFunctions) names.push_back(name(f));
  fail(path, "expected one of " + quoted_list(names) + " or a raw unsigned 32-bit function value, got " +
                 describe(v));
}

// An object whose keys are a closed set (params, a tensor): an unknown key is almost always a
// typo that would otherwise silently change the case, so it is an error.
class Fields {
 public:
  Fields(const json& v, std::string path, const std::vector<std::string_view>& known, std::string_view what)
      : v_(v), path_(std::move(path)) {
    if (!v.is_object())
      fail(path_.empty() ? "(root)" : path_, "expected " + std::string(what) + ", got " + describe(v));
    for (const auto& [key, value] : v.items())
      if (std::find(known.begin(), known.end(), key) == known.end())
        fail(join(path_, key), "unknown field; expected one of " + quoted_list(known));
  }
  const json* optional(std::string_view key) const {
    auto it = v_.find(key);
    return it == v_.end() ? nullptr : &*it;
  }
  const json& required(std::string_view key) const {
    if (const json* p = optional(key)) return *p;
    fail(join(path_, key), "missing required field");
  }
  std::string path(std::string_view key) const { return join(path_, key); }

 private:
  const json& v_;
  std::string path_;
};

// ---- data ------------------------------------------------------------------------------------

std::string sizes_text(const Sizes& sizes) {
  std::string s = "[";
  for (size_t i = 0; i < sizes.size(); ++i) s += (i ? ", " : "") + std::to_string(sizes[i]);
  return s + "]";
}

// Logical row-major data for t; its length is checked against the sizes.
Bytes decode_data(const TensorDesc& t, const json& v, const std::string& path) {
  if (!v.is_array())
    fail(path, "expected an array of " + std::string(name(t.type)) + " values, got " + describe(v));
  const uint64_t count = element_count(t.sizes).value_or(0);  // sizes were checked already
  if (v.size() != count)
    fail(path, "expected " + std::to_string(count) + " elements for sizes " + sizes_text(t.sizes) + ", got " +
                   std::to_string(v.size()));
  const size_t es = element_size(t.type);
  Bytes out(v.size() * es);
  for (size_t i = 0; i < v.size(); ++i)
    if (auto expected = decode_element(t.type, v[i], out.data() + i * es))
      fail(at(path, i), "expected " + *expected + ", got " + describe(v[i]));
  return out;
}

// An input with 0 (or otherwise aliasing) strides still lists every logical element. Elements
// that share memory hold one value, so a file giving them different values cannot be loaded.
void check_aliased_elements(const TensorDesc& t, const Bytes& data, const std::string& path) {
  if (!t.strides || t.strides->size() != t.sizes.size() || !element_span(t)) return;
  const auto strides = effective_strides(t);
  const size_t es = element_size(t.type);
  std::unordered_map<uint64_t, uint64_t> first_at;  // memory offset -> first logical index there
  uint64_t i = 0;
  for_each_coord(t.sizes, [&](const Coord& c) {
    const uint64_t off = element_offset(c, strides);
    auto [it, inserted] = first_at.try_emplace(off, i);
    if (!inserted && std::memcmp(data.data() + it->second * es, data.data() + i * es, es) != 0)
      fail(at(path, i), "elements " + sizes_text(unravel(it->second, t.sizes)) + " and " +
                            sizes_text(unravel(i, t.sizes)) + " share memory (element offset " +
                            std::to_string(off) +
                            ") through the strides, so they must be equal, but they differ");
    ++i;
  });
}

// ---- tensors, params, the case ---------------------------------------------------------------

TensorDesc parse_tensor(const json& v, const std::string& path, bool input, Bytes* data) {
  Fields f(v, path, {"type", "sizes", "strides", "total_bytes", "data"}, "a tensor object");
  TensorDesc t;
  const auto type = parse_data_type(str(f.required("type"), f.path("type")));
  if (!type) {
    std::vector<std::string_view> names;
    for (DataType d : kAllDataTypes) names.push_back(name(d));
    fail(f.path("type"), "expected one of " + quoted_list(names) + ", got " + describe(f.required("type")));
  }
  t.type = *type;
  t.sizes = integer_array<uint32_t>(f.required("sizes"), f.path("sizes"), "unsigned 32-bit integer");
  if (!element_count(t.sizes)) fail(f.path("sizes"), "the element count overflows 64 bits");
  if (const json* s = f.optional("strides"))
    t.strides = integer_array<uint32_t>(*s, f.path("strides"), "unsigned 32-bit integer");
  if (const json* b = f.optional("total_bytes")) {
    t.total_bytes = u64(*b, f.path("total_bytes"));
  } else {
    // An oversized descriptor keeps 0 here; the validator then reports T.TOTAL_BYTES and
    // T.ELEMENT_LIMIT for it, which is what an invalid case is for.
    t.total_bytes = min_implied_bytes(t).value_or(0);
  }
  const json* d = f.optional("data");
  if (input) {
    if (!d) fail(f.path("data"), "missing required field (input tensors list their data)");
    *data = decode_data(t, *d, f.path("data"));
    check_aliased_elements(t, *data, f.path("data"));
  } else if (d) {
    fail(f.path("data"), "output tensors take no data; a valid case's result goes in expected_output");
  }
  return t;
}

void parse_params(OperatorDesc& desc, const json& v, const std::string& path) {
  visit(desc, [&](auto& d) {
    using D = std::decay_t<decltype(d)>;
    std::vector<std::string_view> keys;
    for_each_param_field<D>([&](const auto& field) { keys.push_back(field.key); });
    const Fields f(v, path, keys, "an object of " + std::string(D::kInfo.name) + " parameters");
    for_each_param_field<D>(
        [&](const auto& field) { read_param(f.required(field.key), f.path(field.key), d.*field.member); });
  });
}

void parse_tensors(OperatorDesc& desc, InputData& data, const json& v, const std::string& path) {
  const auto rs = roles(op_kind(desc));
  std::vector<std::string_view> role_names;
  for (Role r : rs) role_names.push_back(name(r));
  const Fields f(v, path, role_names, "an object of tensors");
  for (Role r : rs)
    *tensor(desc, r) = parse_tensor(f.required(name(r)), f.path(name(r)), is_input_role(r), &data.of(r));
}

Tolerance parse_tolerance(const json& v, const std::string& path) {
  const Fields f(v, path, {"ulp", "abs", "rel"},
                 "a tolerance object, {\"ulp\": N} or {\"abs\": x, \"rel\": y}");
  Tolerance t;
  auto non_negative = [&](std::string_view key) -> std::optional<double> {
    const json* x = f.optional(key);
    if (!x) return std::nullopt;
    if (!x->is_number() || !(x->get<double>() >= 0) || !std::isfinite(x->get<double>()))
      fail(f.path(key), "expected a finite non-negative number, got " + describe(*x));
    return x->get<double>();
  };
  if (const json* u = f.optional("ulp")) t.ulp = u64(*u, f.path("ulp"));
  t.abs = non_negative("abs");
  t.rel = non_negative("rel");
  if (t.ulp && (t.abs || t.rel))
    fail(path, "expected either {\"ulp\": N} or {\"abs\": x, \"rel\": y}, not both");
  if (!t.ulp && !t.abs && !t.rel) fail(path, "expected {\"ulp\": N} or {\"abs\": x, \"rel\": y}, got {}");
  return t;
}

Case parse_root(const json& root) {
  if (!root.is_object()) fail("(root)", "expected a JSON object (one case), got " + describe(root));
  // Unknown top-level keys are ignored: newer writers may add fields this reader predates.
  auto optional = [&](std::string_view key) -> const json* {
    auto it = root.find(key);
    return it == root.end() ? nullptr : &*it;
  };
  auto required = [&](std::string_view key) -> const json& {
    if (const json* p = optional(key)) return *p;
    fail(std::string(key), "missing required field");
  };

  Case c;
  if (const json* f = optional("format"))
    if (!f->is_number_integer() || f->get<int64_t>() != 1)
      fail("format", "expected 1 (the only format version), got " + describe(*f));
  if (const json* n = optional("name")) c.name = str(*n, "name");
  if (const json* o = optional("origin")) c.origin = str(*o, "origin");

  const json& op_json = required("op");
  const auto op = parse_op(str(op_json, "op"));
  if (!op) {
    std::vector<std::string_view> names;
    for (OpKind k : all_ops()) names.push_back(name(k));
    fail("op", "expected one of " + quoted_list(names) + ", got " + describe(op_json));
  }
  c.op = make_desc(*op);

  if (const json* l = optional("feature_level")) {
    const auto level = parse_feature_level(str(*l, "feature_level"));
    if (!level) {
      std::vector<std::string_view> names;
      for (int i = 0; i < kFeatureLevelCount; ++i) names.push_back(name(static_cast<FeatureLevel>(i)));
      fail("feature_level", "expected one of " + quoted_list(names) + ", got " + describe(*l));
    }
    c.level = *level;
  }

  const json& expect = required("expect");
  const std::string& e = str(expect, "expect");
  if (e == "valid")
    c.expect = CaseClass::Valid;
  else if (e == "invalid")
    c.expect = CaseClass::Invalid;
  else if (e == "unspecified")
    c.expect = CaseClass::Unspecified;
  else
    fail("expect", "expected one of \"valid\", \"invalid\", \"unspecified\", got " + describe(expect));

  parse_params(c.op, required("params"), "params");
  parse_tensors(c.op, c.data, required("tensors"), "tensors");

  if (const json* x = optional("expected_output")) {
    if (c.expect != CaseClass::Valid)
      fail("expected_output", "only a valid case has an expected output (expect is \"" + e + "\")");
    c.expected_output = decode_data(*tensor(c.op, Role::OUTPUT), *x, "expected_output");
  }
  if (const json* v = optional("violates")) {
    // Unknown rule IDs are not malformed (a newer catalog may have them); corpora are checked
    // against the catalog separately.
    if (!v->is_array()) fail("violates", "expected an array of rule ID strings, got " + describe(*v));
    for (size_t i = 0; i < v->size(); ++i)
      c.violates.push_back(str((*v)[i], at("violates", i), "a rule ID string"));
    if (c.expect == CaseClass::Valid && !c.violates.empty())
      fail("violates", "a valid case violates no rule; use expect \"invalid\" or \"unspecified\"");
  }
  if (const json* t = optional("tolerance")) c.tolerance = parse_tolerance(*t, "tolerance");
  return c;
}

// A file nested thousands deep is garbage in any case, and refusing it keeps every later
// recursive walk shallow.
constexpr size_t kMaxDepth = 64;

}  // namespace

std::optional<Case> parse_case(std::string_view json_text, std::string_view file, CaseError* error) {
  auto report = [&](std::string path, std::string message) -> std::optional<Case> {
    if (error) *error = CaseError{std::string(file), std::move(path), std::move(message)};
    return std::nullopt;
  };
  try {
    if (json_text.find_first_not_of(" \t\r\n") == std::string_view::npos)
      return report("(root)", "empty; expected a JSON object (one case)");
    auto parsed = strict_json::parse(json_text, kMaxDepth);
    if (auto* e = std::get_if<strict_json::Error>(&parsed)) return report(e->path, e->message);
    return parse_root(std::get<json>(parsed));
  } catch (const Malformed& m) {
    return report(m.path, m.message);
  } catch (const std::exception& e) {
    return report("(root)", std::string("cannot read the case: ") + e.what());
  }
}

}  // namespace dmlcert

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
#include "dmlcert/strided_dims.h"
#include "dmlcert/values.h"
#include "json_text.h"

namespace dmlcert {
namespace {

using json = nlohmann::json;
using json_text::Value;

// Thrown inside the reader, caught at its boundary and turned into a CaseError.
struct Malformed {
  std::string path;
  std::string message;
};

[[noreturn]] void fail(std::string path, std::string message) {
  throw Malformed{std::move(path), std::move(message)};
}

// A JSON value as an error message shows it after "got": scalars as the file writes them
// (shortened), containers by kind.
std::string describe(const Value& v) {
  if (v.is_object()) return "an object";
  if (v.is_array()) return "an array";
  std::string s(v.text().substr(0, 60));
  if (v.text().size() > 60) s = s.substr(0, 57) + "...";
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

// Integers only: Value::scalar() gives integral float literals as exact integers.
template <class T>
T integer(const Value& value, const std::string& path, std::string_view what) {
  const json v = value.scalar();
  __int128 x = 0;
  if (v.is_number_unsigned())
    x = v.get<uint64_t>();
  else if (v.is_number_integer())
    x = v.get<int64_t>();
  else if (!(v.is_number_float() && v.get<double>() == 0))  // -0.0 is 0
    fail(path, "expected " + std::string(what) + ", got " + describe(value));
  if (x < static_cast<__int128>(std::numeric_limits<T>::min()) ||
      x > static_cast<__int128>(std::numeric_limits<T>::max()))
    fail(path, "expected " + std::string(what) + ", got " + describe(value));
  return static_cast<T>(x);
}
uint32_t u32(const Value& v, const std::string& path) {
  return integer<uint32_t>(v, path, "an unsigned 32-bit integer");
}
uint64_t u64(const Value& v, const std::string& path) {
  return integer<uint64_t>(v, path, "an unsigned 64-bit integer");
}

std::string str(const Value& v, const std::string& path, std::string_view what = "a string") {
  if (!v.is_string()) fail(path, "expected " + std::string(what) + ", got " + describe(v));
  return v.string();
}

// `what` names one element: "unsigned 32-bit integer".
template <class T>
std::vector<T> integer_array(const Value& v, const std::string& path, std::string_view what) {
  if (!v.is_array()) fail(path, "expected an array of " + std::string(what) + "s, got " + describe(v));
  const std::string one = (what.starts_with("u") ? "an " : "a ") + std::string(what);
  std::vector<T> out;
  out.reserve(v.size());
  v.for_each_element([&](size_t i, const Value& e) { out.push_back(integer<T>(e, at(path, i), one)); });
  return out;
}

// One parameter, by its C++ type (the declarations in dmlcert/ops/ say which).
void read_param(const Value& v, const std::string& path, uint32_t& out) {
  out = u32(v, path);
}
void read_param(const Value& v, const std::string& path, std::vector<uint32_t>& out) {
  out = integer_array<uint32_t>(v, path, "unsigned 32-bit integer");
}
void read_param(const Value& v, const std::string& path, std::vector<int32_t>& out) {
  out = integer_array<int32_t>(v, path, "signed 32-bit integer");
}
void read_param(const Value& v, const std::string& path, ReduceFunction& out) {
  if (v.is_string()) {
    if (auto f = parse_reduce_function(v.string())) {
      out = *f;
      return;
    }
  } else if (v.scalar().is_number_integer()) {
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
// An object's members, looked up by key. Only known keys are kept; an unknown one is an error
// unless the object is open to fields a newer writer may add (the root).
enum class Unknown { Error, Ignored };
class Fields {
 public:
  Fields(const Value& v, std::string path, const std::vector<std::string_view>& known, std::string_view what,
         Unknown unknown = Unknown::Error)
      : path_(std::move(path)) {
    if (!v.is_object())
      fail(path_.empty() ? "(root)" : path_, "expected " + std::string(what) + ", got " + describe(v));
    v.for_each_member([&](std::string key, const Value& value) {
      if (std::find(known.begin(), known.end(), key) != known.end())
        members_.emplace_back(std::move(key), value);
      else if (unknown == Unknown::Error)
        fail(join(path_, key), "unknown field; expected one of " + quoted_list(known));
    });
  }
  const Value* optional(std::string_view key) const {
    for (const auto& [k, v] : members_)
      if (k == key) return &v;
    return nullptr;
  }
  const Value& required(std::string_view key) const {
    if (const Value* p = optional(key)) return *p;
    fail(join(path_, key), "missing required field");
  }
  std::string path(std::string_view key) const { return join(path_, key); }

 private:
  std::string path_;
  std::vector<std::pair<std::string, Value>> members_;
};

// ---- data ------------------------------------------------------------------------------------

std::string sizes_text(const Sizes& sizes) {
  std::string s = "[";
  for (size_t i = 0; i < sizes.size(); ++i) s += (i ? ", " : "") + std::to_string(sizes[i]);
  return s + "]";
}

// Logical row-major data for t; its length is checked against the sizes. Each element is
// decoded from the text straight into its place (docs/design.md, "Memory").
Bytes decode_data(const TensorDesc& t, const Value& v, const std::string& path) {
  if (!v.is_array())
    fail(path, "expected an array of " + std::string(name(t.type)) + " values, got " + describe(v));
  const uint64_t count = element_count(t.sizes).value_or(0);  // sizes were checked already
  const size_t es = element_size(t.type);
  // One pass: decode while counting; a wrong count is reported before a wrong element.
  // Every element takes at least a byte of text: a count past that cannot be what is listed.
  const bool fits = count <= v.text().size();
  Bytes out(fits ? count * es : 0);
  uint64_t listed = 0;
  std::optional<Malformed> bad_element;
  v.for_each_element([&](size_t i, const Value& e) {
    ++listed;
    if (bad_element || !fits || i >= count) return;
    if (auto expected = decode_element(t.type, e.scalar(), out.data() + i * es))
      bad_element = Malformed{at(path, i), "expected " + *expected + ", got " + describe(e)};
  });
  if (listed != count)
    fail(path, "expected " + std::to_string(count) + " elements for sizes " + sizes_text(t.sizes) + ", got " +
                   std::to_string(listed));
  if (bad_element) throw std::move(*bad_element);
  return out;
}

// An input with 0 (or otherwise aliasing) strides still lists every logical element. Elements
// that share memory hold one value, so a file giving them different values cannot be loaded.
void check_aliased_elements(const TensorDesc& t, const Bytes& data, const std::string& path) {
  if (const auto c = shared_element_conflict(t, data))
    fail(at(path, c->second), "elements " + sizes_text(unravel(c->first, t.sizes)) + " and " +
                                  sizes_text(unravel(c->second, t.sizes)) + " share memory (element offset " +
                                  std::to_string(c->offset) +
                                  ") through the strides, so they must be equal, but they differ");
}

// ---- tensors, params, the case ---------------------------------------------------------------

TensorDesc parse_tensor(const Value& v, const std::string& path, bool input, Bytes* data) {
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
  if (const Value* s = f.optional("strides"))
    t.strides = integer_array<uint32_t>(*s, f.path("strides"), "unsigned 32-bit integer");
  if (const Value* b = f.optional("total_bytes")) {
    t.total_bytes = u64(*b, f.path("total_bytes"));
  } else {
    // An oversized descriptor keeps 0 here; the validator then reports T.TOTAL_BYTES and
    // T.ELEMENT_LIMIT for it, which is what an invalid case is for.
    t.total_bytes = min_implied_bytes(t).value_or(0);
  }
  const Value* d = f.optional("data");
  if (input) {
    if (!d) fail(f.path("data"), "missing required field (input tensors list their data)");
    *data = decode_data(t, *d, f.path("data"));
    check_aliased_elements(t, *data, f.path("data"));
  } else if (d) {
    fail(f.path("data"), "output tensors take no data; a valid case's result goes in expected_output");
  }
  return t;
}

void parse_params(OperatorDesc& desc, const Value& v, const std::string& path) {
  visit(desc, [&](auto& d) {
    using D = std::decay_t<decltype(d)>;
    std::vector<std::string_view> keys;
    for_each_param_field<D>([&](const auto& field) { keys.push_back(field.key); });
    const Fields f(v, path, keys, "an object of " + std::string(D::kInfo.name) + " parameters");
    for_each_param_field<D>(
        [&](const auto& field) { read_param(f.required(field.key), f.path(field.key), d.*field.member); });
  });
}

void parse_tensors(OperatorDesc& desc, InputData& data, const Value& v, const std::string& path) {
  const auto rs = roles(op_kind(desc));
  std::vector<std::string_view> role_names;
  for (Role r : rs) role_names.push_back(name(r));
  const Fields f(v, path, role_names, "an object of tensors");
  for (Role r : rs)
    *tensor(desc, r) = parse_tensor(f.required(name(r)), f.path(name(r)), is_input_role(r), &data.of(r));
}

Tolerance parse_tolerance(const Value& v, const std::string& path) {
  const Fields f(v, path, {"ulp", "abs", "rel"},
                 "a tolerance object, {\"ulp\": N} or {\"abs\": x, \"rel\": y}");
  Tolerance t;
  auto non_negative = [&](std::string_view key) -> std::optional<double> {
    const Value* x = f.optional(key);
    if (!x) return std::nullopt;
    const json n = x->scalar();
    if (!n.is_number() || !(n.get<double>() >= 0) || !std::isfinite(n.get<double>()))
      fail(f.path(key), "expected a finite non-negative number, got " + describe(*x));
    return n.get<double>();
  };
  if (const Value* u = f.optional("ulp")) t.ulp = u64(*u, f.path("ulp"));
  t.abs = non_negative("abs");
  t.rel = non_negative("rel");
  if (t.ulp && (t.abs || t.rel))
    fail(path, "expected either {\"ulp\": N} or {\"abs\": x, \"rel\": y}, not both");
  if (!t.ulp && !t.abs && !t.rel) fail(path, "expected {\"ulp\": N} or {\"abs\": x, \"rel\": y}, got {}");
  return t;
}

Case parse_root(const Value& root) {
  // Unknown top-level keys are ignored: newer writers may add fields this reader predates.
  const Fields fields(root, "",
                      {"format", "name", "origin", "op", "feature_level", "expect", "params", "tensors",
                       "expected_output", "violates", "tolerance"},
                      "a JSON object (one case)", Unknown::Ignored);
  auto optional = [&](std::string_view key) { return fields.optional(key); };
  auto required = [&](std::string_view key) -> const Value& { return fields.required(key); };

  Case c;
  if (const Value* f = optional("format")) {
    const json n = f->scalar();
    if (!n.is_number_integer() || n.get<int64_t>() != 1)
      fail("format", "expected 1 (the only format version), got " + describe(*f));
  }
  if (const Value* n = optional("name")) c.name = str(*n, "name");
  if (const Value* o = optional("origin")) c.origin = str(*o, "origin");

  const Value& op_json = required("op");
  const auto op = parse_op(str(op_json, "op"));
  if (!op) {
    std::vector<std::string_view> names;
    for (OpKind k : all_ops()) names.push_back(name(k));
    fail("op", "expected one of " + quoted_list(names) + ", got " + describe(op_json));
  }
  c.op = make_desc(*op);

  if (const Value* l = optional("feature_level")) {
    const auto level = parse_feature_level(str(*l, "feature_level"));
    if (!level) {
      std::vector<std::string_view> names;
      for (int i = 0; i < kFeatureLevelCount; ++i) names.push_back(name(static_cast<FeatureLevel>(i)));
      fail("feature_level", "expected one of " + quoted_list(names) + ", got " + describe(*l));
    }
    c.level = *level;
  }

  const Value& expect = required("expect");
  const std::string e = str(expect, "expect");
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

  if (const Value* x = optional("expected_output")) {
    if (c.expect != CaseClass::Valid)
      fail("expected_output", "only a valid case has an expected output (expect is \"" + e + "\")");
    c.expected_output = decode_data(*tensor(c.op, Role::OUTPUT), *x, "expected_output");
  }
  if (const Value* v = optional("violates")) {
    // Unknown rule IDs are not malformed (a newer catalog may have them); corpora are checked
    // against the catalog separately.
    if (!v->is_array()) fail("violates", "expected an array of rule ID strings, got " + describe(*v));
    v->for_each_element([&](size_t i, const Value& id) {
      c.violates.push_back(str(id, at("violates", i), "a rule ID string"));
    });
    if (c.expect == CaseClass::Valid && !c.violates.empty())
      fail("violates", "a valid case violates no rule; use expect \"invalid\" or \"unspecified\"");
  }
  if (const Value* t = optional("tolerance")) c.tolerance = parse_tolerance(*t, "tolerance");
  return c;
}

// A file nested thousands deep is garbage in any case, and refusing it keeps every later
// recursive walk shallow.
constexpr size_t kMaxDepth = 64;

}  // namespace

std::optional<Case> parse_case(std::string_view text, std::string_view file, CaseError* error) {
  auto report = [&](std::string path, std::string message) -> std::optional<Case> {
    if (error) *error = CaseError{std::string(file), std::move(path), std::move(message)};
    return std::nullopt;
  };
  try {
    if (text.find_first_not_of(" \t\r\n") == std::string_view::npos)
      return report("(root)", "empty; expected a JSON object (one case)");
    if (auto e = json_text::check(text, kMaxDepth)) return report(e->path, e->message);
    return parse_root(Value::root(text));
  } catch (const Malformed& m) {
    return report(m.path, m.message);
  } catch (const std::exception& e) {
    return report("(root)", std::string("cannot read the case: ") + e.what());
  }
}

}  // namespace dmlcert

// Reading one case from JSON text (CASE_FORMAT.md). Every way a file can be malformed ends in one
// CaseError naming the JSON path and what was expected there; nothing here may crash on any input.
//
// A descriptor that breaks a rule is NOT malformed: array lengths, ranks, types and sizes are
// taken as written and left to the validator. Malformed means the file cannot describe a case at
// all: bad JSON, wrong JSON types, unknown names, numbers that do not fit their field, data that
// does not match its tensor.
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <unordered_map>

#include "case_json_codec.h"
#include "dmlcert/case.h"

namespace dmlcert {
namespace {

using json = nlohmann::json;
using case_json::describe;
using case_json::Malformed;

[[noreturn]] void fail(std::string path, std::string message) {
  throw Malformed{std::move(path), std::move(message)};
}

std::string join(const std::string& path, std::string_view key) {
  return path.empty() ? std::string(key) : path + "." + std::string(key);
}
std::string at(const std::string& path, size_t i) {
  return path + "[" + std::to_string(i) + "]";
}

std::string quoted_list(std::span<const std::string_view> names) {
  std::string s;
  for (size_t i = 0; i < names.size(); ++i) s += (i ? ", \"" : "\"") + std::string(names[i]) + "\"";
  return s;
}

// ---- scalars ---------------------------------------------------------------------------------

template <class T>
T integer(const json& v, const std::string& path, std::string_view what) {
  const auto x = case_json::exact_integer(v);
  if (!x || *x < static_cast<__int128>(std::numeric_limits<T>::min()) ||
      *x > static_cast<__int128>(std::numeric_limits<T>::max()))
    fail(path, "expected " + std::string(what) + ", got " + describe(v));
  return static_cast<T>(*x);
}
uint32_t u32(const json& v, const std::string& path) {
  return integer<uint32_t>(v, path, "an unsigned 32-bit integer");
}
int32_t i32(const json& v, const std::string& path) {
  return integer<int32_t>(v, path, "a signed 32-bit integer");
}
uint64_t u64(const json& v, const std::string& path) {
  return integer<uint64_t>(v, path, "an unsigned 64-bit integer");
}

const std::string& str(const json& v, const std::string& path, std::string_view what = "a string") {
  if (!v.is_string()) fail(path, "expected " + std::string(what) + ", got " + describe(v));
  return v.get_ref<const std::string&>();
}

const json& array(const json& v, const std::string& path, std::string_view what = "an array") {
  if (!v.is_array()) fail(path, "expected " + std::string(what) + ", got " + describe(v));
  return v;
}

template <class T, class F>
std::vector<T> array_of(const json& v, const std::string& path, std::string_view what, F element) {
  array(v, path, what);
  std::vector<T> out;
  out.reserve(v.size());
  for (size_t i = 0; i < v.size(); ++i) out.push_back(element(v[i], at(path, i)));
  return out;
}
std::vector<uint32_t> u32_array(const json& v, const std::string& path) {
  return array_of<uint32_t>(v, path, "an array of unsigned 32-bit integers", u32);
}

// An object whose keys are a closed set (params, a tensor): an unknown key is almost always a
// typo that would otherwise silently change the case, so it is an error.
class Fields {
 public:
  Fields(const json& v, std::string path, std::vector<std::string_view> known, std::string_view what)
      : v_(v), path_(std::move(path)) {
    if (!v.is_object()) fail(path_, "expected " + std::string(what) + ", got " + describe(v));
    for (const auto& [key, value] : v.items()) {
      bool ok = false;
      for (auto k : known) ok = ok || k == key;
      if (!ok) fail(join(path_, key), "unknown field; expected one of " + quoted_list(known));
    }
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

// ---- data elements ---------------------------------------------------------------------------

template <class T>
std::string type_range(DataType t) {
  const std::string n(name(t));
  return (n[0] == 'I' ? "an " : "a ") + n + " integer (" + std::to_string(std::numeric_limits<T>::min()) +
         ".." + std::to_string(std::numeric_limits<T>::max()) + ")";
}

// "0x..." gives an element's raw bit pattern (used for NaN payloads); any type may use it.
template <class T>
bool decode_bits(const std::string& s, std::byte* out) {
  if (s.size() < 3 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X') || s.size() - 2 > 2 * sizeof(T))
    return false;
  uint64_t bits = 0;
  for (size_t i = 2; i < s.size(); ++i) {
    const char c = s[i];
    int d = c >= '0' && c <= '9'   ? c - '0'
            : c >= 'a' && c <= 'f' ? c - 'a' + 10
            : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                   : -1;
    if (d < 0) return false;
    bits = bits << 4 | static_cast<uint64_t>(d);
  }
  // Little-endian hosts only (as the rest of the harness): the low bytes hold the pattern.
  std::memcpy(out, &bits, sizeof(T));
  return true;
}

template <class T>
T float_from_json(const json& v) {
  // Round once from the JSON number to T. Integers go straight to T (int64 -> double -> float
  // could round twice); FLOAT16 goes through round_to_half, never through float.
  if constexpr (std::is_same_v<T, half>) {
    if (v.is_number_integer() && !v.is_number_unsigned())
      return round_to_half(static_cast<double>(v.get<int64_t>()));
    if (v.is_number_unsigned()) return round_to_half(static_cast<double>(v.get<uint64_t>()));
    return round_to_half(v.get<double>());
  } else {
    if (v.is_number_unsigned()) return static_cast<T>(v.get<uint64_t>());
    if (v.is_number_integer()) return static_cast<T>(v.get<int64_t>());
    return static_cast<T>(v.get<double>());
  }
}

void decode_element(DataType type, const json& v, const std::string& path, std::byte* out) {
  dispatch(type, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if (v.is_string()) {
      const std::string& s = v.get_ref<const std::string&>();
      if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        if (!decode_bits<T>(s, out))
          fail(path, "expected a " + std::string(name(type)) + " bit pattern of at most " +
                         std::to_string(2 * sizeof(T)) + " hex digits, got " + describe(v));
        return;
      }
      if constexpr (is_float_v<T>) {
        if (s == "nan") {
          // The default quiet NaN of each type; other NaNs are written as bit patterns.
          if constexpr (std::is_same_v<T, half>)
            decode_bits<T>("0x7e00", out);
          else
            store<T>(out, std::numeric_limits<T>::quiet_NaN());
          return;
        }
        if (s == "inf" || s == "-inf") {
          const float inf = std::numeric_limits<float>::infinity();
          store<T>(out, static_cast<T>(s == "inf" ? inf : -inf));
          return;
        }
      }
    }
    if constexpr (is_float_v<T>) {
      if (!v.is_number())
        fail(path, "expected a " + std::string(name(type)) +
                       " number, \"nan\", \"inf\", \"-inf\" or a \"0x...\" bit pattern, got " + describe(v));
      const T x = float_from_json<T>(v);
      if (!std::isfinite(static_cast<double>(x)))
        fail(path, "expected a finite " + std::string(name(type)) + " value, got " + describe(v) +
                       ", which rounds to infinity (write \"inf\" or \"-inf\")");
      store<T>(out, x);
    } else {
      store<T>(out, integer<T>(v, path, type_range<T>(type)));
    }
  });
}

std::string sizes_text(const Sizes& sizes) {
  std::string s = "[";
  for (size_t i = 0; i < sizes.size(); ++i) s += (i ? ", " : "") + std::to_string(sizes[i]);
  return s + "]";
}
std::string coord_text(uint64_t flat, const Sizes& sizes) {
  Coord c(sizes.size());
  for (size_t i = sizes.size(); i-- > 0;) {
    c[i] = static_cast<uint32_t>(flat % sizes[i]);
    flat /= sizes[i];
  }
  return sizes_text(c);
}

// Logical row-major data for t; its length is checked against the sizes.
Bytes decode_data(const TensorDesc& t, const json& v, const std::string& path) {
  array(v, path, "an array of " + std::string(name(t.type)) + " values");
  const uint64_t count = element_count(t.sizes).value_or(0);  // sizes were checked already
  if (v.size() != count)
    fail(path, "expected " + std::to_string(count) + " elements for sizes " + sizes_text(t.sizes) + ", got " +
                   std::to_string(v.size()));
  const size_t es = element_size(t.type);
  Bytes out(v.size() * es);
  for (size_t i = 0; i < v.size(); ++i) decode_element(t.type, v[i], at(path, i), out.data() + i * es);
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
      fail(at(path, i), "elements " + coord_text(it->second, t.sizes) + " and " + coord_text(i, t.sizes) +
                            " share memory (element offset " + std::to_string(off) +
                            ") through the strides, so they must be equal, but they differ");
    ++i;
  });
}

// ---- tensors, params, the case ---------------------------------------------------------------

constexpr std::string_view kTypeNames[] = {"FLOAT64", "FLOAT32", "FLOAT16", "INT64",  "INT32", "INT16",
                                           "INT8",    "UINT64",  "UINT32",  "UINT16", "UINT8"};

TensorDesc parse_tensor(const json& v, const std::string& path, bool input, Bytes* data) {
  Fields f(v, path, {"type", "sizes", "strides", "total_bytes", "data"}, "a tensor object");
  TensorDesc t;
  const auto type = parse_data_type(str(f.required("type"), f.path("type")));
  if (!type)
    fail(f.path("type"),
         "expected one of " + quoted_list(kTypeNames) + ", got " + describe(f.required("type")));
  t.type = *type;
  t.sizes = u32_array(f.required("sizes"), f.path("sizes"));
  if (!element_count(t.sizes)) fail(f.path("sizes"), "the element count overflows 64 bits");
  if (const json* s = f.optional("strides")) t.strides = u32_array(*s, f.path("strides"));
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

OperatorDesc make_desc(OpKind op) {
  switch (op) {
    case OpKind::SLICE: return SliceDesc{};
    case OpKind::SLICE1: return Slice1Desc{};
    case OpKind::SCATTER_ND: return ScatterNdDesc{};
    case OpKind::REDUCE: return ReduceDesc{};
    case OpKind::GATHER_ELEMENTS: return GatherElementsDesc{};
  }
  return SliceDesc{};
}

ReduceFunction parse_function(const json& v, const std::string& path) {
  if (v.is_string()) {
    if (auto f = parse_reduce_function(v.get_ref<const std::string&>())) return *f;
  } else if (case_json::exact_integer(v)) {
    // A raw DML_REDUCE_FUNCTION value: how a file states an OP.FUNCTION violation.
    return static_cast<ReduceFunction>(u32(v, path));
  }
  std::vector<std::string> names;
  for (auto f : kAllReduceFunctions) names.push_back(name(f));
  std::vector<std::string_view> views(names.begin(), names.end());
  fail(path, "expected one of " + quoted_list(views) + " or a raw unsigned 32-bit function value, got " +
                 describe(v));
}

void parse_params(OperatorDesc& desc, const json& v, const std::string& path) {
  std::visit(
      [&](auto& d) {
        using D = std::decay_t<decltype(d)>;
        if constexpr (std::is_same_v<D, SliceDesc>) {
          Fields f(v, path, {"offsets", "sizes", "strides"}, "an object of SLICE parameters");
          d.offsets = u32_array(f.required("offsets"), f.path("offsets"));
          d.sizes = u32_array(f.required("sizes"), f.path("sizes"));
          d.strides = u32_array(f.required("strides"), f.path("strides"));
        } else if constexpr (std::is_same_v<D, Slice1Desc>) {
          Fields f(v, path, {"input_window_offsets", "input_window_sizes", "input_window_strides"},
                   "an object of SLICE1 parameters");
          d.input_window_offsets =
              u32_array(f.required("input_window_offsets"), f.path("input_window_offsets"));
          d.input_window_sizes = u32_array(f.required("input_window_sizes"), f.path("input_window_sizes"));
          d.input_window_strides =
              array_of<int32_t>(f.required("input_window_strides"), f.path("input_window_strides"),
                                "an array of signed 32-bit integers", i32);
        } else if constexpr (std::is_same_v<D, ScatterNdDesc>) {
          Fields f(v, path, {"input_dimension_count", "indices_dimension_count"},
                   "an object of SCATTER_ND parameters");
          d.input_dimension_count = u32(f.required("input_dimension_count"), f.path("input_dimension_count"));
          d.indices_dimension_count =
              u32(f.required("indices_dimension_count"), f.path("indices_dimension_count"));
        } else if constexpr (std::is_same_v<D, ReduceDesc>) {
          Fields f(v, path, {"function", "axes"}, "an object of REDUCE parameters");
          d.function = parse_function(f.required("function"), f.path("function"));
          d.axes = u32_array(f.required("axes"), f.path("axes"));
        } else {
          Fields f(v, path, {"axis"}, "an object of GATHER_ELEMENTS parameters");
          d.axis = u32(f.required("axis"), f.path("axis"));
        }
      },
      desc);
}

void parse_tensors(OperatorDesc& desc, InputData& data, const json& v, const std::string& path) {
  const OpKind op = op_kind(desc);
  const std::vector<Role> rs = roles(op);
  std::vector<std::string_view> role_names;
  for (Role r : rs) role_names.push_back(name(r));
  Fields f(v, path, role_names, "an object of tensors");
  for (Role r : rs) {
    Bytes* bytes = r == Role::INPUT     ? &data.input
                   : r == Role::INDICES ? &data.indices
                   : r == Role::UPDATES ? &data.updates
                                        : nullptr;
    *tensor(desc, r) = parse_tensor(f.required(name(r)), f.path(name(r)), is_input_role(r), bytes);
  }
}

Tolerance parse_tolerance(const json& v, const std::string& path) {
  Fields f(v, path, {"ulp", "abs", "rel"}, "a tolerance object, {\"ulp\": N} or {\"abs\": x, \"rel\": y}");
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
  if (const json* f = optional("format")) {
    const auto v = case_json::exact_integer(*f);
    if (!v || *v != 1) fail("format", "expected 1 (the only format version), got " + describe(*f));
  }
  if (const json* n = optional("name")) c.name = str(*n, "name");
  if (const json* o = optional("origin")) c.origin = str(*o, "origin");

  const json& op_json = required("op");
  const auto op = parse_op(str(op_json, "op"));
  if (!op) {
    std::vector<std::string_view> names;
    for (OpKind k : kAllOps) names.push_back(name(k));
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
    const TensorDesc& out = *tensor(c.op, Role::OUTPUT);
    c.expected_output = decode_data(out, *x, "expected_output");
  }
  if (const json* v = optional("violates")) {
    // Unknown rule IDs are not malformed (a newer catalog may have them); corpora are checked
    // against the catalog separately.
    c.violates = array_of<std::string>(
        *v, "violates", "an array of rule ID strings",
        [](const json& s, const std::string& p) { return str(s, p, "a rule ID string"); });
    if (c.expect == CaseClass::Valid && !c.violates.empty())
      fail("violates", "a valid case violates no rule; use expect \"invalid\" or \"unspecified\"");
  }
  if (const json* t = optional("tolerance")) c.tolerance = parse_tolerance(*t, "tolerance");
  return c;
}

// nlohmann's parser is iterative, but a file nested thousands deep is garbage in any case, and
// rejecting it up front keeps every later recursive walk shallow.
constexpr size_t kMaxDepth = 64;
void check_depth(std::string_view text) {
  size_t depth = 0;
  bool in_string = false, escaped = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char ch = text[i];
    if (in_string) {
      if (escaped)
        escaped = false;
      else if (ch == '\\')
        escaped = true;
      else if (ch == '"')
        in_string = false;
    } else if (ch == '"') {
      in_string = true;
    } else if (ch == '[' || ch == '{') {
      if (++depth > kMaxDepth)
        fail("(root)", "JSON nested deeper than " + std::to_string(kMaxDepth) + " levels at byte " +
                           std::to_string(i + 1));
    } else if ((ch == ']' || ch == '}') && depth > 0) {
      --depth;
    }
  }
}

std::string strip_exception_prefix(std::string s) {
  // "[json.exception.parse_error.101] parse error at ..." -> "parse error at ..."
  if (!s.empty() && s[0] == '[') {
    auto close = s.find("] ");
    if (close != std::string::npos) s.erase(0, close + 2);
  }
  return s;
}

}  // namespace

std::optional<Case> parse_case(std::string_view json_text, std::string_view file, CaseError* error) {
  auto report = [&](std::string path, std::string message) -> std::optional<Case> {
    if (error) *error = CaseError{std::string(file), std::move(path), std::move(message)};
    return std::nullopt;
  };
  try {
    if (json_text.find_first_not_of(" \t\r\n") == std::string_view::npos)
      return report("(root)", "empty; expected a JSON object (one case)");
    check_depth(json_text);
    json root;
    try {
      root = json::parse(json_text.begin(), json_text.end());
    } catch (const json::parse_error& e) {
      return report("(root)", "invalid JSON at byte " + std::to_string(e.byte) + ": " +
                                  strip_exception_prefix(e.what()));
    } catch (const json::exception& e) {  // number overflow ("1e999") and the like
      return report("(root)", "invalid JSON: " + strip_exception_prefix(e.what()));
    }
    return parse_root(root);
  } catch (const Malformed& m) {
    return report(m.path, m.message);
  } catch (const std::exception& e) {
    return report("(root)", std::string("cannot read the case: ") + e.what());
  }
}

}  // namespace dmlcert

// The generic view of the registry's operators, derived from their declarations.
#include "dmlcert/operators.h"

#include <array>
#include <sstream>

namespace dmlcert {
namespace {

// Per-operator facts gathered once from the declarations, indexed by OpKind.
struct Entry {
  const OperatorInfo* info;
  std::vector<Role> roles;
  std::vector<TypeSource> sources;  // by role order
  bool has_function = false;
};

const std::array<Entry, kOpCount>& entries() {
  static const std::array<Entry, kOpCount> table = [] {
    std::array<Entry, kOpCount> t{};
    size_t i = 0;
    for_each_operator_type([&](auto tag) {
      using D = typename decltype(tag)::type;
      Entry& e = t[i++];
      e.info = &D::kInfo;
      for_each_tensor_field<D>([&](const auto& field) {
        e.roles.push_back(field.role);
        e.sources.push_back(field.type_source);
      });
      for_each_param_field<D>(
          [&](const auto& field) { e.has_function |= field.kind == ParamKind::Function; });
    });
    return t;
  }();
  return table;
}

const Entry& entry(OpKind op) {
  return entries().at(static_cast<size_t>(op));
}

template <class V>
void print_value(std::ostream& os, const V& v) {
  if constexpr (std::is_same_v<V, ReduceFunction>) {
    os << name(v);
  } else if constexpr (std::is_integral_v<V>) {
    os << +v;
  } else {
    os << '[';
    for (size_t i = 0; i < v.size(); ++i) os << (i ? ", " : "") << +v[i];
    os << ']';
  }
}

}  // namespace

std::span<const OpKind> all_ops() {
  static const std::array<OpKind, kOpCount> ops = [] {
    std::array<OpKind, kOpCount> a{};
    for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<OpKind>(i);
    return a;
  }();
  return ops;
}

const OperatorInfo& info(OpKind op) {
  return *entry(op).info;
}
std::string_view name(OpKind op) {
  return info(op).name;
}
std::string_view file_stem(OpKind op) {
  return info(op).stem;
}
FeatureLevel introduced_at(OpKind op) {
  return info(op).introduced;
}
std::optional<OpKind> parse_op(std::string_view s) {
  for (OpKind op : all_ops())
    if (name(op) == s) return op;
  return std::nullopt;
}
std::span<const Role> roles(OpKind op) {
  return entry(op).roles;
}
bool has_function(OpKind op) {
  return entry(op).has_function;
}

bool typed_separately(OpKind op, std::optional<ReduceFunction> function, Role role) {
  const Entry& e = entry(op);
  for (size_t i = 0; i < e.roles.size(); ++i) {
    if (e.roles[i] != role) continue;
    switch (e.sources[i]) {
      case TypeSource::Data: return false;
      case TypeSource::Index: return true;
      case TypeSource::IndexForArgFunctions: return function && is_arg_function(*function);
    }
  }
  return false;
}

std::optional<DataType> index_type(const OperatorDesc& d) {
  const OpKind op = op_kind(d);
  for (Role role : roles(op))
    if (typed_separately(op, reduce_function(d), role)) return tensor(d, role)->type;
  return std::nullopt;
}

bool has_index_role(OpKind op, std::optional<ReduceFunction> function) {
  for (Role role : roles(op))
    if (typed_separately(op, function, role)) return true;
  return false;
}

OpKind op_kind(const OperatorDesc& d) {
  return static_cast<OpKind>(d.index());
}

OperatorDesc make_desc(OpKind op) {
  static const std::array<OperatorDesc, kOpCount> blanks = [] {
    std::array<OperatorDesc, kOpCount> a{};
    size_t i = 0;
    for_each_operator_type([&](auto tag) { a[i++] = typename decltype(tag)::type{}; });
    return a;
  }();
  return blanks.at(static_cast<size_t>(op));
}

std::optional<ReduceFunction> reduce_function(const OperatorDesc& d) {
  return visit(d, [](const auto& desc) {
    using D = std::decay_t<decltype(desc)>;
    std::optional<ReduceFunction> f;
    for_each_param_field<D>([&](const auto& field) {
      if constexpr (std::is_same_v<typename std::decay_t<decltype(field)>::Value, ReduceFunction>)
        f = desc.*field.member;
    });
    return f;
  });
}

TensorDesc* tensor(OperatorDesc& d, Role r) {
  return visit(d, [r](auto& desc) {
    using D = std::decay_t<decltype(desc)>;
    TensorDesc* t = nullptr;
    for_each_tensor_field<D>([&](const auto& field) {
      if (field.role == r) t = &(desc.*field.member);
    });
    return t;
  });
}

const TensorDesc* tensor(const OperatorDesc& d, Role r) {
  return tensor(const_cast<OperatorDesc&>(d), r);
}

std::string describe_params(const OperatorDesc& d) {
  std::ostringstream os;
  os << name(op_kind(d));
  visit(d, [&](const auto& desc) {
    using D = std::decay_t<decltype(desc)>;
    for_each_param_field<D>([&](const auto& field) {
      os << ' ' << field.key << '=';
      print_value(os, desc.*field.member);
    });
  });
  return os.str();
}

}  // namespace dmlcert

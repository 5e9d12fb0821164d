// Edits the mutators share (build.h, "mutate.cpp"). Whatever is per-dimension or an axis is found
// through the operators' declarations (ParamKind), never by naming an operator.
#include <algorithm>

#include "build.h"

namespace dmlcert::props {

void prepend_unit(TensorDesc& t) {
  t.sizes.insert(t.sizes.begin(), 1);
  if (t.strides) t.strides->insert(t.strides->begin(), 1);
}

namespace {

// Calls f(kind, value, unit) for each parameter of the case's descriptor but the REDUCE function:
// `value` is a dimension index or count (an integer) or an array (a vector).
template <class F>
void for_each_dimension_param(Case& c, F&& f) {
  visit(c.op, [&](auto& d) {
    using D = std::decay_t<decltype(d)>;
    for_each_param_field<D>([&](const auto& field) {
      auto& v = d.*field.member;
      if constexpr (!std::is_same_v<std::decay_t<decltype(v)>, ReduceFunction>) f(field.kind, v, field.unit);
    });
  });
}

}  // namespace

void prepend_unit_dim_everywhere(Case& c) {
  for (Role r : roles(op_kind(c.op))) prepend_unit(*tensor(c.op, r));
  for_each_dimension_param(c, [](ParamKind kind, auto& v, int64_t unit) {
    using V = std::decay_t<decltype(v)>;
    if constexpr (std::is_integral_v<V>) {
      if (kind == ParamKind::Axis) ++v;
    } else if (kind == ParamKind::PerDimension) {
      v.insert(v.begin(), static_cast<typename V::value_type>(unit));
    } else if (kind == ParamKind::AxisList) {
      for (auto& a : v) ++a;
    }
  });
}

bool drop_leading_unit_dim_everywhere(Case& c) {
  for (Role r : roles(op_kind(c.op))) {
    const TensorDesc& t = *tensor(c.op, r);
    if (t.rank() < 2 || t.sizes.front() != 1) return false;
  }
  const uint32_t rank = tensor(c.op, Role::OUTPUT)->rank() - 1;
  bool ok = true;
  for_each_dimension_param(c, [&](ParamKind kind, auto& v, int64_t) {
    if constexpr (std::is_integral_v<std::decay_t<decltype(v)>>) {
      if (kind == ParamKind::Axis) ok = ok && v-- > 0;
      // A count of every dimension makes the first one meaningful (SCATTER_ND's tuples start there).
      if (kind == ParamKind::Count) ok = ok && v <= rank;
    } else if (kind == ParamKind::PerDimension) {
      ok = ok && !v.empty();
      if (!v.empty()) v.erase(v.begin());
    } else if (kind == ParamKind::AxisList) {
      // Reducing over a dimension of 1 leaves the values as they are: the axis goes with it.
      std::erase(v, 0u);
      ok = ok && !v.empty();
      for (auto& a : v) --a;
    }
  });
  if (!ok) return false;
  for (Role r : roles(op_kind(c.op))) {
    TensorDesc& t = *tensor(c.op, r);
    t.sizes.erase(t.sizes.begin());
    if (t.strides) t.strides->erase(t.strides->begin());
  }
  return true;
}

bool tidy_strides(Case& c) {
  bool changed = false;
  for (Role r : roles(op_kind(c.op))) {
    TensorDesc& t = *tensor(c.op, r);
    if (!t.strides || t.strides->size() != t.sizes.size()) continue;
    std::vector<uint32_t>& s = *t.strides;
    // From the innermost dimension out, `packed` is the stride that would place a dimension right
    // outside the ones inside it, as they are (1 inside none). A dimension of 1 takes it where it
    // fits 32 bits and passes nothing on, so that a stride it keeps never spreads outward.
    uint64_t packed = 1;
    for (size_t i = s.size(); i-- > 0;) {
      if (t.sizes[i] != 1) {
        packed = uint64_t{s[i]} * t.sizes[i];
      } else if (packed <= UINT32_MAX && s[i] != packed) {
        s[i] = static_cast<uint32_t>(packed);
        changed = true;
      }
    }
    const std::vector<uint64_t> row_major = packed_strides(t.sizes);
    if (std::equal(s.begin(), s.end(), row_major.begin(), row_major.end())) {
      t.strides.reset();
      changed = true;
    }
  }
  return changed;
}

void append_param_entry(Case& c) {
  for_each_dimension_param(c, [](ParamKind kind, auto& v, int64_t unit) {
    using V = std::decay_t<decltype(v)>;
    if constexpr (!std::is_integral_v<V>)
      if (kind == ParamKind::PerDimension) v.push_back(static_cast<typename V::value_type>(unit));
  });
}

void break_dimension_count(Case& c, Choices& choices) {
  switch (choices.below(3)) {
    case 0: prepend_unit(*tensor(c.op, Role::OUTPUT)); break;
    case 1: prepend_unit(*tensor(c.op, Role::INPUT)); break;
    default: append_param_entry(c);
  }
}

DataType other_type(const Case& c, Role role, DataType current, Choices& choices) {
  const auto s = support(op_kind(c.op), reduce_function(c.op), role, c.level);
  std::vector<DataType> options;
  if (s)
    for (DataType t : s->types)
      if (t != current) options.push_back(t);
  if (options.empty())
    for (DataType t : kAllDataTypes)
      if (t != current) options.push_back(t);
  return options[choices.below(options.size())];
}

void retype(Case& c, Role role, DataType type, Choices& choices) {
  TensorDesc& t = *tensor(c.op, role);
  t.type = type;
  refresh_total_bytes(t);
  refill_input(c, role, choices.next());
}

void resize(Case& c, Role role, uint32_t dim, uint32_t size, Choices& choices) {
  TensorDesc& t = *tensor(c.op, role);
  t.sizes[dim] = size;
  refresh_total_bytes(t);
  refill_input(c, role, choices.next());
}

void ensure_strides(TensorDesc& t) {
  if (!t.strides) {
    const auto packed = packed_strides(t.sizes);
    t.strides = std::vector<uint32_t>(packed.begin(), packed.end());
  }
}

Role pick_role(const Case& c, Choices& choices) {
  const auto rs = roles(op_kind(c.op));
  return rs[choices.below(rs.size())];
}

uint32_t pick_dim(const TensorDesc& t, Choices& choices) {
  return static_cast<uint32_t>(choices.below(t.rank()));
}

uint32_t past_a_width(uint32_t valid, Choices& choices) {
  switch (choices.below(4)) {
    case 0: return valid + (1u << 8);
    case 1: return valid + (1u << 16);
    case 2: return valid + (1u << 31);
    default: return 0xFFFFFFFFu;
  }
}

uint32_t grown_size(const TensorDesc& t, uint32_t dim, uint64_t most_elements, Choices& choices) {
  const uint32_t size = t.sizes[dim];
  if (choices.below(4) != 0) return size + 1;
  const uint32_t grown = size + (choices.coin() ? (1u << 16) : (1u << 8));
  const uint64_t others = element_count(t.sizes).value_or(UINT64_MAX) / std::max(size, 1u);
  return others <= most_elements / grown ? grown : size + 1;
}

bool offset_past_a_width(uint32_t& offset, uint64_t span, uint32_t limit, Choices& choices) {
  for (const uint32_t width : {1u << 8, 1u << 16})
    if (uint64_t{offset} + width + span > limit && (width == 1u << 16 || choices.coin())) {
      offset += width;
      return true;
    }
  return false;
}

void grow_output(Case& c, Choices& choices) {
  const TensorDesc& o = *tensor(c.op, Role::OUTPUT);
  const uint32_t dim = pick_dim(o, choices);
  resize(c, Role::OUTPUT, dim, grown_size(o, dim, kMostGrownOutput, choices), choices);
}

void output_type_differs(Case& c, Choices& choices) {
  const DataType in = tensor(c.op, Role::INPUT)->type;
  retype(c, Role::OUTPUT, other_type(c, Role::OUTPUT, in, choices), choices);
}

bool has_big_dim(const Case& c) {
  for (Role r : roles(op_kind(c.op)))
    for (uint32_t s : tensor(c.op, r)->sizes)
      if (s >= 2) return true;
  return false;
}

bool has_big_output_dim(const Case& c) {
  const auto& sizes = tensor(c.op, Role::OUTPUT)->sizes;
  return std::any_of(sizes.begin(), sizes.end(), [](uint32_t s) { return s >= 2; });
}

}  // namespace dmlcert::props

#include "shape_groups.h"

namespace dmlcert::engine {
namespace {

// FNV-1a over bytes, continued from `h`.
uint64_t hash_bytes(const void* p, size_t n, uint64_t h = 1469598103934665603ull) {
  const auto* b = static_cast<const unsigned char*>(p);
  for (size_t i = 0; i < n; ++i) h = (h ^ b[i]) * 1099511628211ull;
  return h;
}
template <class T>
uint64_t hash_value(const T& v, uint64_t h) {
  return hash_bytes(&v, sizeof v, h);
}

// The shape, hashed: a thorough run asks for a million shapes per worker, and a 64-bit hash of
// each (collisions about one in 10^7 for that many) costs a tenth of the text.
uint64_t shape_key(const Case& c) {
  uint64_t key = hash_value(op_kind(c.op), 1469598103934665603ull);
  key = hash_value(reduce_function(c.op).value_or(ReduceFunction{}), key);
  key = hash_value(reduce_function(c.op).has_value(), key);
  for (Role r : roles(op_kind(c.op))) {
    const auto& sizes = tensor(c.op, r)->sizes;
    key = hash_value(sizes.size(), key);
    key = hash_bytes(sizes.data(), sizes.size() * sizeof(uint32_t), key);
  }
  return key;
}

}  // namespace

void ShapeRecurrence::merge(const ShapeRecurrence& o) {
  for (const auto& [key, field] : kShapeRecurrenceFields) this->*field += o.*field;
}

std::string ShapeRecurrence::summary() const {
  return std::to_string(recurring) + " of " + std::to_string(groups) + " (other layout " +
         std::to_string(other_layout) + ", other type " + std::to_string(other_type) + ", other level " +
         std::to_string(other_level) + ", other data " + std::to_string(other_data) +
         ", the same case again " + std::to_string(repeated) + ")";
}

void ShapeGroups::add(const Case& c) {
  uint64_t layout = 1469598103934665603ull, types = layout;
  for (Role r : roles(op_kind(c.op))) {
    const TensorDesc& t = *tensor(c.op, r);
    types = hash_value(t.type, types);
    layout = hash_value(t.total_bytes, layout);
    layout = hash_value(t.strides.has_value(), layout);
    if (t.strides) layout = hash_bytes(t.strides->data(), t.strides->size() * sizeof(uint32_t), layout);
  }
  uint64_t data = 1469598103934665603ull;
  for (Role r : {Role::INPUT, Role::INDICES, Role::UPDATES})
    data = hash_bytes(c.data.of(r).data(), c.data.of(r).size(), data);

  Group& g = groups_[shape_key(c)];
  if (g.cases++ == 0) {
    g.layout = layout, g.types = types, g.data = data, g.level = c.level;
    return;
  }
  const bool same_layout = layout == g.layout, same_types = types == g.types, same_level = c.level == g.level;
  g.other_layout |= !same_layout;
  g.other_type |= !same_types;
  g.other_level |= !same_level;
  // Data compares only between cases of one type: other types always hold other bytes.
  g.other_data |= same_types && data != g.data;
  g.repeated |= same_layout && same_types && same_level && data == g.data;
}

ShapeRecurrence ShapeGroups::counts() const {
  ShapeRecurrence r;
  r.groups = groups_.size();
  for (const auto& [key, g] : groups_) {
    r.recurring += g.cases > 1;
    r.other_layout += g.other_layout;
    r.other_type += g.other_type;
    r.other_level += g.other_level;
    r.other_data += g.other_data;
    r.repeated += g.repeated;
  }
  return r;
}

}  // namespace dmlcert::engine

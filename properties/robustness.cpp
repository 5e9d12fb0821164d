// Robustness cases: index values at the extremes of their type, in every operator that reads
// indices (docs/design.md, "Certification"), which no generator of valid cases makes.
#include <limits>

#include "build.h"

namespace dmlcert::props {
namespace {

// Copies logical element `index` to every element that shares its memory: a broadcast (0-stride)
// indices tensor holds one value per memory element, and a case whose logical data said otherwise
// would be judged on a value the backend is never given.
void spread_to_shared(const TensorDesc& t, Bytes& logical, uint64_t index) {
  const size_t es = element_size(t.type);
  const auto strides = effective_strides(t);
  const uint64_t at = element_offset(unravel(index, t.sizes), strides);
  uint64_t i = 0;
  for_each_offset(t.sizes, strides, [&](uint64_t off) {
    if (off == at && i != index && (i + 1) * es <= logical.size())
      std::copy_n(logical.begin() + static_cast<ptrdiff_t>(index * es), es,
                  logical.begin() + static_cast<ptrdiff_t>(i * es));
    ++i;
  });
}

Case with_extreme_index(Case c, int rep, const std::string& rule) {
  TensorDesc* indices = tensor(c.op, Role::INDICES);
  Bytes& data = c.data.indices;
  if (!indices || data.empty()) return c;
  const size_t esize = element_size(indices->type);
  const size_t count = data.size() / esize;
  const uint64_t index = static_cast<uint64_t>(rep) * 7919 % count;
  std::byte* p = data.data() + index * esize;
  dispatch(indices->type, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_integral_v<T>) {
      T values[3] = {
          std::numeric_limits<T>::max(),
          std::is_signed_v<T> ? std::numeric_limits<T>::min() : static_cast<T>(T{1} << 31),
          std::is_signed_v<T> ? static_cast<T>(-(int64_t{1} << 31)) : static_cast<T>(uint64_t{1} << 31)};
      store<T>(p, values[rep % 3]);
    }
  });
  spread_to_shared(*indices, data, index);
  c.expect = CaseClass::Unspecified;
  c.violates = {rule};
  c.expected_output.reset();
  return c;
}

}  // namespace

rc::Gen<Case> extreme_index_case(const SupportCell& cell, FeatureLevel level, int rep, std::string rule) {
  return rc::gen::map(
      valid_case_for_cell(cell, level, DataMode::Random),
      [rep, rule = std::move(rule)](Case c) { return with_extreme_index(std::move(c), rep, rule); });
}

}  // namespace dmlcert::props

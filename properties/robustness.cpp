// Robustness cases: index values at the extremes of their type, in every operator that reads
// indices (docs/design.md, "Certification"), which no generator of valid cases makes.
#include <algorithm>
#include <limits>
#include <optional>

#include "build.h"
#include "dmlcert/validate.h"

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

// Whether the case's data breaks `rule`: an index written into it is out of range only if the
// validator says so (a dimension past 2^16 makes 2^16 + j an ordinary index). check_data, not
// classify: a generator does not count as the engine's one classification of a case.
bool breaks(const Case& c, const std::string& rule) {
  const auto found = check_data(c.op, c.level, c.data);
  return std::any_of(found.begin(), found.end(), [&](const Violation& v) { return v.rule == rule; });
}

// Extreme `which` (docs: generators.h) for an element that held the in-range value `j`, or nullopt
// when T cannot hold it.
template <class T>
std::optional<T> extreme(int which, T j) {
  using L = std::numeric_limits<T>;
  constexpr bool is_signed = std::is_signed_v<T>;
  switch (which) {
    case 0: return L::max();
    case 1: return is_signed ? L::min() : static_cast<T>(T{1} << 31);
    case 2: return is_signed ? static_cast<T>(-(int64_t{1} << 31)) : static_cast<T>(uint64_t{1} << 31);
    default: break;
  }
  // The edge of a narrower field plus the value that was there: a backend that checks or
  // addresses with only the low bits sees j, in range, while the index is not.
  static constexpr int kWidths[] = {32, 31, 16, 8};
  const __int128 v = static_cast<__int128>(j) + (static_cast<__int128>(1) << kWidths[which - 3]);
  if (v > static_cast<__int128>(L::max())) return std::nullopt;
  return static_cast<T>(v);
}

Case with_extreme_index(Case c, int rep, const std::string& rule) {
  TensorDesc* indices = tensor(c.op, Role::INDICES);
  Bytes& data = c.data.indices;
  if (!indices || data.empty()) return c;
  const size_t esize = element_size(indices->type);
  const size_t count = data.size() / esize;
  const uint64_t index = static_cast<uint64_t>(rep) * 7919 % count;
  const std::byte* p = data.data() + index * esize;
  const Bytes original = data;
  dispatch(indices->type, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_integral_v<T>) {
      const std::optional<T> value = extreme<T>(rep % kIndexExtremes, load<T>(p));
      store<T>(data.data() + index * esize, value.value_or(std::numeric_limits<T>::max()));
      spread_to_shared(*indices, data, index);
      // An extreme the type cannot hold, or one that lands in range, gives way to the maximum.
      if (value && !breaks(c, rule)) {
        data = original;
        store<T>(data.data() + index * esize, std::numeric_limits<T>::max());
        spread_to_shared(*indices, data, index);
      }
    }
  });
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

#include "dmlcert/strided_dims.h"

#include <algorithm>
#include <cstring>
#include <unordered_map>

namespace dmlcert {

std::vector<StridedDim> interleaved_dims(const Sizes& sizes, const std::vector<uint64_t>& strides) {
  std::vector<StridedDim> dims;
  for (size_t i = 0; i < sizes.size() && i < strides.size(); ++i)
    if (sizes[i] > 1) dims.push_back({i, sizes[i], strides[i]});
  std::sort(dims.begin(), dims.end(), [](const StridedDim& a, const StridedDim& b) {
    return a.stride != b.stride ? a.stride < b.stride : a.index < b.index;
  });
  // rest = the largest offset the dimensions below the top one reach together, kept as a running
  // sum so that peeling stays linear.
  using u128 = unsigned __int128;
  u128 rest = 0;
  for (size_t j = 0; j + 1 < dims.size(); ++j) rest += static_cast<u128>(dims[j].size - 1) * dims[j].stride;
  while (!dims.empty() && dims.back().stride > rest) {
    dims.pop_back();
    if (!dims.empty()) rest -= static_cast<u128>(dims.back().size - 1) * dims.back().stride;
  }
  return dims;
}

std::optional<SharedElementConflict> shared_element_conflict(const TensorDesc& t,
                                                             std::span<const std::byte> logical) {
  if (!t.strides || t.strides->size() != t.sizes.size()) return std::nullopt;
  const auto span = element_span(t);
  const auto strides = effective_strides(t);
  if (!span || interleaved_dims(t.sizes, strides).empty()) return std::nullopt;
  const size_t es = element_size(t.type);
  const uint64_t count = logical.size() / es;
  constexpr uint64_t kNone = UINT64_MAX;
  std::vector<uint64_t> dense(*span <= 4 * count ? *span : 0, kNone);
  std::unordered_map<uint64_t, uint64_t> sparse;  // memory offset -> first logical index there
  std::optional<SharedElementConflict> conflict;
  uint64_t i = 0;
  for_each_coord(t.sizes, [&](const Coord& c) {
    if (conflict || i >= count) return;
    const uint64_t off = element_offset(c, strides);
    const uint64_t first = !dense.empty() ? (dense[off] == kNone ? (dense[off] = i) : dense[off])
                                          : sparse.try_emplace(off, i).first->second;
    if (first != i && std::memcmp(logical.data() + first * es, logical.data() + i * es, es) != 0)
      conflict = SharedElementConflict{first, i, off};
    ++i;
  });
  return conflict;
}

}  // namespace dmlcert

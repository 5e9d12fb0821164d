// Random memory layouts for a tensor: packed, explicit packed strides, padded, permuted (with
// padding), and 0-stride broadcast for inputs, plus slack in TotalTensorSizeInBytes. The same
// logical tensor in any of these layouts must give the same result (docs/semantics.md, "Tensor
// descriptors").
#include <algorithm>
#include <map>
#include <numeric>
#include <set>

#include "build.h"

namespace dmlcert::props {
namespace {

enum LayoutKind : uint8_t { kPacked, kExplicitPacked, kPadded, kPermuted, kBroadcast };

// Row-major strides over a dimension order (order[0] outermost) with per-dimension padding.
// Injective for any order, so it is a legal output layout (no T.OUTPUT_OVERLAP).
std::vector<uint32_t> ordered_strides(const Sizes& sizes, const std::vector<size_t>& order, Prng& prng,
                                      bool pad) {
  std::vector<uint32_t> strides(sizes.size(), 1);
  uint64_t s = 1;
  for (size_t j = order.size(); j-- > 0;) {
    const size_t d = order[j];
    strides[d] = static_cast<uint32_t>(s);
    // Padding only on dimensions of size >= 2 keeps the span within twice the packed one.
    const uint64_t padding = (pad && sizes[d] >= 2) ? prng.below(3) : 0;
    s *= sizes[d] + padding;
  }
  return strides;
}

}  // namespace

rc::Gen<LayoutSpec> layout_gen(bool input_role, bool allow_broadcast, uint64_t salt, bool packed) {
  if (packed) return rc::gen::just(LayoutSpec{});
  const bool broadcast = input_role && allow_broadcast;
  auto kind = broadcast
                  ? rc::gen::weightedElement<uint8_t>(
                        {{8, kPacked}, {2, kExplicitPacked}, {4, kPadded}, {4, kPermuted}, {3, kBroadcast}})
                  : rc::gen::weightedElement<uint8_t>(
                        {{8, kPacked}, {2, kExplicitPacked}, {4, kPadded}, {4, kPermuted}});
  auto drawn = rc::gen::construct<LayoutSpec>(kind, raw(),
                                              rc::gen::weightedElement<uint8_t>({{6, 0}, {2, 1}, {1, 3}}));
  if (salt == 0) return drawn;
  // A related case: another kind than the drawn one, other padding and other slack.
  return rc::gen::map(drawn, [salt, broadcast](LayoutSpec s) {
    Prng prng(mix_seed(salt, s.seed));
    const uint8_t kinds = broadcast ? 5 : 4;
    s.kind = static_cast<uint8_t>((s.kind + 1 + prng.below(kinds - 1)) % kinds);
    s.seed = static_cast<uint32_t>(prng.next());
    s.extra_words = prng.below(3) == 0 ? static_cast<uint8_t>(1 + prng.below(3)) : 0;
    return s;
  });
}

TensorDesc realize_layout(DataType type, const Sizes& sizes, const LayoutSpec& spec, bool input_role) {
  TensorDesc t{type, sizes, std::nullopt, 0};
  Prng prng(mix_seed(spec.seed, 0x1a40u));
  std::vector<size_t> order(sizes.size());
  std::iota(order.begin(), order.end(), size_t{0});
  switch (spec.kind) {
    case kPacked: break;
    case kExplicitPacked: t.strides = ordered_strides(sizes, order, prng, false); break;
    case kPadded: t.strides = ordered_strides(sizes, order, prng, true); break;
    case kPermuted:
      for (size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[prng.below(i)]);
      t.strides = ordered_strides(sizes, order, prng, true);
      break;
    case kBroadcast:
    default: {
      t.strides = ordered_strides(sizes, order, prng, true);
      if (!input_role) break;
      bool any = false;
      for (size_t d = 0; d < sizes.size(); ++d)
        if (sizes[d] >= 2 && prng.coin()) (*t.strides)[d] = 0, any = true;
      // A broadcast layout broadcasts something when it can.
      if (!any)
        for (size_t d = 0; d < sizes.size(); ++d)
          if (sizes[d] >= 2) {
            (*t.strides)[d] = 0;
            break;
          }
      break;
    }
  }
  // Dimensions of size 1 may carry any stride: (size-1) * stride is 0 whatever it is, so a stride
  // at the 32-bit edges is legal there and costs no memory, while Sizes * Strides overflows.
  static constexpr uint32_t kEdgeStrides[] = {0x7FFFFFFFu, 0x80000000u, 0xFFFFFFFFu};
  if (t.strides && spec.kind != kExplicitPacked)
    for (size_t d = 0; d < sizes.size(); ++d)
      if (sizes[d] == 1 && prng.below(4) == 0)
        (*t.strides)[d] =
            prng.below(3) == 0 ? kEdgeStrides[prng.below(3)] : 1 + static_cast<uint32_t>(prng.below(7));
  t.total_bytes = min_implied_bytes(t).value_or(0) + 4u * spec.extra_words;
  return t;
}

namespace {

// Whether the dimensions of t with a nonzero stride map distinct coordinates to distinct elements,
// by a sufficient test: in increasing order of stride, each stride passes the farthest offset the
// smaller ones reach. Every layout realize_layout makes passes it.
bool injective_apart_from_zero_strides(const TensorDesc& t, const std::vector<uint64_t>& strides) {
  std::vector<std::pair<uint64_t, uint64_t>> dims;  // (stride, size)
  for (size_t d = 0; d < t.sizes.size(); ++d)
    if (t.sizes[d] >= 2 && strides[d] != 0) dims.emplace_back(strides[d], t.sizes[d]);
  std::sort(dims.begin(), dims.end());
  unsigned __int128 reach = 0;
  for (const auto& [stride, size] : dims) {
    if (stride <= reach) return false;
    reach += static_cast<unsigned __int128>(stride) * (size - 1);
  }
  return true;
}

}  // namespace

TensorDesc broadcast_except(TensorDesc t, size_t dim) {
  t.strides = std::vector<uint32_t>(t.sizes.size(), 0);
  if (dim < t.sizes.size()) (*t.strides)[dim] = 1;
  t.total_bytes = min_implied_bytes(t).value_or(0);
  return t;
}

void share_broadcast_elements(const TensorDesc& t, Bytes& logical) {
  if (!t.strides || t.strides->size() != t.sizes.size()) return;
  const size_t es = element_size(t.type);
  const auto strides = effective_strides(t);
  const size_t rank = t.sizes.size();
  if (injective_apart_from_zero_strides(t, strides)) {
    // Two elements share memory exactly when they differ only in 0-stride coordinates: each takes
    // the value of the one whose 0-stride coordinates are 0, which comes first. Linear, where the
    // general walk below keeps a map entry per element (seconds for a huge tensor).
    bool any = false;
    for (size_t d = 0; d < rank; ++d) any = any || (strides[d] == 0 && t.sizes[d] >= 2);
    if (!any) return;
    std::vector<uint64_t> row_major(rank, 1);
    for (size_t d = rank; d-- > 1;) row_major[d - 1] = row_major[d] * t.sizes[d];
    uint64_t i = 0;
    for_each_coord(t.sizes, [&](const Coord& c) {
      uint64_t first = 0;
      for (size_t d = 0; d < rank; ++d)
        if (strides[d] != 0) first += c[d] * row_major[d];
      if (first != i && (i + 1) * es <= logical.size())
        std::copy_n(logical.begin() + static_cast<ptrdiff_t>(first * es), es,
                    logical.begin() + static_cast<ptrdiff_t>(i * es));
      ++i;
    });
    return;
  }
  std::map<uint64_t, uint64_t> first;  // element offset -> first logical index there
  uint64_t i = 0;
  for_each_coord(t.sizes, [&](const Coord& c) {
    const uint64_t off = element_offset(c, strides);
    auto [it, inserted] = first.emplace(off, i);
    if (!inserted && (i + 1) * es <= logical.size())
      std::copy_n(logical.begin() + static_cast<ptrdiff_t>(it->second * es), es,
                  logical.begin() + static_cast<ptrdiff_t>(i * es));
    ++i;
  });
}

bool has_overlap(const TensorDesc& t) {
  const auto strides = effective_strides(t);
  std::set<uint64_t> seen;
  bool overlap = false;
  for_each_coord(t.sizes, [&](const Coord& c) {
    if (!seen.insert(element_offset(c, strides)).second) overlap = true;
  });
  return overlap;
}

}  // namespace dmlcert::props

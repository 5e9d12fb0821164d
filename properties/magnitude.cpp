// Sizes across magnitudes (build.h, Magnitude): counts at and next to powers of two, shared among a
// tensor's dimensions; the edges of integer widths; and how large a huge case is.
#include <algorithm>
#include <bit>

#include "build.h"

namespace dmlcert::props {
namespace {

// Odds of a large (and of a sparse) case among the cases a generator draws: one in a hundred
// each. Such a case costs tens of thousands of elements on average where an ordinary one costs a
// few hundred, so that a quick certification spends about a third of its time on them
// (docs/design.md, "Budgets").
constexpr size_t kOrdinaryWeight = 98;
constexpr uint32_t kMinLargeExponent = 7;
// Beyond 2^17 elements at rapidcheck's size 25 (the quick budget) and above; smaller cases below,
// so that a family's small member stays small.
constexpr uint32_t kMaxLargeExponent = 18;
constexpr int kLargePackedSize = 18;

// The edges of the integer widths a descriptor field or an index may be held in: a value past
// 2^8, 2^15 or 2^16 wraps in a uint8, an int16 or a uint16 field; an extent of 2^17 holds offsets
// and positions well past 2^16 (a 16-bit field reads them as small ones).
constexpr uint32_t kWidthExponents[] = {8, 15, 16, 17};

// A raw choice over the whole 16-bit range at every rapidcheck size (raw() narrows with the size).
rc::Gen<uint32_t> full_raw() {
  return rc::gen::resize(100, raw());
}

}  // namespace

// Huge, shrinking to large: a failure a huge case finds is kept at the large scale when it still
// fails there. Otherwise its count shrinks by halves (huge_halvings) while it still fails, so that
// its repro is as small as the bug allows: a case file of tens of MiB is past what `dmlcert run`
// reads without a larger --max-file-bytes.
rc::Gen<Scale> huge_scale() {
  return rc::Gen<Scale>([](const rc::Random&, int) {
    return rc::shrinkable::shrinkRecur(Scale::Huge, [](Scale s) {
      return s == Scale::Huge ? rc::seq::just(Scale::Large) : rc::Seq<Scale>();
    });
  });
}
// 0, shrinking to 1, 2, ... kMaxHugeHalvings: a huge count down to a 256th (56 MiB to 224 KiB).
constexpr uint32_t kMaxHugeHalvings = 8;
rc::Gen<uint32_t> huge_halvings() {
  return rc::Gen<uint32_t>([](const rc::Random&, int) {
    return rc::shrinkable::shrinkRecur(
        0u, [](uint32_t h) { return h < kMaxHugeHalvings ? rc::seq::just(h + 1) : rc::Seq<uint32_t>(); });
  });
}

rc::Gen<Magnitude> magnitude_gen(const CaseSpec& spec) {
  const bool huge = spec.huge, large = spec.large && !huge, packed = spec.packed;
  const uint32_t edge = huge || large ? 0 : spec.edge;
  return rc::gen::withSize([huge, large, packed, edge](int size) {
    auto scale = huge    ? huge_scale()
                 : large ? rc::gen::just(Scale::Large)
                 : edge  ? rc::gen::just(Scale::Sparse)
                         : rc::gen::weightedElement<Scale>(
                              {{kOrdinaryWeight, Scale::Ordinary}, {1, Scale::Large}, {1, Scale::Sparse}});
    // A packed case's count lies in the innermost dimension (an even split, shape_near_power).
    auto split = packed ? rc::gen::map(full_raw(), [](uint32_t s) { return s & ~1u; }) : full_raw();
    // A large packed case (one per cell) stops at 2^16 elements (max_large_exponent at size 18):
    // past the vector widths and the thread shares, at a sixth of the cost of 2^18.
    const int bound = large ? std::min(size, kLargePackedSize) : size;
    return rc::gen::construct<Magnitude>(scale, full_raw(), full_raw(), split, rc::gen::just(bound),
                                         huge ? huge_halvings() : rc::gen::just(0u), rc::gen::just(edge));
  });
}

uint32_t max_large_exponent(int size) {
  return std::clamp<uint32_t>(10 + static_cast<uint32_t>(std::max(size, 0)) / 3, 10, kMaxLargeExponent);
}

uint32_t large_exponent(const Magnitude& m) {
  const uint32_t top = max_large_exponent(m.size);
  // Scaled, not taken modulo, so that a larger size never gives a smaller exponent for the same
  // choice and a shrink of the choice shrinks the count.
  return kMinLargeExponent +
         static_cast<uint32_t>((uint64_t{m.exponent % (1u << 16)} * (top - kMinLargeExponent + 1)) >> 16);
}

uint32_t sparse_exponent(const Magnitude& m) {
  if (m.edge != 0) return m.edge;
  const uint32_t top = max_large_exponent(m.size);
  size_t usable = 0;
  while (usable < std::size(kWidthExponents) && kWidthExponents[usable] <= top) ++usable;
  return usable == 0 ? top : kWidthExponents[(uint64_t{m.exponent % (1u << 16)} * usable) >> 16];
}

uint64_t sparse_extent(const Magnitude& m) {
  // Past the edge by one, or by what a vector width or a thread count leaves over: a backend that
  // keeps the extent itself in the narrow field sees 1 + (nudge % 63) elements.
  if (m.edge != 0) return (uint64_t{1} << m.edge) + 1 + m.nudge % 63;
  return near_power(sparse_exponent(m), m.nudge);
}

uint64_t past_edge(uint32_t edge, uint64_t extent, uint64_t choice) {
  const uint64_t first = uint64_t{1} << edge;
  if (extent <= first) return extent == 0 ? 0 : extent - 1;
  // The edge itself (it wraps to 0), the last position, or any in between.
  switch (choice % 4) {
    case 0: return first;
    case 1: return extent - 1;
    default: return first + (choice / 4) % (extent - first);
  }
}

uint64_t near_power(uint32_t exponent, uint32_t nudge) {
  const uint64_t power = uint64_t{1} << exponent;
  // Neighbours first (one in three each), then the remainders a vector width of up to 64
  // elements or a thread count leaves over.
  const uint64_t r = 2 + (nudge / 8) % 62;
  switch (nudge % 8) {
    case 0:
    case 1: return power;
    case 2:
    case 3: return std::max<uint64_t>(1, power - 1);
    case 4:
    case 5: return power + 1;
    case 6: return power > r ? power - r : power;
    default: return power + r;
  }
}

Sizes shape_near_power(const Magnitude& m, uint32_t exponent, uint32_t rank) {
  Sizes sizes(rank, 1);
  if (rank == 0) return sizes;
  const uint32_t split = m.split;
  // The dimension that holds the count's neighbourhood: the innermost one half the time, so that
  // inner dimensions are not always small.
  const uint32_t main = split % 2 == 0 ? rank - 1 : (split / 2) % rank;
  const uint32_t mode = (split / 16) % 3;
  if (rank == 1 || mode == 0 || exponent == 0) {
    sizes[main] = static_cast<uint32_t>(std::min<uint64_t>(near_power(exponent, m.nudge), UINT32_MAX));
    return sizes;
  }
  // The other dimensions take 2^outer between them as powers of two, on one of them (mode 1) or
  // spread round-robin (mode 2); the main dimension takes the neighbourhood of 2^(exponent-outer).
  const uint32_t outer = 1 + (split / 64) % exponent;
  const uint32_t first = (split / 512) % rank;
  uint32_t next = first;
  for (uint32_t bit = 0; bit < outer; ++bit) {
    if (next == main) next = (next + 1) % rank;
    sizes[next] *= 2;
    if (mode == 2) next = (next + 1) % rank;
  }
  sizes[main] = static_cast<uint32_t>(near_power(exponent - outer, m.nudge));
  return sizes;
}

uint64_t width_edge(uint32_t choice, uint64_t limit) {
  std::vector<uint64_t> edges;
  for (uint32_t e : {8u, 15u, 16u, 17u, 31u, 32u})
    for (int64_t delta : {-1, 0, 1}) {
      const uint64_t v = (uint64_t{1} << e) + static_cast<uint64_t>(delta);
      if (v < limit) edges.push_back(v);
    }
  if (edges.empty()) return limit == 0 ? 0 : limit - 1;
  return edges[choice % edges.size()];
}

uint64_t huge_elements(DataType type) {
  // Past a last-level cache of 48 MiB (this output alone: a backend that streams its stores above
  // the cache size streams here), and within the default --max-case-bytes for an operator whose
  // other tensors are small. Narrow types stop at 2^23 elements: the reference walks every
  // element, and a byte count is what a cache threshold compares.
  constexpr uint64_t kHugeOutputBytes = uint64_t{56} << 20, kMaxHugeElements = uint64_t{1} << 23;
  return std::min(kHugeOutputBytes / element_size(type), kMaxHugeElements);
}

uint64_t huge_reduce_elements(DataType type) {
  // REDUCE's input past the same cache, where a backend may switch to kernels that stream; within
  // 2^24 elements, each of which the reference and the comparison model walk.
  constexpr uint64_t kHugeInputBytes = uint64_t{56} << 20, kMaxHugeElements = uint64_t{1} << 24;
  return std::min(kHugeInputBytes / element_size(type), kMaxHugeElements);
}

}  // namespace dmlcert::props

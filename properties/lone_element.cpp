// REDUCE data in which one element of each long fold decides the result (build.h,
// plant_lone_element): placed at a position next to an integer width's edge or at the fold's end,
// so that a backend that keeps positions in a narrow field, stops early or drops a fold's last
// partial block gives another result, while its peers agree.
#include <algorithm>
#include <cmath>
#include <limits>

#include "build.h"
#include "dmlcert/reduce_groups.h"

namespace dmlcert::props {
namespace {

// Folds up to the first width edge hold every position a uint8 can; they keep the data as drawn.
constexpr uint64_t kFirstEdge = uint64_t{1} << 8;

// The logical (row-major) input offsets of every fold, each walked in ARGMAX/ARGMIN's position
// order (reduce_groups.h: row-major over the reduced axes in increasing axis order).
class Folds {
 public:
  Folds(const Sizes& sizes, const std::vector<uint32_t>& axes)
      : sizes_(sizes), strides_(packed_strides(sizes)) {
    const std::vector<uint32_t> set = axis_set(axes);
    for (uint32_t i = 0; i < sizes.size(); ++i)
      (std::find(set.begin(), set.end(), i) != set.end() ? reduced_ : kept_).push_back(i);
  }
  uint64_t length() const {
    uint64_t n = 1;
    for (uint32_t a : reduced_) n *= sizes_[a];
    return n;
  }
  uint64_t count() const {
    uint64_t n = 1;
    for (uint32_t k : kept_) n *= sizes_[k];
    return n;
  }
  // Calls visit(position, offset) for each element of fold g.
  template <class Visit>
  void walk(uint64_t g, Visit visit) const {
    uint64_t base = 0;
    for (size_t j = kept_.size(); j-- > 0;) {
      base += (g % sizes_[kept_[j]]) * strides_[kept_[j]];
      g /= sizes_[kept_[j]];
    }
    std::vector<uint32_t> at(reduced_.size(), 0);
    uint64_t off = base;
    for (uint64_t position = 0;; ++position) {
      visit(position, off);
      size_t j = reduced_.size();
      while (j-- > 0) {
        const uint32_t a = reduced_[j];
        if (++at[j] < sizes_[a]) {
          off += strides_[a];
          break;
        }
        off -= (sizes_[a] - 1) * strides_[a];
        at[j] = 0;
      }
      if (j == SIZE_MAX) return;
    }
  }

 private:
  Sizes sizes_;
  std::vector<uint64_t> strides_;
  std::vector<uint32_t> reduced_, kept_;
};

// MAX and ARGMAX: the type's highest finite value at the position, and every other element that
// reaches it one below, so that the position is the only maximum (and the lowest for MIN, ARGMIN).
void plant_extreme(DataType t, bool highest, const Folds& folds, uint64_t g, uint64_t at, Bytes& data) {
  const size_t es = element_size(t);
  dispatch(t, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (is_float_v<T>) {
      const double top = highest ? float_max(t) : -float_max(t), below = top / 2;
      folds.walk(g, [&](uint64_t position, uint64_t off) {
        std::byte* p = data.data() + off * es;
        if (position == at)
          from_double(t, top, p);
        else if (highest ? to_double(t, p) >= top : to_double(t, p) <= top)
          from_double(t, below, p);
      });
    } else {
      const T top = highest ? std::numeric_limits<T>::max() : std::numeric_limits<T>::min();
      const T below = highest ? static_cast<T>(top - 1) : static_cast<T>(top + 1);
      folds.walk(g, [&](uint64_t position, uint64_t off) {
        std::byte* p = data.data() + off * es;
        if (position == at)
          store<T>(p, top);
        else if (load<T>(p) == top)
          store<T>(p, below);
      });
    }
  });
}

// Float sums: an element as large as all the others together (their magnitudes; for SUM_SQUARE
// and L2, the root of their squares), so that leaving it out changes the result by about half of
// it. SPEC.md's bound for SUM, (N-1) u sum|x|, is then (N-1) u times twice that element: past it
// while (N-1) u < 1/2, that is for folds below 2^22 accumulated in float32 (2^-64 of it at 2^17).
// The fill keeps the others' sum within a quarter of the type's range, the whole within a half.
// Exact data instead gets the fold's largest magnitude there: still exact, and never zero unless
// the whole fold is.
void plant_dominant(ReduceFunction f, DataType t, DataMode mode, const Folds& folds, uint64_t g, uint64_t at,
                    Bytes& data) {
  const size_t es = element_size(t);
  const bool squares = f == ReduceFunction::SUM_SQUARE || f == ReduceFunction::L2;
  double others = 0, largest = 0;
  folds.walk(g, [&](uint64_t position, uint64_t off) {
    const double x = to_double(t, data.data() + off * es);
    if (std::fabs(x) > std::fabs(largest)) largest = x;
    if (position != at) others += squares ? x * x : std::fabs(x);
  });
  const double value = mode == DataMode::Exact ? std::fabs(largest) : squares ? std::sqrt(others) : others;
  folds.walk(g, [&](uint64_t position, uint64_t off) {
    if (position == at) from_double(t, value, data.data() + off * es);
  });
}

}  // namespace

void plant_lone_element(ReduceFunction f, DataType t, const Sizes& sizes, const std::vector<uint32_t>& axes,
                        Bytes& data, const FillSpec& spec, uint32_t edge) {
  const bool extreme = f == ReduceFunction::MAX || f == ReduceFunction::MIN || is_arg_function(f);
  const bool float_sum =
      is_float(t) && (f == ReduceFunction::SUM || f == ReduceFunction::AVERAGE || f == ReduceFunction::L1 ||
                      f == ReduceFunction::SUM_SQUARE || f == ReduceFunction::L2);
  if (!extreme && !float_sum) return;
  const Folds folds(sizes, axes);
  const uint64_t n = folds.length();
  if (n <= kFirstEdge || folds.count() * n * element_size(t) != data.size()) return;
  Prng prng(mix_seed(spec.seed, 0x10e1u + static_cast<uint64_t>(f)));
  // One long fold in four keeps the data as drawn: ties, and results that many elements decide.
  const bool past = edge != 0 && n > (uint64_t{1} << edge);
  if (!past && prng.below(4) == 0) return;
  const bool highest = f == ReduceFunction::MAX || f == ReduceFunction::ARGMAX;
  for (uint64_t g = 0; g < folds.count(); ++g) {
    // The last position half the time (the end of a last partial block), else one next to an edge.
    const uint64_t at = past          ? past_edge(edge, n, prng.next())
                        : prng.coin() ? n - 1
                                      : width_edge(static_cast<uint32_t>(prng.next()), n);
    if (extreme)
      plant_extreme(t, highest, folds, g, at, data);
    else
      plant_dominant(f, t, spec.mode, folds, g, at, data);
  }
}

}  // namespace dmlcert::props

// DML_REDUCE (docs/ops/reduce.md): each output element applies the function to the N input elements
// that share its kept coordinates. reduction_groups() lists those elements for every output
// element, in row-major order over the reduced axes taken in increasing axis order, so the
// position of an element in its group is its ARGMAX / ARGMIN index. Axes are read as a set
// (REDUCE.AXES_DUPLICATE's admissible result), and no axes give groups of one
// (REDUCE.AXES_EMPTY's admissible result, N = 1).
//
// Numbers (docs/semantics.md, "Numbers"):
// - MIN, MAX, ARGMIN, ARGMAX are bit-exact: MIN/MAX return the selected input element's bits.
//   Ties keep the first element, and +0/-0 compare equal, so MAX(-0, +0) is -0 (the first).
//   NaN inputs are class U (REDUCE.NONFINITE); see NanPolicy.
// - Integer SUM, MULTIPLY, L1 and SUM_SQUARE are exact: computed modulo 2^64 and then reduced to
//   the type, which is the exact result whenever it fits the type (valid data always fits;
//   data that does not is class U, REDUCE.INT_OVERFLOW, and gets the wrapped result).
// - Float functions are computed in long double, sums with Neumaier compensation, and rounded
//   once to the output type: the exact real result rounded, up to the long double error.
#include <cmath>
#include <limits>

#include "dmlcert/reduce_groups.h"
#include "reference/internal.h"

namespace dmlcert::reference {
namespace {

using detail::copy_element;
using detail::InputTensor;
using detail::OutputTensor;

// How MIN, MAX, ARGMIN and ARGMAX treat NaN inputs (class U, REDUCE.NONFINITE): both readings are
// admissible; the reference's own is Propagate.
enum class NanPolicy {
  Propagate,  // IEEE-propagating: a NaN wins (MIN/MAX return the first NaN, ARG* its index)
  Ignore,     // NaN-ignoring: NaNs are skipped unless every element is NaN
};

using Elements = std::vector<const std::byte*>;  // one group's input elements, in group order

// Neumaier's compensated summation: the running compensation c collects the low-order bits each
// addition loses, whichever operand is larger.
class CompensatedSum {
 public:
  void add(long double x) {
    const long double t = sum_ + x;
    c_ += std::fabs(sum_) >= std::fabs(x) ? (sum_ - t) + x : (x - t) + sum_;
    sum_ = t;
  }
  // A non-finite running sum (class U data) is returned as IEEE arithmetic left it.
  long double value() const { return std::isfinite(sum_) ? sum_ + c_ : sum_; }

 private:
  long double sum_ = 0, c_ = 0;
};

// Position in xs of MAX (want_max) or MIN. Strict comparisons keep the first of equal elements.
std::size_t select_extreme(DataType t, const Elements& xs, bool want_max, NanPolicy nan_policy) {
  return dispatch(t, [&](auto tag) -> std::size_t {
    using T = typename decltype(tag)::type;
    // Compare in the element's own type (64-bit integers do not fit a double); half via float.
    auto value = [&](std::size_t i) {
      if constexpr (std::is_same_v<T, half>)
        return static_cast<float>(load<half>(xs[i]));
      else
        return load<T>(xs[i]);
    };
    auto is_nan = [&](std::size_t i) {
      if constexpr (is_float_v<T>)
        return std::isnan(value(i));
      else
        return false;
    };
    if (nan_policy == NanPolicy::Propagate)
      for (std::size_t i = 0; i < xs.size(); ++i)
        if (is_nan(i)) return i;  // IEEE-propagating: the first NaN is the result
    std::size_t best = xs.size();
    for (std::size_t i = 0; i < xs.size(); ++i) {
      if (is_nan(i)) continue;  // NaN-ignoring
      if (best == xs.size() || (want_max ? value(i) > value(best) : value(i) < value(best))) best = i;
    }
    return best == xs.size() ? 0 : best;  // every element NaN: the first one
  });
}

// SUM, MULTIPLY, L1, SUM_SQUARE over an integer type, exactly (see the file comment).
uint64_t integer_reduction(DataType t, ReduceFunction f, const Elements& xs) {
  uint64_t acc = f == ReduceFunction::MULTIPLY ? 1 : 0;
  for (const std::byte* p : xs) {
    const auto [u, negative] = dispatch(t, [p](auto tag) -> std::pair<uint64_t, bool> {
      using T = typename decltype(tag)::type;
      if constexpr (is_float_v<T>)
        return {0, false};  // not reached: integer types only
      else {
        const T v = load<T>(p);
        return {static_cast<uint64_t>(v), v < 0};  // modular: -1 becomes 2^64-1
      }
    });
    switch (f) {
      case ReduceFunction::SUM: acc += u; break;
      case ReduceFunction::MULTIPLY: acc *= u; break;
      case ReduceFunction::L1: acc += negative ? 0 - u : u; break;
      case ReduceFunction::SUM_SQUARE: acc += u * u; break;
      default: break;
    }
  }
  return acc;
}

// Every float function (and the integer types for functions whose tables hold only floats).
long double real_reduction(DataType t, ReduceFunction f, const Elements& xs) {
  auto x = [&](std::size_t i) { return static_cast<long double>(to_double(t, xs[i])); };
  const std::size_t n = xs.size();
  CompensatedSum acc;
  switch (f) {
    case ReduceFunction::SUM:  // sum x
      for (std::size_t i = 0; i < n; ++i) acc.add(x(i));
      return acc.value();
    case ReduceFunction::AVERAGE:  // sum x / N
      for (std::size_t i = 0; i < n; ++i) acc.add(x(i));
      return acc.value() / static_cast<long double>(n);
    case ReduceFunction::L1:  // sum abs(x)
      for (std::size_t i = 0; i < n; ++i) acc.add(std::fabs(x(i)));
      return acc.value();
    case ReduceFunction::SUM_SQUARE:  // sum x^2 (x^2 is exact in long double for float inputs)
      for (std::size_t i = 0; i < n; ++i) acc.add(x(i) * x(i));
      return acc.value();
    case ReduceFunction::L2:  // sqrt(sum x^2)
      for (std::size_t i = 0; i < n; ++i) acc.add(x(i) * x(i));
      return std::sqrt(acc.value());
    case ReduceFunction::LOG_SUM:  // log(sum x)
      for (std::size_t i = 0; i < n; ++i) acc.add(x(i));
      return std::log(acc.value());
    case ReduceFunction::LOG_SUM_EXP: {  // log(sum exp(x)) = M + log(sum exp(x - M)), M = max x
      long double m = -std::numeric_limits<long double>::infinity();
      for (std::size_t i = 0; i < n; ++i) {
        if (std::isnan(x(i))) return x(i);
        m = std::fmax(m, x(i));
      }
      if (std::isinf(m)) return m;  // all -inf gives -inf; any +inf gives +inf
      for (std::size_t i = 0; i < n; ++i) acc.add(std::exp(x(i) - m));
      return m + std::log(acc.value());
    }
    case ReduceFunction::MULTIPLY: {  // product x
      long double product = 1;
      for (std::size_t i = 0; i < n; ++i) product *= x(i);
      return product;
    }
    default: return 0;  // MIN, MAX, ARG*: not real-valued reductions
  }
}

// Rounds once to the output type: FLOAT32 straight from long double, everything else through
// from_double (round_to_half for FLOAT16, round-to-nearest for integers).
void store_rounded(DataType t, long double v, std::byte* p) {
  if (t == DataType::FLOAT32)
    store<float>(p, static_cast<float>(v));
  else
    from_double(t, static_cast<double>(v), p);
}

void store_index(DataType t, std::size_t index, std::byte* p) {
  dispatch(t, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (is_float_v<T>)
      from_double(t, static_cast<double>(index), p);  // not a valid output type
    else
      store<T>(p, static_cast<T>(index));
  });
}

bool is_exact_integer_function(ReduceFunction f) {
  return f == ReduceFunction::SUM || f == ReduceFunction::MULTIPLY || f == ReduceFunction::L1 ||
         f == ReduceFunction::SUM_SQUARE;
}

ExecResult reduce_with(const ReduceDesc& d, const Bindings& b, NanPolicy nan_policy) {
  const InputTensor input(d.input, b.input.data);
  const OutputTensor output(d.output, b.output.data);
  const auto groups = reduction_groups(d.input.sizes, d.axes);
  const DataType in = d.input.type, out = d.output.type;
  const ReduceFunction f = d.function;

  std::size_t g = 0;  // groups are row-major over the output sizes, like for_each_coord
  for_each_coord(d.output.sizes, [&](const Coord& c) {
    if (g >= groups.size()) return;  // only if Output.Sizes broke REDUCE.OUTPUT_SIZES
    Elements xs;
    xs.reserve(groups[g].size());
    for (uint64_t flat : groups[g]) xs.push_back(input.at_row_major(flat));
    ++g;
    std::byte* dst = output.at(c);
    switch (f) {
      case ReduceFunction::MAX:
      case ReduceFunction::MIN:
        copy_element(dst, xs[select_extreme(in, xs, f == ReduceFunction::MAX, nan_policy)],
                     output.element_bytes());
        break;
      case ReduceFunction::ARGMAX:
      case ReduceFunction::ARGMIN:
        store_index(out, select_extreme(in, xs, f == ReduceFunction::ARGMAX, nan_policy), dst);
        break;
      default:
        if (is_integer(in) && is_exact_integer_function(f)) {
          const uint64_t r = integer_reduction(in, f, xs);
          dispatch(out, [&](auto tag) {
            using T = typename decltype(tag)::type;
            if constexpr (is_float_v<T>)
              from_double(out, static_cast<double>(r), dst);  // not reached
            else
              store<T>(dst, static_cast<T>(r));  // modulo 2^bits: exact when it fits
          });
        } else {
          store_rounded(out, real_reduction(in, f, xs), dst);
        }
    }
  });
  return detail::ok();
}

}  // namespace

ExecResult compute(const ReduceDesc& d, FeatureLevel, const Bindings& b, Reading reading) {
  const bool selects =
      d.function == ReduceFunction::MIN || d.function == ReduceFunction::MAX || is_arg_function(d.function);
  switch (reading.behaviour) {
    case Behaviour::Specified:
    case Behaviour::NanPropagating:
      if (reading.behaviour == Behaviour::NanPropagating && !selects) break;
      return reduce_with(d, b, NanPolicy::Propagate);
    case Behaviour::NanIgnoring:
      if (!selects) break;
      return reduce_with(d, b, NanPolicy::Ignore);
    default: break;
  }
  return detail::not_applicable(reading);
}

}  // namespace dmlcert::reference

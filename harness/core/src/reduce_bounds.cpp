#include "dmlcert/reduce_bounds.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "dmlcert/reduce_groups.h"

// Notation for the derivations below (Higham, "Accuracy and Stability of Numerical Algorithms",
// ch. 3-4): u is the unit roundoff of the accumulation type, fl(a op b) = (a op b)(1+d) with
// |d| <= u, and gamma(k) = k*u / (1 - k*u) bounds the relative error of a product of k such
// (1+d) factors. Every bound starts from the error E of the backend's value before its final
// rounding to the output type.
//
// docs/semantics.md ("Numbers", SUM) adds one ulp of the output type to E, because the reference is the
// exact result x rounded once and the backend rounds its own value s once more. The same
// argument, kept exact instead of bounded, gives a tighter and still sound rule: |s - x| <= E,
// and round-to-nearest-even is monotonic, so the backend's result RN(s) lies in
// [RN(x - E), RN(x + E)]. That interval is what a result is checked against. It is never wider
// than docs/semantics.md's E + 1 ulp around the reference, and where no rounding midpoint lies within E
// of x it is a single value, which catches a final rounding toward zero that E + 1 ulp lets
// through.

namespace dmlcert {
namespace {

using Real = long double;  // the bounds' own arithmetic; far more precise than any bound needs

double gamma(double k, double u) {
  const double ku = k * u;
  return ku >= 1 ? std::numeric_limits<double>::infinity() : ku / (1 - ku);
}

// What the bounds need to know about the N input elements of one output element.
struct GroupStats {
  double n = 0;
  Real sum = 0, sum_abs = 0, sum_sq = 0, prod_abs = 1;
  bool prod_negative = false;
  Real max = -std::numeric_limits<Real>::infinity();
  Real sum_exp_shifted = 0;  // sum exp(x - max)
};

GroupStats stats_of(const std::vector<uint64_t>& group, DataType type, const Bytes& input, ReduceFunction f) {
  const size_t es = element_size(type);
  GroupStats s;
  s.n = static_cast<double>(group.size());
  for (uint64_t i : group) {
    if ((i + 1) * es > input.size()) continue;
    const Real x = to_double(type, input.data() + i * es);
    s.sum += x;
    s.sum_abs += std::fabs(x);
    s.sum_sq += x * x;
    s.prod_abs *= std::fabs(x);
    if (std::signbit(x)) s.prod_negative = !s.prod_negative;
    s.max = std::max(s.max, x);
  }
  // The shifted exponentials only for LOG_SUM_EXP: an exp in long double per element was the largest
  // cost of judging a fold of millions.
  if (f != ReduceFunction::LOG_SUM_EXP) return s;
  for (uint64_t i : group) {
    if ((i + 1) * es > input.size()) continue;
    s.sum_exp_shifted += std::exp(static_cast<Real>(to_double(type, input.data() + i * es)) - s.max);
  }
  return s;
}

// E for one output element: the error of the backend's value before the final rounding.
double pre_rounding_error(ReduceFunction f, const GroupStats& s, double u, double tiny) {
  const double n = s.n;
  const double sum_abs = static_cast<double>(s.sum_abs);
  // Gradual underflow adds an absolute error of at most half the smallest subnormal per
  // operation; docs/semantics.md keeps valid data away from it, and this term keeps that a non-issue.
  const double underflow = n * tiny;
  switch (f) {
    case ReduceFunction::SUM:
    case ReduceFunction::L1:
      // Recursive summation of N terms in any order and any tree shape: every term passes
      // through at most N-1 additions, so |s_hat - S| <= gamma(N-1) * sum|x_i| (Higham 4.2).
      // To first order this is docs/semantics.md's (N-1)*u_acc*sum|x|. L1 sums |x_i|; abs is exact.
      return gamma(n - 1, u) * sum_abs + underflow;
    case ReduceFunction::AVERAGE: {
      // q_hat = fl(s_hat / N), or s_hat * fl(1/N) (two roundings):
      //   |q_hat - S/N| <= |s_hat - S|/N + 2u*|s_hat|/N <= E_sum/N + 2u*(sum|x| + E_sum)/N.
      const double e_sum = gamma(n - 1, u) * sum_abs + underflow;
      return e_sum / n + 2 * u * (sum_abs + e_sum) / n;
    }
    case ReduceFunction::SUM_SQUARE:
      // Each square is rounded once, fl(x*x) = x^2(1+d), then N nonnegative terms are summed:
      // the product of at most 1 + (N-1) factors (1+d) gives |s_hat - S| <= gamma(N) * sum x^2
      // (~ N*u*sum x^2). A fused multiply-add accumulation has fewer roundings and fits too.
      return gamma(n, u) * static_cast<double>(s.sum_sq) + underflow;
    case ReduceFunction::L2: {
      // s_hat = S(1+e) with |e| <= gamma(N) (SUM_SQUARE). sqrt(S(1+e)) = sqrt(S)*sqrt(1+e) and
      //   |sqrt(1+e) - 1| = |e| / (sqrt(1+e) + 1) <= |e| / (1 + sqrt(1-|e|))  (~ |e|/2):
      // the relative error halves. sqrt itself rounds once more: r_hat = sqrt(s_hat)(1+d), so
      //   |r_hat - sqrt(S)| <= sqrt(S) * (rel + u*(1 + rel)),  rel = |e| / (1 + sqrt(1-|e|)).
      const double e = std::min(gamma(n, u), 1.0);
      const double rel = e / (1 + std::sqrt(1 - e));
      return static_cast<double>(std::sqrt(s.sum_sq)) * (rel + u * (1 + rel)) + underflow;
    }
    case ReduceFunction::MULTIPLY:
      // N-1 multiplications, each a factor (1+d): |p_hat - P| <= gamma(N-1) * |P|, first order
      // (N-1)*u*|prod|. Valid data keeps partial products away from underflow and overflow.
      return gamma(n - 1, u) * static_cast<double>(s.prod_abs);
    case ReduceFunction::LOG_SUM: {
      // log(s_hat) with s_hat = S(1+e), |e| <= gamma(N-1)*sum|x| / |S| (SUM's bound relative to
      // the sum): |log(1+e)| <= |e| / (1-|e|), i.e. the absolute error of the log is about the
      // relative error of the sum. log itself is faithful to 1 ulp <= 2u*|y|. When the sum
      // cancels to within its own error bound (|e| >= 1) the data does not determine the
      // result at this precision, and any result is accepted.
      const double y = std::log(std::fabs(static_cast<double>(s.sum)));
      const double e = (gamma(n - 1, u) * sum_abs + underflow) / std::fabs(static_cast<double>(s.sum));
      if (!(e < 1)) return std::numeric_limits<double>::infinity();
      return e / (1 - e) + 2 * u * std::fabs(y);
    }
    case ReduceFunction::LOG_SUM_EXP: {
      // log(sum exp(x_i)), computed directly or shifted by m = max x_i (log-sum-exp trick):
      // - each exp is faithful to 1 ulp: a factor (1 + 2u) per term;
      // - the shift x_i - m rounds with absolute error u*|x_i - m|, which changes the term
      //   exp(x_i - m) by at most u*|x_i - m|*exp(x_i - m) <= u/e, and the shifted sum is >= 1,
      //   so all N shifts add at most N*u/e < N*u relative to the sum;
      // - the N-1 additions of positive terms add gamma(N-1).
      // So s_hat = S(1+e) with |e| <= gamma(2N+2) (first order (N+1)u + N*u/e + N-1 terms, with
      // room), |log(1+e)| <= |e|/(1-|e|); log's own rounding (<= 2u|y|) and adding back m
      // (<= u|y|) give 3u*|y|.
      const double y = static_cast<double>(s.max + std::log(s.sum_exp_shifted));
      const double e = gamma(2 * n + 2, u);
      if (!(e < 1)) return std::numeric_limits<double>::infinity();
      return e / (1 - e) + 3 * u * std::fabs(y);
    }
    default: return 0;  // MIN, MAX, ARGMIN, ARGMAX are bit-exact: no bound
  }
}

// The exact result x of one output element, evaluated in Real, with a bound on how far that
// evaluation may be from the true x. Real (x86 extended, or quad) carries at least 64 bits, so
// `uncertainty` is orders of magnitude below E and only keeps the interval sound.
struct ExactValue {
  Real x = 0;
  double uncertainty = 0;
};

ExactValue exact_value(ReduceFunction f, const GroupStats& s) {
  const double n = s.n;
  const double ur = std::numeric_limits<Real>::epsilon();  // 2x Real's unit roundoff: room
  const double g = (n + 4) * ur;                           // Real's own gamma(N+4), with room
  switch (f) {
    case ReduceFunction::SUM: return {s.sum, g * static_cast<double>(s.sum_abs)};
    case ReduceFunction::L1: return {s.sum_abs, g * static_cast<double>(s.sum_abs)};
    case ReduceFunction::AVERAGE: return {s.sum / n, g * static_cast<double>(s.sum_abs) / n};
    case ReduceFunction::SUM_SQUARE: return {s.sum_sq, g * static_cast<double>(s.sum_sq)};
    case ReduceFunction::L2: {
      const Real r = std::sqrt(s.sum_sq);
      return {r, g * static_cast<double>(r)};
    }
    case ReduceFunction::MULTIPLY:
      return {s.prod_negative ? -s.prod_abs : s.prod_abs, g * static_cast<double>(s.prod_abs)};
    case ReduceFunction::LOG_SUM: {
      const Real y = std::log(std::fabs(s.sum));
      // the sum's relative uncertainty becomes the log's absolute one (|log(1+e)| <= 2|e|)
      const double rel = g * static_cast<double>(s.sum_abs / std::fabs(s.sum));
      return {y, 2 * rel + ur * std::fabs(static_cast<double>(y))};
    }
    case ReduceFunction::LOG_SUM_EXP: {
      const Real y = s.max + std::log(s.sum_exp_shifted);
      return {y, 4 * (2 * n + 4) * ur + 2 * ur * std::fabs(static_cast<double>(y))};
    }
    default: return {0, std::numeric_limits<double>::infinity()};
  }
}

// RN into the output type of a double that is already at least as far out as `v` (below for
// `down`, above otherwise): one step outward first, so that rounding Real to double never
// narrows the interval.
double round_outward(DataType out, Real v, bool down) {
  double d = static_cast<double>(v);
  d = std::nextafter(
      d, down ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity());
  std::byte buf[8];
  from_double(out, d, buf);
  return to_double(out, buf);
}

}  // namespace

bool has_error_bound(const ReduceDesc& d) {
  if (!is_float(d.input.type) || !is_valid(d.function)) return false;
  switch (d.function) {
    case ReduceFunction::MIN:
    case ReduceFunction::MAX:
    case ReduceFunction::ARGMIN:
    case ReduceFunction::ARGMAX: return false;
    default: return true;
  }
}

double accumulation_unit_roundoff(DataType input, AccumulationProfile profile) {
  switch (input) {
    case DataType::FLOAT16:
      return profile == AccumulationProfile::Relaxed ? std::ldexp(1.0, -11) : std::ldexp(1.0, -24);
    case DataType::FLOAT32: return std::ldexp(1.0, -24);
    case DataType::FLOAT64: return std::ldexp(1.0, -53);
    default: return 0;  // integer reductions are exact
  }
}

double ulp(DataType t, double v) {
  int digits, min_exp, max_exp;  // significand bits, exponents of the smallest and largest normal
  switch (t) {
    case DataType::FLOAT16: digits = 11, min_exp = -14, max_exp = 15; break;
    case DataType::FLOAT32: digits = 24, min_exp = -126, max_exp = 127; break;
    case DataType::FLOAT64: digits = 53, min_exp = -1022, max_exp = 1023; break;
    default: return 1;
  }
  const double a = std::fabs(v);
  int e = (a == 0 || std::isnan(a)) ? min_exp : (std::isinf(a) ? max_exp : std::ilogb(a));
  e = std::clamp(e, min_exp, max_exp);
  return std::ldexp(1.0, e - (digits - 1));
}

ReduceBounds reduce_error_bounds(const ReduceDesc& d, const Bytes& input, const Bytes& reference_output,
                                 AccumulationProfile profile) {
  const auto groups = reduction_groups(d.input.sizes, d.axes);
  const DataType acc = (d.input.type == DataType::FLOAT16 && profile == AccumulationProfile::Default)
                           ? DataType::FLOAT32
                           : d.input.type;
  const double u = accumulation_unit_roundoff(d.input.type, profile);
  const double tiny = ulp(acc, 0) / 2;
  const size_t out_es = element_size(d.output.type);
  constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
  ReduceBounds result;
  result.bounds.reserve(groups.size());
  result.ranges.reserve(groups.size());
  for (size_t g = 0; g < groups.size(); ++g) {
    const GroupStats stats = stats_of(groups[g], d.input.type, input, d.function);
    const double e = pre_rounding_error(d.function, stats, u, tiny);
    const double ref = (g + 1) * out_es <= reference_output.size()
                           ? to_double(d.output.type, reference_output.data() + g * out_es)
                           : 0;
    // The backend's unrounded value may lie up to E beyond the reference, possibly in the next
    // binade, so its final rounding is measured there.
    const double at = std::isfinite(ref) ? std::fabs(ref) + e : std::fabs(ref);
    result.bounds.push_back(e + ulp(d.output.type, at));

    const ExactValue x = exact_value(d.function, stats);
    const Real reach = static_cast<Real>(e) + x.uncertainty;
    if (!std::isfinite(static_cast<double>(x.x)) || !std::isfinite(static_cast<double>(reach))) {
      result.ranges.push_back({kNaN, kNaN});  // class U data, or no bound: docs/semantics.md's E + 1 ulp
      continue;
    }
    result.ranges.push_back(
        {round_outward(d.output.type, x.x - reach, true), round_outward(d.output.type, x.x + reach, false)});
  }
  return result;
}

}  // namespace dmlcert

// Data fills (docs/semantics.md, "Numbers"):
//  - Exact: small integers scaled by a power of two (powers of two for MULTIPLY), bounded so
//    that every summation order gives the same exact result and results compare bitwise.
//  - Random: random values, bounded so that valid float data keeps every partial result finite
//    and valid integer reductions never overflow, in any order.
//  - Special: NaN with payloads, ±inf, ±0, subnormals and integer extremes, only where docs/semantics.md
//    defines the result: data movement (bit-exact) and MIN/MAX/ARGMIN/ARGMAX (finite specials
//    only; NaN/Inf there is class U, REDUCE.NONFINITE). Other reductions fall back to Random.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "build.h"
#include "dmlcert/reduce_groups.h"

namespace dmlcert::props {
namespace {

// Writes an integer value (already inside the type's range) into an element.
void put_int(DataType t, std::byte* p, int64_t v) {
  dispatch(t, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (is_float_v<T>) {
      from_double(t, static_cast<double>(v), p);
    } else {
      store<T>(p, static_cast<T>(v));
    }
  });
}
void put_uint(DataType t, std::byte* p, uint64_t v) {
  dispatch(t, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (is_float_v<T>) {
      from_double(t, static_cast<double>(v), p);
    } else {
      store<T>(p, static_cast<T>(v));
    }
  });
}

// Raw random bits of the element width (every bit pattern: integers and, for floats, NaNs too).
void put_bits(DataType t, std::byte* p, uint64_t bits) {
  std::memcpy(p, &bits, element_size(t));
}

struct IntLimits {
  int64_t min;
  uint64_t max;  // as unsigned, so UINT64 fits
};
IntLimits int_limits(DataType t) {
  return dispatch(t, [](auto tag) -> IntLimits {
    using T = typename decltype(tag)::type;
    if constexpr (is_float_v<T>) {
      return {0, 0};
    } else {
      return {static_cast<int64_t>(std::numeric_limits<T>::min()),
              static_cast<uint64_t>(std::numeric_limits<T>::max())};
    }
  });
}

}  // namespace

double float_max(DataType t) {
  switch (t) {
    case DataType::FLOAT16: return 65504.0;
    case DataType::FLOAT32: return 3.4028234663852886e38;
    default: return 1.7976931348623157e308;
  }
}

namespace {
// Largest integer such that every integer of smaller magnitude is exact in the type.
double exact_int_limit(DataType t) {
  switch (t) {
    case DataType::FLOAT16: return 2048.0;
    case DataType::FLOAT32: return 16777216.0;
    default: return 9007199254740992.0;
  }
}

// The layout of an IEEE binary type's bits: sign, exponent, mantissa.
struct FloatBits {
  int mantissa, exponent;
};
FloatBits float_bits(DataType t) {
  switch (t) {
    case DataType::FLOAT16: return {10, 5};
    case DataType::FLOAT32: return {23, 8};
    default: return {52, 11};
  }
}

// Floating-point specials as bit patterns of the element width, each sign alike: ±0, the smallest,
// the largest and a random subnormal, the largest finite value and the smallest normal one (the
// finite ones, which MIN and MAX take as valid data), then ±infinity, the default quiet NaN, quiet
// NaNs with a payload and signalling NaNs (quiet bit clear, payload nonzero). A conversion
// through another float type quiets a signalling NaN; a kernel that flushes subnormals or adds
// 0.0 loses the subnormals or -0. Data movement is bit-exact for all of them.
uint64_t special_float_bits(DataType t, Prng& prng, bool finite_only) {
  const FloatBits f = float_bits(t);
  const uint64_t mantissa_mask = (uint64_t{1} << f.mantissa) - 1;
  const uint64_t quiet = uint64_t{1} << (f.mantissa - 1);
  const uint64_t exponent_mask = ((uint64_t{1} << f.exponent) - 1) << f.mantissa;
  const uint64_t sign = prng.coin() ? uint64_t{1} << (f.mantissa + f.exponent) : 0;
  const uint64_t random = prng.next();
  switch (prng.below(finite_only ? 7 : 13)) {
    case 0: return 0;
    case 1: return uint64_t{1} << (f.mantissa + f.exponent);  // -0
    case 2: return sign | 1;                                  // the smallest subnormal
    case 3: return sign | mantissa_mask;                      // the largest subnormal
    case 4: return sign | (1 + random % mantissa_mask);       // a subnormal
    case 5: return sign | (exponent_mask - (uint64_t{1} << f.mantissa)) | mantissa_mask;  // the largest
    case 6: return sign | (uint64_t{1} << f.mantissa);                                    // smallest normal
    case 7: return sign | exponent_mask;                                                  // infinity
    case 8: return exponent_mask | quiet;                                      // the default quiet NaN
    case 9: return sign | exponent_mask | quiet | (1 + random % (quiet - 1));  // quiet, with a payload
    case 10: return sign | exponent_mask | (1 + random % (quiet - 1));         // signalling
    case 11: return sign | exponent_mask | 1;                                  // signalling, payload 1
    default: return sign | exponent_mask | (quiet - 1);                        // signalling, all ones
  }
}

// Integer values where narrow or float arithmetic goes wrong: the type's extremes and their
// neighbours, 0 and -1, the first integers a float (2^24 + 1) or a double (2^53 + 1) cannot hold,
// and the edges of narrower widths (2^8, 2^15, 2^16, 2^31, 2^32, each with its neighbours), of
// either sign where the type has one; values outside the type are left for another pick.
void put_edge_int(DataType t, std::byte* p, Prng& prng) {
  const IntLimits l = int_limits(t);
  const bool sgn = is_signed_integer(t);
  for (;;) {
    const uint64_t pick = prng.below(10);
    if (pick == 0) return put_int(t, p, l.min);
    if (pick == 1) return put_uint(t, p, l.max);
    if (pick == 2) return put_int(t, p, l.min + 1);
    if (pick == 3) return put_uint(t, p, l.max - 1);
    if (pick == 4) return put_int(t, p, sgn ? -1 : 0);
    static constexpr int kExponents[] = {8, 15, 16, 24, 31, 32, 53};
    const int e = kExponents[prng.below(std::size(kExponents))];
    const uint64_t v = (uint64_t{1} << e) + (prng.below(3) - 1);  // 2^e - 1, 2^e or 2^e + 1
    const bool negative = sgn && prng.coin();
    if (!negative && v <= l.max) return put_uint(t, p, v);
    if (negative && v <= static_cast<uint64_t>(-(l.min + 1)) + 1)
      return put_int(t, p, -static_cast<int64_t>(v));
  }
}

// Integer extremes and their neighbours.
void put_special_int(DataType t, std::byte* p, Prng& prng) {
  const IntLimits l = int_limits(t);
  switch (prng.below(8)) {
    case 0: put_int(t, p, l.min); break;
    case 1: put_uint(t, p, l.max); break;
    case 2: put_int(t, p, 0); break;
    case 3: put_int(t, p, is_signed_integer(t) ? -1 : 1); break;
    case 4: put_int(t, p, l.min + 1); break;
    case 5: put_uint(t, p, l.max - 1); break;
    case 6: put_edge_int(t, p, prng); break;
    default: put_bits(t, p, prng.next()); break;
  }
}

// Exact-mode value: an integer in [lo, hi] times 2^scale (floats), or the integer (integers).
void put_small(DataType t, std::byte* p, int64_t lo, int64_t hi, int scale, Prng& prng) {
  const int64_t v = lo + static_cast<int64_t>(prng.below(static_cast<uint64_t>(hi - lo + 1)));
  if (is_float(t))
    from_double(t, std::ldexp(static_cast<double>(v), scale), p);
  else
    put_int(t, p, v);
}

// A random finite float in [lo, hi] on a grid of 1/256, or finer for a range narrower than 8 (so
// that it holds 32 steps), never finer than the type's smallest normal number (away from
// underflow).
void put_random_float(DataType t, std::byte* p, double lo, double hi, Prng& prng) {
  const double smallest_normal = t == DataType::FLOAT16   ? 0x1p-14
                                 : t == DataType::FLOAT32 ? 0x1p-126
                                                          : 0x1p-1022;
  double grid = 1.0 / 256;
  while (grid > (hi - lo) / 32 && grid / 2 >= smallest_normal) grid /= 2;
  const double u = static_cast<double>(prng.below(1u << 20)) / static_cast<double>(1u << 20);
  double v = lo + (hi - lo) * u;
  v = std::round(v / grid) * grid;
  from_double(t, v, p);
}

// The largest power-of-two exponent s <= 0 with 2^s <= fit: integers scaled by 2^s, n of them,
// stay within n * fit when fit < 1 (a fold longer than the type's exact integers, FLOAT16's 2048).
int fine_scale(double fit) {
  return fit >= 1 ? 0 : static_cast<int>(std::floor(std::log2(fit)));
}

}  // namespace

rc::Gen<FillSpec> fill_gen(std::optional<DataMode> mode, uint64_t salt) {
  auto m = mode ? rc::gen::just(*mode)
                : rc::gen::weightedElement<DataMode>(
                      {{4, DataMode::Exact}, {4, DataMode::Random}, {2, DataMode::Special}});
  auto drawn = rc::gen::construct<FillSpec>(m, rc::gen::cast<uint64_t>(raw()), raw(101));
  if (salt == 0) return drawn;
  return rc::gen::map(drawn, [salt](FillSpec f) {
    f.seed = mix_seed(f.seed, salt);
    return f;
  });
}

Bytes fill_movement(DataType t, uint64_t count, const FillSpec& spec) {
  const size_t es = element_size(t);
  Bytes out(count * es);
  Prng prng(mix_seed(spec.seed, 0xf111u));
  const int64_t r = 1 + spec.magnitude;
  const double float_bound = 16.0 * static_cast<double>(r);
  const int scale = static_cast<int>(spec.seed % 5) - 2;
  for (uint64_t i = 0; i < count; ++i) {
    std::byte* p = out.data() + i * es;
    switch (spec.mode) {
      case DataMode::Exact:
        put_small(t, p, is_signed_integer(t) || is_float(t) ? -r : 0, r, scale, prng);
        break;
      case DataMode::Random:
        // Data movement is bit-exact for every bit pattern, so random float data mixes in the
        // specials (NaN payloads, -0.0, infinities, subnormals) one element in four: a backend
        // that moves floats by value must be caught without the Special mode.
        // Random integers are mostly wide; one in eight sits at an edge (put_edge_int).
        if (is_float(t) && prng.below(4) == 0)
          put_bits(t, p, special_float_bits(t, prng, false));
        else if (is_float(t))
          put_random_float(t, p, -float_bound, float_bound, prng);
        else if (prng.below(8) == 0)
          put_edge_int(t, p, prng);
        else
          put_bits(t, p, prng.next());
        break;
      case DataMode::Special:
        if (prng.coin())
          put_small(t, p, is_signed_integer(t) || is_float(t) ? -r : 0, r, 0, prng);
        else if (is_float(t))
          put_bits(t, p, special_float_bits(t, prng, false));
        else
          put_special_int(t, p, prng);
        break;
    }
  }
  return out;
}

Bytes fill_reduce(ReduceFunction f, DataType t, uint64_t count, uint64_t n, const FillSpec& spec) {
  const size_t es = element_size(t);
  Bytes out(count * es);
  Prng prng(mix_seed(spec.seed, 0x4ed0u + static_cast<uint64_t>(f)));
  n = std::max<uint64_t>(n, 1);
  const int64_t r = 1 + spec.magnitude;
  // The fold length and the magnitude as the float bounds below use them.
  const double folded = static_cast<double>(n), float_bound = 16.0 * static_cast<double>(r);
  const bool fp = is_float(t);
  const bool sgn = fp || is_signed_integer(t);
  const int scale = static_cast<int>(spec.seed % 5) - 2;
  // Integer bound on |x| so that n of them never leave the type (or, for floats, stay exact).
  const double type_limit = fp ? exact_int_limit(t) : static_cast<double>(int_limits(t).max);
  // Capped at 2^60 so that the range [-m, m] itself never overflows int64.
  auto per_element = [&](double total) {
    return std::clamp<int64_t>(static_cast<int64_t>(std::min(total / folded, 1152921504606846976.0)), 1,
                               int64_t{1} << 60);
  };
  DataMode mode = spec.mode;
  const bool minmax = f == ReduceFunction::MIN || f == ReduceFunction::MAX || is_arg_function(f);
  if (mode == DataMode::Special && !minmax) mode = DataMode::Random;

  for (uint64_t i = 0; i < count; ++i) {
    std::byte* p = out.data() + i * es;
    switch (f) {
      case ReduceFunction::ARGMAX:
      case ReduceFunction::ARGMIN:
      case ReduceFunction::MAX:
      case ReduceFunction::MIN:
        if (mode == DataMode::Special && prng.coin()) {
          if (fp)
            put_bits(t, p, special_float_bits(t, prng, true));
          else
            put_special_int(t, p, prng);
        } else if (mode == DataMode::Random) {
          // One element in eight at a special bit pattern (finite: NaN and infinity are class U
          // here) or an integer edge; MIN and MAX return an element's bits, so they must keep them.
          if (fp && prng.below(8) == 0)
            put_bits(t, p, special_float_bits(t, prng, true));
          else if (fp)
            put_random_float(t, p, -float_bound, float_bound, prng);
          else if (prng.below(8) == 0)
            put_edge_int(t, p, prng);
          else
            put_bits(t, p, prng.next());
        } else {
          put_small(t, p, sgn ? -r : 0, r, fp ? scale : 0, prng);
        }
        break;
      case ReduceFunction::SUM:
      case ReduceFunction::AVERAGE:
      case ReduceFunction::L1: {
        if (mode == DataMode::Exact || !fp) {
          // Integers: Random mode uses half the headroom (the other half is for widen_some()),
          // Exact stays small.
          const int64_t m =
              mode == DataMode::Exact ? std::min(r, per_element(type_limit)) : per_element(type_limit / 2);
          // Signed: |x| <= m keeps |partial| <= n*m; abs() of such x never overflows either.
          put_small(t, p, sgn ? -m : 0, m, fp ? std::min({scale, 0, fine_scale(type_limit / folded)}) : 0,
                    prng);
        } else {
          const double b = std::min(float_bound, 0.25 * float_max(t) / folded);
          put_random_float(t, p, -b, b, prng);
        }
        break;
      }
      case ReduceFunction::SUM_SQUARE:
      case ReduceFunction::L2: {
        if (mode == DataMode::Exact || !fp) {
          const double headroom = mode == DataMode::Exact ? type_limit : type_limit / 2;
          const int64_t bound = std::max<int64_t>(1, static_cast<int64_t>(std::sqrt(headroom / folded)));
          const int64_t m = mode == DataMode::Exact ? std::min(r, bound) : bound;
          put_small(t, p, sgn ? -m : 0, m, fp ? fine_scale(std::sqrt(headroom / folded)) : 0, prng);
        } else {
          const double b = std::min(float_bound, std::sqrt(0.25 * float_max(t) / folded));
          put_random_float(t, p, -b, b, prng);
        }
        break;
      }
      case ReduceFunction::LOG_SUM: {
        // log(sum x) needs a positive sum: positive data.
        if (mode == DataMode::Exact) {
          put_small(t, p, 1, std::min(r, per_element(type_limit)), fine_scale(type_limit / folded), prng);
        } else {
          const double b = std::min(float_bound, 0.25 * float_max(t) / folded);
          put_random_float(t, p, std::min(0.25, b / 2), std::max(std::min(0.5, b), b), prng);
        }
        break;
      }
      case ReduceFunction::LOG_SUM_EXP: {
        // exp(x) summed n times stays below 30000 (finite even in FLOAT16): x in [-a, a], or, for
        // folds longer than 30000, in [a - 4, a] with a = log(30000 / n) below 0.
        const double a = std::min(std::log(30000.0 / folded), 4.0);
        const double lo = a >= 0 ? -a : a - 4;
        if (mode == DataMode::Exact)
          put_small(t, p, static_cast<int64_t>(std::ceil(lo)), static_cast<int64_t>(std::floor(a)), 0, prng);
        else
          put_random_float(t, p, lo, a, prng);
        break;
      }
      case ReduceFunction::MULTIPLY:
        // Filled per group below.
        break;
    }
  }
  if (f == ReduceFunction::MULTIPLY) {
    // Each element is ±1 or ±2^k. A group of n elements may hold at most `budget` elements with
    // k = +1 and `budget` with k = -1, so every partial product (any order, any subset) stays
    // within [2^-budget, 2^budget]: exact for floats, inside the range for integers. Counting
    // over the whole tensor bounds every group, and survives 0-stride copies of elements only
    // when the layout has none (reduce.cpp gives MULTIPLY no broadcast inputs).
    int budget = 0;
    switch (t) {
      case DataType::FLOAT16: budget = 12; break;
      case DataType::FLOAT32: budget = 100; break;
      case DataType::INT32: budget = 30; break;
      case DataType::UINT32: budget = 31; break;
      case DataType::INT64: budget = 62; break;
      case DataType::UINT64: budget = 63; break;
      default: budget = 6; break;
    }
    int up = 0, down = 0;
    // Random integer data: two odd factors 2^w + 1 as wide as the budget allows, whose product
    // (past 2^24 for 32-bit types, past 2^53 for 64-bit ones) no float or double accumulator holds.
    std::vector<uint64_t> wide;
    if (!fp && mode == DataMode::Random && count >= 2) {
      const int w = budget / 2 - 1;
      for (int k = 0; k < 2; ++k) wide.push_back(prng.below(count)), up += w + 1;
    }
    for (uint64_t i = 0; i < count; ++i) {
      std::byte* p = out.data() + i * es;
      if (std::find(wide.begin(), wide.end(), i) != wide.end()) {
        const int64_t v = (int64_t{1} << (budget / 2 - 1)) + 1;
        put_int(t, p, sgn && prng.coin() ? -v : v);
        continue;
      }
      const bool negative = sgn && prng.coin();
      const uint64_t pick = prng.below(4);
      double v = 1.0;
      if (pick == 0 && up < budget) v = 2.0, ++up;
      if (pick == 1 && fp && down < budget) v = 0.5, ++down;
      if (pick == 2 && mode != DataMode::Exact && prng.below(8) == 0) v = 0.0;
      from_double(t, negative ? -v : v, p);
    }
  }
  return out;
}

void widen_some(ReduceFunction f, DataType t, Bytes& data, const FillSpec& spec) {
  const bool sums = f == ReduceFunction::SUM || f == ReduceFunction::L1;
  if (is_float(t) || spec.mode != DataMode::Random || !(sums || f == ReduceFunction::SUM_SQUARE)) return;
  const size_t es = element_size(t);
  const uint64_t count = data.size() / es;
  if (count == 0) return;
  Prng prng(mix_seed(spec.seed, 0x31d3u));
  const double limit = static_cast<double>(int_limits(t).max);
  // The largest magnitude two of which still fit with fill_reduce's half of the headroom, and
  // where a float (2^24) or a double (2^53) accumulator stops being exact.
  const double most = sums ? limit / 4 : std::sqrt(limit / 4);
  const double exact = element_size(t) == 8 ? 9007199254740992.0 : 16777216.0;
  const double least = sums ? exact : std::sqrt(exact);
  if (most <= least + 2) return;
  for (int k = 0; k < 2; ++k) {
    const uint64_t span = static_cast<uint64_t>(most - least) - 1;
    const int64_t v = static_cast<int64_t>(static_cast<uint64_t>(least) + 1 + prng.below(span)) | 1;
    put_int(t, data.data() + prng.below(count) * es, is_signed_integer(t) && prng.coin() ? -v : v);
  }
}

Bytes encode_indices(DataType t, const std::vector<int64_t>& values) {
  const size_t es = element_size(t);
  Bytes out(values.size() * es);
  for (size_t i = 0; i < values.size(); ++i) put_int(t, out.data() + i * es, values[i]);
  return out;
}

std::vector<int64_t> decode_indices(DataType t, const Bytes& data) {
  const size_t es = element_size(t);
  std::vector<int64_t> v(data.size() / es);
  for (size_t i = 0; i < v.size(); ++i)
    dispatch(t, [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (!is_float_v<T>) v[i] = static_cast<int64_t>(load<T>(data.data() + i * es));
    });
  return v;
}

bool negative_indices_legal(FeatureLevel level, DataType t) {
  return level >= FeatureLevel::L3_0 && is_signed_integer(t);
}

int64_t maybe_negative(int64_t v, int64_t d, bool negative) {
  return negative ? v - d : v;
}

}  // namespace dmlcert::props

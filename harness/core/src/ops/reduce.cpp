// REDUCE's rules, support table, checks and comparison model (docs/rules.md, docs/support.md;
// seed 002).
#include "dmlcert/ops/reduce.h"

#include <cmath>
#include <limits>
#include <sstream>

#include "checks.h"
#include "dmlcert/compare.h"
#include "dmlcert/reduce_bounds.h"
#include "dmlcert/reduce_groups.h"
#include "types.h"

namespace dmlcert {
namespace {

using enum RuleTag;
using namespace checks;

constexpr std::array kNanReadings = {Behaviour::NanPropagating, Behaviour::NanIgnoring};
constexpr std::array kNanProfile = {ProfileReading{"nan-propagating", {Behaviour::NanPropagating, 0}},
                                    ProfileReading{"nan-ignoring", {Behaviour::NanIgnoring, 0}},
                                    ProfileReading{"IEEE arithmetic", {}}};
// The reference accumulates integers in the element type, wrapping modulo 2^bits.
constexpr std::array kOverflowProfile = {ProfileReading{"wrapped", {}}};

constexpr std::array kRules = {
    Rule{"REDUCE.DIMCOUNT", Doc, "Output rank == Input rank."},
    Rule{"REDUCE.AXIS_RANGE", Doc, "Every axis is in [0, rank-1]."},
    Rule{"REDUCE.AXES_EMPTY",
         Unspecified,
         "AxisCount == 0 is class U; if executed, the function applies to each element alone (N = 1).",
         Admits::Formula,
         {},
         profiles::kTheFormula},
    Rule{"REDUCE.AXES_DUPLICATE",
         Unspecified,
         "A repeated axis is class U; if executed, the axes are treated as a set.",
         Admits::Formula,
         {},
         profiles::kTheFormula},
    Rule{"REDUCE.OUTPUT_SIZES", Doc, "Output.Sizes[i] is 1 for reduced axes and Input.Sizes[i] otherwise."},
    Rule{"REDUCE.DTYPE_MATCH", Doc,
         "Output DataType == Input DataType, except ARGMAX/ARGMIN, whose output is an integer type."},
    Rule{"REDUCE.INT_OVERFLOW",
         Unspecified,
         "An integer reduction whose result or a partial result leaves the type's range is class U.",
         Admits::Anything,
         {},
         kOverflowProfile},
    Rule{"REDUCE.NONFINITE", Unspecified,
         "NaN/Inf input to a float REDUCE, or a float partial result that overflows, is class U (MIN/MAX/"
         "ARG*: IEEE-propagating or NaN-ignoring results are admissible).",
         Admits::Readings, kNanReadings, kNanProfile},
};

// The functions share support tables by group (seed 002: "機能に応じたテンソルサポート").
using F = ReduceFunction;
constexpr std::array kArgMinMax = {F::ARGMAX, F::ARGMIN};
constexpr std::array kAverageL2LogSum = {F::AVERAGE, F::L2, F::LOG_SUM, F::LOG_SUM_EXP};
constexpr std::array kL1SumSquare = {F::L1, F::SUM_SQUARE};
constexpr std::array kMinMax = {F::MAX, F::MIN};
constexpr std::array kMultiplySum = {F::MULTIPLY, F::SUM};

using enum DataType;
constexpr std::array kF32F16I32U32 = {FLOAT32, FLOAT16, INT32, UINT32};
constexpr std::array kF32F16I64I32U64U32 = {FLOAT32, FLOAT16, INT64, INT32, UINT64, UINT32};

using L = FeatureLevel;
using R = Role;
constexpr std::array<SupportRow, 34> kSupport = {{
    {kArgMinMax, R::INPUT, L::L1_0, 4, 4, types::kF32F16},
    {kArgMinMax, R::OUTPUT, L::L1_0, 4, 4, types::kU32},
    {kArgMinMax, R::INPUT, L::L2_1, 4, 4, types::k8Types},
    {kArgMinMax, R::OUTPUT, L::L2_1, 4, 4, types::kU32},
    {kArgMinMax, R::INPUT, L::L3_0, 1, 8, types::k8Types},
    {kArgMinMax, R::OUTPUT, L::L3_0, 1, 8, types::kIndexTypes},
    {kArgMinMax, R::INPUT, L::L4_1, 1, 8, types::kAllButF64},
    {kArgMinMax, R::OUTPUT, L::L4_1, 1, 8, types::kIndexTypes},
    {kAverageL2LogSum, R::INPUT, L::L1_0, 4, 4, types::kF32F16},
    {kAverageL2LogSum, R::OUTPUT, L::L1_0, 4, 4, types::kF32F16},
    {kAverageL2LogSum, R::INPUT, L::L3_0, 1, 8, types::kF32F16},
    {kAverageL2LogSum, R::OUTPUT, L::L3_0, 1, 8, types::kF32F16},
    {kL1SumSquare, R::INPUT, L::L1_0, 4, 4, types::kF32F16},
    {kL1SumSquare, R::OUTPUT, L::L1_0, 4, 4, types::kF32F16},
    {kL1SumSquare, R::INPUT, L::L3_0, 1, 8, types::kF32F16},
    {kL1SumSquare, R::OUTPUT, L::L3_0, 1, 8, types::kF32F16},
    {kL1SumSquare, R::INPUT, L::L5_0, 1, 8, kF32F16I64I32U64U32},
    {kL1SumSquare, R::OUTPUT, L::L5_0, 1, 8, kF32F16I64I32U64U32},
    {kMinMax, R::INPUT, L::L1_0, 4, 4, types::kF32F16},
    {kMinMax, R::OUTPUT, L::L1_0, 4, 4, types::kF32F16},
    {kMinMax, R::INPUT, L::L2_1, 4, 4, kF32F16I32U32},
    {kMinMax, R::OUTPUT, L::L2_1, 4, 4, kF32F16I32U32},
    {kMinMax, R::INPUT, L::L3_0, 1, 8, types::k8Types},
    {kMinMax, R::OUTPUT, L::L3_0, 1, 8, types::k8Types},
    {kMinMax, R::INPUT, L::L5_0, 1, 8, types::kAllButF64},
    {kMinMax, R::OUTPUT, L::L5_0, 1, 8, types::kAllButF64},
    {kMultiplySum, R::INPUT, L::L1_0, 4, 4, types::kF32F16},
    {kMultiplySum, R::OUTPUT, L::L1_0, 4, 4, types::kF32F16},
    {kMultiplySum, R::INPUT, L::L2_1, 4, 4, kF32F16I32U32},
    {kMultiplySum, R::OUTPUT, L::L2_1, 4, 4, kF32F16I32U32},
    {kMultiplySum, R::INPUT, L::L3_0, 1, 8, kF32F16I32U32},
    {kMultiplySum, R::OUTPUT, L::L3_0, 1, 8, kF32F16I32U32},
    {kMultiplySum, R::INPUT, L::L5_0, 1, 8, kF32F16I64I32U64U32},
    {kMultiplySum, R::OUTPUT, L::L5_0, 1, 8, kF32F16I64I32U64U32},
}};

// REDUCE.INT_OVERFLOW: accumulates each group in row-major order in the element type itself and
// reports the first step whose exact value leaves the type's range. Returns the step (1-based)
// that overflowed, or 0.
template <class T>
size_t first_integer_overflow(ReduceFunction fn, const Bytes& data, const std::vector<uint64_t>& g) {
  T acc = 0;
  for (size_t j = 0; j < g.size(); ++j) {
    T x = load<T>(data.data() + g[j] * sizeof(T));
    if (fn == ReduceFunction::L1 && x < 0) {
      if (x == std::numeric_limits<T>::min()) return j + 1;  // |x| is not representable
      x = static_cast<T>(-x);
    }
    if (fn == ReduceFunction::SUM_SQUARE && __builtin_mul_overflow(x, x, &x)) return j + 1;
    if (fn == ReduceFunction::MULTIPLY && j == 0) {
      acc = x;
      continue;
    }
    const bool overflow = fn == ReduceFunction::MULTIPLY ? __builtin_mul_overflow(acc, x, &acc)
                                                         : __builtin_add_overflow(acc, x, &acc);
    if (overflow) return j + 1;
  }
  return 0;
}

// REDUCE.NONFINITE for float inputs: a NaN/Inf input, or a partial result (row-major order, in
// double) whose magnitude exceeds the output type's largest finite value. The partial results are
// those of the function's running accumulation: the sum (SUM, AVERAGE, LOG_SUM), the sum of |x|
// (L1), of x^2 (L2, SUM_SQUARE), of exp(x) (LOG_SUM_EXP), and the product (MULTIPLY).
std::optional<std::string> nonfinite_finding(ReduceFunction fn, DataType type, double max_out,
                                             const Bytes& data, const std::vector<uint64_t>& g) {
  const size_t es = element_size(type);
  double acc = fn == ReduceFunction::MULTIPLY ? 1.0 : 0.0;
  for (size_t j = 0; j < g.size(); ++j) {
    const double x = to_double(type, data.data() + g[j] * es);
    if (!std::isfinite(x))
      return "tensors.input.data[" + std::to_string(g[j]) + "] is " +
             (std::isnan(x) ? "nan"
              : x > 0       ? "inf"
                            : "-inf");
    switch (fn) {
      case ReduceFunction::SUM:
      case ReduceFunction::AVERAGE:
      case ReduceFunction::LOG_SUM: acc += x; break;
      case ReduceFunction::L1: acc += std::fabs(x); break;
      case ReduceFunction::L2:
      case ReduceFunction::SUM_SQUARE: acc += x * x; break;
      case ReduceFunction::LOG_SUM_EXP: acc += std::exp(x); break;
      case ReduceFunction::MULTIPLY: acc *= x; break;
      default: continue;  // MIN, MAX, ARGMIN, ARGMAX have no partial arithmetic
    }
    if (!(std::fabs(acc) <= max_out)) {
      std::ostringstream o;
      o << "partial " << name(fn) << " after " << (j + 1) << " of " << g.size() << " inputs is " << acc
        << ", beyond the output type's largest finite value " << max_out;
      return o.str();
    }
  }
  return std::nullopt;
}

double largest_finite(DataType t) {
  switch (t) {
    case DataType::FLOAT16: return 65504.0;
    case DataType::FLOAT32: return std::numeric_limits<float>::max();
    default: return std::numeric_limits<double>::max();
  }
}

}  // namespace

std::span<const Rule> ReduceDesc::rules() {
  return kRules;
}
std::span<const SupportRow> ReduceDesc::support_rows() {
  return kSupport;
}

void ReduceDesc::validate(const ReduceDesc& d, FeatureLevel, Findings& f) {
  const bool valid_function = is_valid(d.function);
  if (!valid_function)
    f.invalid("OP.FUNCTION", "params.function is " + std::to_string(static_cast<uint32_t>(d.function)) +
                                 "; it must be one of the 12 DML_REDUCE_FUNCTION values (0..11)");
  const uint32_t rank = d.input.rank();
  if (d.output.rank() != rank)
    f.invalid("REDUCE.DIMCOUNT", "tensors.output.sizes has " + std::to_string(d.output.rank()) +
                                     " dimensions but tensors.input.sizes has " + std::to_string(rank));
  if (d.axes.empty()) f.unspecified("REDUCE.AXES_EMPTY", "params.axes is empty (AxisCount 0)");
  // first[a]: where axis a was first listed, for the duplicate message; one pass, so a
  // descriptor with a million axes is checked in linear time.
  std::vector<int64_t> first(rank, -1);
  for (size_t i = 0; i < d.axes.size(); ++i) {
    const uint32_t a = d.axes[i];
    if (a >= rank) {
      f.invalid_lazy("REDUCE.AXIS_RANGE", [&] {
        return at("params.axes", i) + " is " + std::to_string(a) + "; it must be in [0, " +
               std::to_string(rank) + "-1] (tensors.input DimensionCount " + std::to_string(rank) + ")";
      });
      continue;
    }
    if (first[a] >= 0)
      f.unspecified_lazy("REDUCE.AXES_DUPLICATE", [&] {
        return at("params.axes", i) + " repeats axis " + std::to_string(a) + " (" +
               at("params.axes", static_cast<size_t>(first[a])) + ")";
      });
    else
      first[a] = static_cast<int64_t>(i);
  }
  if (d.output.rank() == rank)
    for (size_t i = 0; i < rank; ++i) {
      const bool reduced = first[i] >= 0;
      const uint32_t want = reduced ? 1 : d.input.sizes[i];
      if (d.output.sizes[i] != want)
        f.invalid("REDUCE.OUTPUT_SIZES",
                  at("tensors.output.sizes", i) + " is " + std::to_string(d.output.sizes[i]) + "; expected " +
                      std::to_string(want) +
                      (reduced ? " (reduced axis)" : " (tensors.input.sizes[" + std::to_string(i) + "])"));
    }
  if (!valid_function) return;  // which type rule applies depends on the function
  if (is_arg_function(d.function)) {
    if (!is_integer(d.output.type))
      f.invalid("REDUCE.DTYPE_MATCH", "tensors.output.type is " + std::string(name(d.output.type)) + "; " +
                                          name(d.function) + " outputs an integer type");
  } else {
    check_dtype_match(f, "REDUCE.DTYPE_MATCH", Role::OUTPUT, d.output, d.input);
  }
}

void ReduceDesc::check_data(const ReduceDesc& d, FeatureLevel, const InputData& data, Findings& f) {
  if (!is_valid(d.function) || !has_logical_data(d.input, data.input)) return;
  for (uint32_t a : d.axes)
    if (a >= d.input.rank()) return;
  const auto groups = reduction_groups(d.input.sizes, d.axes);
  const bool integer_arithmetic =
      d.function == ReduceFunction::SUM || d.function == ReduceFunction::MULTIPLY ||
      d.function == ReduceFunction::L1 || d.function == ReduceFunction::SUM_SQUARE;
  for (size_t o = 0; o < groups.size(); ++o) {
    const auto& g = groups[o];
    if (is_float(d.input.type)) {
      if (auto why =
              nonfinite_finding(d.function, d.input.type, largest_finite(d.output.type), data.input, g))
        f.unspecified("REDUCE.NONFINITE", "output element " + std::to_string(o) + ": " + *why);
    } else if (integer_arithmetic) {
      const size_t step = dispatch(d.input.type, [&](auto tag) -> size_t {
        using T = typename decltype(tag)::type;
        if constexpr (is_float_v<T>)
          return 0;
        else
          return first_integer_overflow<T>(d.function, data.input, g);
      });
      if (step)
        f.unspecified(
            "REDUCE.INT_OVERFLOW",
            "output element " + std::to_string(o) + ": the " + name(d.function) + " partial result after " +
                std::to_string(step) + " of " + std::to_string(g.size()) + " inputs (at tensors.input.data[" +
                std::to_string(g[step - 1]) + "]) leaves the range of " + std::string(name(d.input.type)));
    }
  }
}

uint64_t ReduceDesc::oracle_bytes(const ReduceDesc& d) {
  // 8 bytes per input element (its flat index), and a vector's header and allocation per output.
  const uint64_t in = element_count(d.input.sizes).value_or(UINT64_MAX);
  const uint64_t out = element_count(d.output.sizes).value_or(UINT64_MAX);
  constexpr uint64_t kPerOutput = 48;
  if (in > UINT64_MAX / 16 || out > UINT64_MAX / 16 / kPerOutput) return UINT64_MAX / 2;
  return 8 * in + kPerOutput * out;
}

void ReduceDesc::refine_expectation(const ReduceDesc& d, const InputData& data, AccumulationProfile profile,
                                    Expectation& e) {
  // "±0 compare equal for float reductions", which includes MIN and MAX (IEEE 754 leaves
  // min(+0, -0) open). NaN results match whatever their payload: which NaN a reduction
  // propagates is not specified.
  if (is_float(d.output.type)) e.zero_signs_equal = e.nan_equal = true;
  if (!has_error_bound(d) || e.candidates.empty()) return;
  ReduceBounds b = reduce_error_bounds(d, data.input, e.candidates.front(), profile);
  e.bounds = std::move(b.bounds);
  e.ranges = std::move(b.ranges);
}

}  // namespace dmlcert

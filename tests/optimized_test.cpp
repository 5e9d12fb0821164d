// The optimized backend against the reference (each operator's hand-computed table runs on both
// backends in tests/<stem>_test.cpp):
// (b) a randomized differential check over every operator, type and rank 1-8 (strided, padded,
//     broadcast and reversed layouts, negative indices);
// (c) thread-count independence: every exact operator, and reductions in exact and random data,
//     give bit-identical outputs with 1, 2 and 3 threads;
// (d) the vector kernels' own claims (the accuracy of LOG_SUM_EXP's exp, which segments its
//     kernel leaves to the element-by-element path, and ARG*'s lanes on every instruction set);
// (e) streaming stores (large copies) write the same bytes as ordinary ones, wherever the output
//     lies, and which copies choose them;
// (f) which reductions run the 16-byte kernels.
#include "optimized/optimized.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <numeric>
#include <random>
#include <type_traits>

#include "dmlcert/support.h"
#include "op_tester.h"
#include "optimized/copy.h"
#include "optimized/cpu.h"
#include "optimized/kernels.h"
#include "optimized/reduce_width.h"

namespace dmlcert::test {
namespace {

constexpr auto F16 = DataType::FLOAT16;
constexpr auto F32 = DataType::FLOAT32;

// ---- Random valid cases, shared by (b) and (c). ------------------------------------------------

struct RandomCase {
  OperatorDesc desc;
  InputData data;
  FeatureLevel level = FeatureLevel::L5_0;
  // Float reductions whose data is not exact-mode: compared within `ulp` instead of bitwise.
  uint64_t ulp = 0;
};

class CaseMaker {
 public:
  explicit CaseMaker(uint64_t seed) : rng_(seed) {}

  uint32_t uniform(uint32_t lo, uint32_t hi) { return std::uniform_int_distribution<uint32_t>(lo, hi)(rng_); }
  bool chance(double p) { return std::bernoulli_distribution(p)(rng_); }
  template <class T>
  const T& pick(const std::vector<T>& v) {
    return v[uniform(0, static_cast<uint32_t>(v.size() - 1))];
  }

  // Sizes of rank r with about `max_elements` elements at most.
  Sizes sizes(uint32_t rank, uint32_t max_elements) {
    Sizes s(rank, 1);
    uint64_t n = 1;
    for (uint32_t i = 0; i < rank; ++i) {
      s[i] = uniform(1, 5);
      if (n * s[i] > max_elements) s[i] = 1;
      n *= s[i];
    }
    return s;
  }
  // A tensor with packed, padded or broadcast strides (broadcast only for inputs).
  TensorDesc tensor(DataType t, Sizes s, bool input) {
    TensorDesc d{t, std::move(s), std::nullopt, 0};
    const uint32_t layout = uniform(0, 3);
    if (layout == 1) {  // padded: every dim gets a bit of room
      std::vector<uint32_t> strides(d.sizes.size());
      uint64_t acc = 1;
      for (size_t i = d.sizes.size(); i-- > 0;) {
        strides[i] = static_cast<uint32_t>(acc);
        acc *= d.sizes[i] + uniform(0, 2);
      }
      d.strides = strides;
    } else if (layout == 2 && input) {  // broadcast one dim
      auto st = packed_strides(d.sizes);
      std::vector<uint32_t> strides(st.begin(), st.end());
      strides[uniform(0, static_cast<uint32_t>(strides.size() - 1))] = 0;
      d.strides = strides;
    }
    d.total_bytes = min_implied_bytes(d).value_or(0) + 4 * uniform(0, 2);
    return d;
  }
  Bytes random_bytes(uint64_t n) {
    Bytes b(n);
    for (auto& x : b) x = static_cast<std::byte>(uniform(0, 255));
    return b;
  }
  // Logical data of `count` elements from `values` (exact, small numbers).
  Bytes data(DataType t, uint64_t count, const std::vector<double>& values) {
    Bytes b(count * element_size(t));
    for (uint64_t i = 0; i < count; ++i) from_double(t, pick(values), b.data() + i * element_size(t));
    return b;
  }
  Bytes index_data(DataType t, uint64_t count, uint32_t dim, bool negative) {
    Bytes b(count * element_size(t));
    for (uint64_t i = 0; i < count; ++i) {
      const int64_t v = static_cast<int64_t>(uniform(0, dim - 1)) - (negative && chance(0.5) ? dim : 0);
      from_double(t, static_cast<double>(v), b.data() + i * element_size(t));
    }
    return b;
  }

  RandomCase slice1() {
    const uint32_t rank = uniform(1, 8);
    const DataType t = pick(std::vector<DataType>(std::begin(kAllDataTypes), std::end(kAllDataTypes)));
    Slice1Desc d;
    Sizes in = sizes(rank, 600), out(rank);
    for (uint32_t i = 0; i < rank; ++i) {
      const uint32_t size = uniform(1, in[i]), offset = uniform(0, in[i] - size);
      int32_t stride = static_cast<int32_t>(uniform(1, 3)) * (chance(0.5) ? -1 : 1);
      d.input_window_offsets.push_back(offset);
      d.input_window_sizes.push_back(size);
      d.input_window_strides.push_back(stride);
      out[i] = uniform(1, 1 + (size - 1) / static_cast<uint32_t>(std::abs(stride)));
    }
    d.input = tensor(t, in, true);
    d.output = tensor(t, out, false);
    RandomCase c{d, {}};
    c.data.input = random_bytes(element_count(in).value() * element_size(t));
    return c;
  }

  RandomCase slice() {
    const uint32_t rank = uniform(1, 8);
    const DataType t = pick(std::vector<DataType>(std::begin(kAllDataTypes), std::end(kAllDataTypes)));
    SliceDesc d;
    Sizes in = sizes(rank, 600);
    for (uint32_t i = 0; i < rank; ++i) {
      const uint32_t stride = uniform(1, 3);
      const uint32_t size = uniform(1, 1 + (in[i] - 1) / stride);
      d.strides.push_back(stride);
      d.sizes.push_back(size);
      d.offsets.push_back(uniform(0, in[i] - 1 - stride * (size - 1)));
    }
    d.input = tensor(t, in, true);
    d.output = tensor(t, d.sizes, false);
    RandomCase c{d, {}};
    c.data.input = random_bytes(element_count(in).value() * element_size(t));
    return c;
  }

  RandomCase gather_elements() {
    const uint32_t rank = uniform(1, 8);
    const DataType t = pick(std::vector<DataType>(std::begin(kAllDataTypes), std::end(kAllDataTypes)));
    const DataType it =
        pick(std::vector<DataType>{DataType::INT64, DataType::INT32, DataType::UINT64, DataType::UINT32});
    GatherElementsDesc d;
    Sizes in = sizes(rank, 400);
    d.axis = uniform(0, rank - 1);
    Sizes idx = in;
    idx[d.axis] = uniform(1, 5);
    d.input = tensor(t, in, true);
    d.indices = tensor(it, idx, true);
    d.output = tensor(t, idx, false);
    RandomCase c{d, {}};
    c.data.input = random_bytes(element_count(in).value() * element_size(t));
    c.data.indices = index_data(it, element_count(idx).value(), in[d.axis], is_signed_integer(it));
    return c;
  }

  RandomCase scatter_nd() {
    const uint32_t rank = uniform(1, 8);
    const DataType t = pick(std::vector<DataType>(std::begin(kAllDataTypes), std::end(kAllDataTypes)));
    const DataType it =
        pick(std::vector<DataType>{DataType::INT64, DataType::INT32, DataType::UINT64, DataType::UINT32});
    ScatterNdDesc d;
    d.input_dimension_count = uniform(1, rank);
    const uint32_t k = uniform(1, d.input_dimension_count);
    Sizes in(rank, 1);
    for (uint32_t i = rank - d.input_dimension_count; i < rank; ++i) in[i] = uniform(1, 4);
    // Indices: meaningful dims (the tuple count shape, then k), so that the updates shape fits.
    const uint32_t block_dims = d.input_dimension_count - k;
    const uint32_t max_tuple_dims = std::min<uint32_t>(rank - 1 - block_dims, 2);
    const uint32_t tuple_dims = uniform(0, max_tuple_dims);
    d.indices_dimension_count = tuple_dims + 1;
    Sizes idx(rank, 1), upd(rank, 1);
    idx[rank - 1] = k;
    for (uint32_t i = 0; i < tuple_dims; ++i) idx[rank - 2 - i] = uniform(1, 3);
    for (uint32_t i = 0; i < block_dims; ++i) upd[rank - 1 - i] = in[rank - 1 - i];
    for (uint32_t i = 0; i < tuple_dims; ++i) upd[rank - 1 - block_dims - i] = idx[rank - 2 - i];
    d.input = tensor(t, in, true);
    d.indices = tensor(it, idx, false);  // a broadcast would mix tuple components of different dims
    d.updates = tensor(t, upd, true);
    d.output = tensor(t, in, false);
    RandomCase c{d, {}};
    c.data.input = random_bytes(element_count(in).value() * element_size(t));
    c.data.updates = random_bytes(element_count(upd).value() * element_size(t));
    const uint64_t tuples = element_count(idx).value() / k;
    c.data.indices = Bytes(tuples * k * element_size(it));
    for (uint64_t tu = 0; tu < tuples; ++tu)
      for (uint32_t j = 0; j < k; ++j) {
        const uint32_t dim = in[rank - d.input_dimension_count + j];
        const int64_t v =
            static_cast<int64_t>(uniform(0, dim - 1)) - (is_signed_integer(it) && chance(0.3) ? dim : 0);
        from_double(it, static_cast<double>(v), c.data.indices.data() + (tu * k + j) * element_size(it));
      }
    return c;
  }

  // `max_elements` lets the thread tests ask for large inputs.
  RandomCase reduce(uint32_t max_elements = 600, std::optional<ReduceFunction> only = std::nullopt,
                    std::optional<DataType> only_type = std::nullopt) {
    const uint32_t rank = uniform(1, 8);
    ReduceDesc d;
    d.function = only ? *only
                      : pick(std::vector<ReduceFunction>(std::begin(kAllReduceFunctions),
                                                         std::end(kAllReduceFunctions)));
    const auto s = support(OpKind::REDUCE, d.function, Role::INPUT, FeatureLevel::L5_0).value();
    const DataType t = only_type ? *only_type : pick(s.types);
    Sizes in = sizes(rank, max_elements);
    if (max_elements > 4096) {  // a large case: put most elements in two dims
      in = Sizes(rank, 1);
      in[uniform(0, rank - 1)] = uniform(64, 512);
      const uint32_t other = uniform(0, rank - 1);
      in[other] = std::max<uint32_t>(in[other], max_elements / 512);
    }
    for (uint32_t i = 0; i < rank; ++i)
      if (chance(0.5)) d.axes.push_back(i);
    if (d.axes.empty()) d.axes.push_back(uniform(0, rank - 1));
    Sizes out = in;
    for (uint32_t a : d.axes) out[a] = 1;
    const DataType ot = is_arg_function(d.function)
                            ? pick(std::vector<DataType>{DataType::INT64, DataType::INT32, DataType::UINT64,
                                                         DataType::UINT32})
                            : t;
    d.input = tensor(t, in, true);
    d.output = tensor(ot, out, false);
    RandomCase c{d, {}};
    const uint64_t count = element_count(in).value();
    const bool uns = !is_float(t) && !is_signed_integer(t);
    // Exact-mode data (docs/semantics.md "Numbers"): small integers, signs and powers of two, so that any
    // summation order gives the same result; the functions whose result is not exact get a tolerance.
    switch (d.function) {
      case ReduceFunction::MULTIPLY:
        c.data.input = data(t, count, uns ? std::vector<double>{1} : std::vector<double>{1, -1});
        break;
      case ReduceFunction::LOG_SUM: c.data.input = data(t, count, {0.5, 1, 2, 3}), c.ulp = 1; break;
      case ReduceFunction::LOG_SUM_EXP: c.data.input = data(t, count, {-1, 0, 0.5, 1}), c.ulp = 1; break;
      case ReduceFunction::AVERAGE:
      case ReduceFunction::L2: c.data.input = data(t, count, {-2, -1, 0, 1, 2, 3}), c.ulp = 1; break;
      default:
        c.data.input =
            data(t, count,
                 uns ? std::vector<double>{0, 1, 2, 3, 7} : std::vector<double>{-3, -1, 0, 1, 2, 7, 0.5});
    }
    if (is_float(t) && !is_arg_function(d.function) && d.function != ReduceFunction::MAX &&
        d.function != ReduceFunction::MIN && d.function != ReduceFunction::MULTIPLY && chance(0.3)) {
      // Random reals: order matters, so this is the data the thread test needs.
      for (uint64_t i = 0; i < count; ++i)
        from_double(t,
                    std::uniform_real_distribution<double>(-4, 4)(rng_) +
                        (d.function == ReduceFunction::LOG_SUM ? 5 : 0),
                    c.data.input.data() + i * element_size(t));
      c.ulp = std::max<uint64_t>(c.ulp, 1);
    }
    return c;
  }

  RandomCase any() {
    switch (uniform(0, 4)) {
      case 0: return slice();
      case 1: return slice1();
      case 2: return scatter_nd();
      case 3: return gather_elements();
      default: return reduce();
    }
  }

 private:
  std::mt19937_64 rng_;
};

// Elementwise comparison: bitwise, or for float outputs within `ulp` (±0 equal, NaN == NaN).
::testing::AssertionResult outputs_match(DataType t, const Bytes& expected, const Bytes& actual,
                                         uint64_t ulp) {
  if (expected.size() != actual.size()) return ::testing::AssertionFailure() << "sizes differ";
  const size_t es = element_size(t);
  for (size_t i = 0; i * es < expected.size(); ++i) {
    const std::byte* e = expected.data() + i * es;
    const std::byte* a = actual.data() + i * es;
    if (std::memcmp(e, a, es) == 0) continue;
    if (ulp > 0 && is_float(t)) {
      const double x = to_double(t, e), y = to_double(t, a);
      if ((std::isnan(x) && std::isnan(y)) || x == y) continue;
      const double gap = std::abs(x - y), scale = std::max(std::abs(x), std::abs(y));
      const double u = t == DataType::FLOAT16 ? 0x1p-10 : 0x1p-23;
      if (gap <= static_cast<double>(ulp) * u * scale) continue;
    }
    return ::testing::AssertionFailure()
           << "element " << i << ": expected " << element_text(t, e) << ", got " << element_text(t, a)
           << "\n  expected " << describe(t, expected) << "\n  actual   " << describe(t, actual);
  }
  return ::testing::AssertionSuccess();
}

std::string describe(const RandomCase& c) {
  const OperatorDesc& d = c.desc;
  std::string s = std::string(name(op_kind(d)));
  if (auto f = reduce_function(d)) s += " " + name(*f);
  for (Role r : roles(op_kind(d))) {
    const TensorDesc& t = *tensor(d, r);
    s += std::string(" ") + std::string(name(r)) + "=" + std::string(name(t.type)) + "[";
    for (uint32_t x : t.sizes) s += std::to_string(x) + ",";
    s += "]";
    if (t.strides) {
      s += "/";
      for (uint32_t x : *t.strides) s += std::to_string(x) + ",";
    }
  }
  return s;
}

// ---- (b) Randomized differential check against the reference. -----------------------------------

TEST(OptimizedDifferential, RandomValidCasesMatchTheReference) {
  CaseMaker maker(20240601);
  int executed = 0;
  for (int i = 0; i < 500; ++i) {
    const RandomCase c = maker.any();
    SCOPED_TRACE("case " + std::to_string(i) + ": " + describe(c));
    ASSERT_EQ(validate(c.desc, c.level).case_class(), CaseClass::Valid)
        << "the generator made a non-valid case";
    const RunOutput ref = run_case(reference_backend(), c.desc, c.level, c.data);
    const RunOutput opt = run_case(optimized_backend(), c.desc, c.level, c.data);
    ASSERT_EQ(ref.exec.status, Status::Ok) << ref.exec.message;
    ASSERT_EQ(opt.exec.status, Status::Ok) << opt.exec.message;
    EXPECT_TRUE(opt.guard_intact && opt.inputs_untouched);
    ASSERT_TRUE(outputs_match(tensor(c.desc, Role::OUTPUT)->type, ref.output, opt.output, c.ulp));
    ++executed;
  }
  EXPECT_EQ(executed, 500);
}

// ---- (c) Thread-count independence. ------------------------------------------------------------

// Runs the case on the optimized backend with each thread count and requires identical bytes.
void expect_same_for_thread_counts(const RandomCase& c) {
  std::optional<Bytes> first;
  for (unsigned threads : {1u, 2u, 3u}) {
    optimized::set_thread_count(threads);
    const RunOutput r = run_case(optimized_backend(), c.desc, c.level, c.data);
    ASSERT_EQ(r.exec.status, Status::Ok) << r.exec.message;
    if (!first)
      first = r.output;
    else
      ASSERT_TRUE(*first == r.output) << threads << " threads changed the result";
  }
  optimized::set_thread_count(0);
}

struct ThreadCase {
  std::string name;
  std::function<RandomCase(CaseMaker&)> make;
};
void PrintTo(const ThreadCase& c, std::ostream* os) {
  *os << c.name;
}

std::vector<ThreadCase> thread_cases() {
  std::vector<ThreadCase> cases = {
      {"slice", [](CaseMaker& m) { return m.slice(); }},
      {"slice1", [](CaseMaker& m) { return m.slice1(); }},
      {"scatter_nd", [](CaseMaker& m) { return m.scatter_nd(); }},
      {"gather_elements", [](CaseMaker& m) { return m.gather_elements(); }},
  };
  for (ReduceFunction f : kAllReduceFunctions)
    cases.push_back({"reduce_" + name(f), [f](CaseMaker& m) { return m.reduce(1 << 17, f); }});
  cases.push_back(
      {"reduce_SUM_fp16", [](CaseMaker& m) { return m.reduce(1 << 17, ReduceFunction::SUM, F16); }});
  return cases;
}

class OptimizedThreads : public ::testing::TestWithParam<ThreadCase> {};
TEST_P(OptimizedThreads, SameBitsForOneTwoAndThreeThreads) {
  CaseMaker maker(7);
  for (int i = 0; i < 12; ++i) {
    const RandomCase c = GetParam().make(maker);
    SCOPED_TRACE(describe(c));
    expect_same_for_thread_counts(c);
  }
}
INSTANTIATE_TEST_SUITE_P(Ops, OptimizedThreads, ::testing::ValuesIn(thread_cases()),
                         [](const auto& row) { return row.param.name; });

// Large data-movement cases take the parallel paths (many runs, and one huge run cut in chunks).
TEST(OptimizedThreads, LargeCopiesAndScatterAreThreadIndependent) {
  Slice1Desc s;
  s.input = packed_desc(F32, {256, 512});
  s.output = packed_desc(F32, {128, 512});
  s.input_window_offsets = {0, 0};
  s.input_window_sizes = {256, 512};
  s.input_window_strides = {-2, -1};
  CaseMaker m(3);
  RandomCase reverse{s, {}};
  reverse.data.input = m.random_bytes(256 * 512 * 4);
  expect_same_for_thread_counts(reverse);

  ScatterNdDesc sc;
  sc.input = packed_desc(F32, {512, 256});
  sc.indices = packed_desc(DataType::UINT32, {300, 1});
  sc.updates = packed_desc(F32, {300, 256});
  sc.output = sc.input;
  sc.input_dimension_count = 2;
  sc.indices_dimension_count = 2;
  RandomCase scatter{sc, {}};
  scatter.data.input = m.random_bytes(512 * 256 * 4);
  scatter.data.updates = m.random_bytes(300 * 256 * 4);
  scatter.data.indices = m.index_data(DataType::UINT32, 300, 512, false);  // with duplicates
  expect_same_for_thread_counts(scatter);
}

// ---- (d) Kernel accuracy. ------------------------------------------------------------------------

// Calls check(std::type_identity<Kernels>{}, name) for the baseline kernels and for each vector
// instruction set this build has and this machine runs, and records which ran as the property
// instruction_sets. Under clang the vector kernels are visible only to the files compiled for
// them (backends/optimized/kernels.h): there only the baseline runs here, and the differential
// tests cover the others.
template <class Check>
void on_every_instruction_set(Check check) {
  std::string ran = "baseline";
  check(std::type_identity<optimized::isa_baseline::Kernels>{}, std::string("baseline"));
#ifdef DMLCERT_HAVE_ISA_AVX2
  if (optimized::cpu_has_avx2_f16c()) {
    check(std::type_identity<optimized::isa_avx2::Kernels>{}, std::string("avx2"));
    ran += " avx2";
  }
#endif
#ifdef DMLCERT_HAVE_ISA_AVX512
  if (optimized::cpu_has_avx512_kernels()) {
    check(std::type_identity<optimized::isa_avx512::Kernels>{}, std::string("avx512"));
    ran += " avx512";
  }
#endif
  ::testing::Test::RecordProperty("instruction_sets", ran);
}

// The largest relative error of exp(r) over every `step`-th float r in [-87, kShiftHeadroom]
// (LOG_SUM_EXP's one pass shifts by less than the max, so arguments reach up to it), in units of
// u = 2^-24, against the exact value (in long double).
template <class Kernels>
double max_exp_error(uint32_t step) {
  std::vector<float> r, e;
  for (uint64_t bits = 0x80000000u; bits <= std::bit_cast<uint32_t>(-87.0f); bits += step)
    r.push_back(std::bit_cast<float>(static_cast<uint32_t>(bits)));
  for (uint64_t bits = 0; bits <= std::bit_cast<uint32_t>(Kernels::kShiftHeadroom); bits += step)
    r.push_back(std::bit_cast<float>(static_cast<uint32_t>(bits)));
  e.resize(r.size());
  Kernels::exp_bounded(r.data(), r.size(), e.data());
  double worst = 0;
  for (size_t i = 0; i < r.size(); ++i) {
    const long double exact = std::exp(static_cast<long double>(r[i]));
    worst = std::max(worst, static_cast<double>(std::fabs(e[i] - exact) / exact * 0x1p24L));
  }
  return worst;
}

// reduce_engine.h's LOG_SUM_EXP stays inside harness/core/src/reduce_bounds.cpp's bound only if each
// exp is within 2u.
TEST(OptimizedKernels, VectorExpIsWithinTwoUnitRoundoffs) {
  on_every_instruction_set([](auto kernels, const std::string& isa) {
    EXPECT_LT(max_exp_error<typename decltype(kernels)::type>(64), 2.0) << isa;
  });
}

// LOG_SUM_EXP's kernel declines a segment that holds a NaN or a +inf, wherever it lies, so that the
// engine's element-by-element path gives the NaN or +inf result (REDUCE.NONFINITE). The AVX-512
// kernel sees a NaN only in its sum of terms (kernels.inc), which a segment of -inf and NaN has
// none of, and a NaN in the padded tail reaches only through its mask. A segment it accepts gives
// a pair (c, sum of exp(x - c)) for a shift c that is the max or at most kShiftHeadroom below it
// (the one pass); an element further above the first 32 sends it to the max-first form, even when
// that element's term is garbage.
struct LogSumExpSegment {
  const char* name;
  size_t n;
  float fill;                                    // every element but the marked ones
  std::vector<std::pair<size_t, float>> marked;  // (position, value)
  bool accepted;                                 // expected return value; when true, c + log(sum) is checked
  float shift = 0;                               // and c: the max, or the max of the first 32 (one pass)
};

// (first + 32k, v) for k < count: elements that share one accumulator lane.
std::vector<std::pair<size_t, float>> every_32nd_from(size_t first, size_t count, float v) {
  std::vector<std::pair<size_t, float>> marked;
  for (size_t k = 0; k < count; ++k) marked.emplace_back(first + 32 * k, v);
  return marked;
}

template <class Kernels>
void expect_log_sum_exp_segments(const char* isa) {
  constexpr float kNan = std::numeric_limits<float>::quiet_NaN(),
                  kInf = std::numeric_limits<float>::infinity();
  const LogSumExpSegment cases[] = {
      {"finite", 100, 0.5f, {{7, 2.5f}}, true, 2.5f},
      // Fewer than 64 elements: the max-first form only.
      {"five_elements", 5, 0.5f, {{3, 2.0f}}, true, 2.0f},
      {"forty_elements_max_in_the_tail", 40, 0.5f, {{35, 3.0f}}, true, 3.0f},
      {"one_pass_at_64_elements", 64, 0.5f, {{50, 4.0f}}, true, 0.5f},
      {"nan_first", 100, 0.5f, {{0, kNan}}, false},
      {"nan_in_the_middle_of_a_long_segment", 4096, 0.5f, {{2000, kNan}}, false},
      {"nan_in_the_tail", 100, 0.5f, {{98, kNan}}, false},  // 100 = 3 groups of 32 + 4
      {"nan_among_minus_inf", 64, -kInf, {{10, kNan}}, false},
      {"nan_and_plus_inf", 64, 0.5f, {{3, kNan}, {40, kInf}}, false},
      {"plus_inf", 100, 0.5f, {{50, kInf}}, false},
      {"minus_inf_among_finite", 100, 0.5f, {{40, -kInf}}, true, 0.5f},
      {"max_within_headroom_of_the_first_32", 100, 0.5f, {{90, 10.0f}}, true, 0.5f},
      {"max_beyond_headroom_of_the_first_32", 100, 0.5f, {{90, 40.0f}}, true, 40.0f},
      // 20 terms of exp(87.5) in one float lane overflow it.
      {"terms_that_overflow_a_lane", 4096, 0.0f, every_32nd_from(32, 20, 87.5f), true, 87.5f},
      // Far out of range the vector exp gives +inf (1e30) or -inf (3e30), and together NaN.
      {"max_far_beyond_the_first_32", 4096, -3.0f, {{1000, 1e30f}, {3000, 3e30f}}, true, 3e30f},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(std::string(isa) + ": " + c.name);
    std::vector<float> x(c.n, c.fill);
    for (const auto& [at, v] : c.marked) x[at] = v;
    float max = 0;
    double sum = 0;
    // With the software prefetch, which may reach past the array and must change nothing.
    const bool accepted =
        Kernels::log_sum_exp(reinterpret_cast<const optimized::f32u*>(x.data()), x.size(), &max, &sum, true);
    ASSERT_EQ(accepted, c.accepted);
    if (!accepted) continue;
    const long double m = *std::max_element(x.begin(), x.end());
    long double shifted = 0;
    for (float v : x) shifted += std::exp(static_cast<long double>(v) - m);
    const double expect = static_cast<double>(m + std::log(shifted));
    EXPECT_EQ(max, c.shift);
    EXPECT_NEAR(max + std::log(sum), expect, 1e-6 * (1 + std::fabs(expect)));
  }
  // All -inf: declined, or max -inf and an empty sum.
  std::vector<float> minus_inf(64, -kInf);
  float max = 0;
  double sum = 1;
  if (Kernels::log_sum_exp(reinterpret_cast<const optimized::f32u*>(minus_inf.data()), minus_inf.size(), &max,
                           &sum, false)) {
    EXPECT_EQ(max, -kInf) << isa;
    EXPECT_EQ(sum, 0.0) << isa;
  }
}

TEST(OptimizedKernels, LogSumExpLeavesSegmentsWithNanOrInfinityToTheElementPath) {
  on_every_instruction_set([](auto kernels, const std::string& isa) {
    expect_log_sum_exp_segments<typename decltype(kernels)::type>(isa.c_str());
  });
}

// ---- FLOAT32 sums: float runs folded into double, the same bits on every instruction set. ------
// reduce_ops.h: SUM, L1 and SUM_SQUARE of FLOAT32 data add each lane's elements of a run
// (kRunSteps steps of 32 elements in lanes(), kRows rows in columns_rows()) in float from 0, then
// that run into the lane's double; lanes() adds the last n % 32 elements of a call straight into
// the doubles. The models below do that one element at a time.

struct FloatSumOp {
  const char* name;
  float (*in_run)(float);  // the element as a run adds it (float)
  double (*whole)(float);  // the element as the double accumulator adds it
};
const FloatSumOp kSumOp{"SUM", [](float x) { return x; }, [](float x) { return static_cast<double>(x); }};
const FloatSumOp kL1Op{"L1", [](float x) { return std::fabs(x); },
                       [](float x) { return std::fabs(static_cast<double>(x)); }};
const FloatSumOp kSumSquareOp{"SUM_SQUARE", [](float x) { return x * x; },
                              [](float x) { return static_cast<double>(x) * static_cast<double>(x); }};

// Data whose sums round in float: mixed signs and magnitudes, and a -0.
std::vector<float> rounding_data(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<float> x(n);
  for (float& v : x)
    v = std::ldexp(std::uniform_real_distribution<float>(-1, 1)(rng),
                   std::uniform_int_distribution<int>(-12, 12)(rng));
  if (n > 3) x[3] = -0.0f;
  return x;
}

void lanes_model(const FloatSumOp& op, const float* x, size_t n, size_t run_steps, double* acc) {
  constexpr size_t L = optimized::isa_baseline::Kernels::kLanes;
  const size_t vector_part = n / L * L;
  for (size_t run = 0; run < vector_part; run += run_steps * L) {
    float part[L] = {};
    for (size_t i = run; i < std::min(vector_part, run + run_steps * L); ++i) part[i % L] += op.in_run(x[i]);
    for (size_t l = 0; l < L; ++l) acc[l] += static_cast<double>(part[l]);
  }
  for (size_t i = vector_part; i < n; ++i) acc[i % L] += op.whole(x[i]);
}

struct FloatSumLength {
  const char* name;
  size_t n;  // elements, in two calls as the engine makes them (the first a multiple of 32)
};
const FloatSumLength kFloatSumLengths[] = {
    {"empty", 0},
    {"tail_only", 31},
    {"one_step", 32},
    {"one_step_and_a_tail", 45},
    {"one_run", 16 * 32},
    {"a_run_and_a_step", 17 * 32},
    {"runs_and_a_tail", 4096 + 21},
    {"two_full_segments", 2 * 4096},
};

template <class Kernels, class Op>
void expect_lanes_runs(const FloatSumOp& op, const std::string& isa) {
  constexpr int L = Kernels::kLanes;
  for (const FloatSumLength& c : kFloatSumLengths) {
    SCOPED_TRACE(isa + " " + op.name + ": " + c.name);
    const std::vector<float> x = rounding_data(c.n, static_cast<uint32_t>(c.n));
    const size_t split = c.n / 2 / L * L;
    double acc[L], want[L];
    for (int l = 0; l < L; ++l) acc[l] = want[l] = 0.25 * l;  // a state from earlier segments
    const auto* data = reinterpret_cast<const optimized::f32u*>(x.data());
    // One half without the software prefetch and one with it: a prefetch changes no bit.
    Kernels::template lanes<Op>(data, split, acc, false);
    Kernels::template lanes<Op>(data + split, c.n - split, acc, true);
    lanes_model(op, x.data(), split, Kernels::kRunSteps, want);
    lanes_model(op, x.data() + split, c.n - split, Kernels::kRunSteps, want);
    for (int l = 0; l < L; ++l)
      EXPECT_EQ(std::bit_cast<uint64_t>(acc[l]), std::bit_cast<uint64_t>(want[l])) << "lane " << l;
  }
}

template <class Kernels, class Op>
void expect_column_rows_run(const FloatSumOp& op, const std::string& isa) {
  constexpr int R = Kernels::kRows;
  for (size_t width : {1, 7, 8, 15, 16, 33, 100}) {
    SCOPED_TRACE(isa + " " + op.name + ": " + std::to_string(width) + " columns");
    const std::vector<float> x = rounding_data(R * width, static_cast<uint32_t>(width));
    const optimized::f32u* rows[R];
    for (int r = 0; r < R; ++r) rows[r] = reinterpret_cast<const optimized::f32u*>(x.data() + r * width);
    std::vector<double> acc(width), want(width);
    for (size_t j = 0; j < width; ++j) acc[j] = want[j] = 0.5 * static_cast<double>(j);
    Kernels::template columns_rows<Op>(rows, width, acc.data());
    for (size_t j = 0; j < width; ++j) {
      float run = 0;
      for (int r = 0; r < R; ++r) run += op.in_run(x[r * width + j]);
      want[j] += static_cast<double>(run);
    }
    for (size_t j = 0; j < width; ++j)
      EXPECT_EQ(std::bit_cast<uint64_t>(acc[j]), std::bit_cast<uint64_t>(want[j])) << "column " << j;
  }
}

template <class Kernels>
void expect_float_sum_runs(const std::string& isa) {
  using namespace optimized::ops;
  expect_lanes_runs<Kernels, SumD>(kSumOp, isa);
  expect_lanes_runs<Kernels, AbsSumD>(kL1Op, isa);
  expect_lanes_runs<Kernels, SquareSumD>(kSumSquareOp, isa);
  expect_column_rows_run<Kernels, SumD>(kSumOp, isa);
  expect_column_rows_run<Kernels, AbsSumD>(kL1Op, isa);
  expect_column_rows_run<Kernels, SquareSumD>(kSumSquareOp, isa);
}

TEST(OptimizedKernels, Float32SumsAddFloatRunsIntoDoubleLanesOnEveryInstructionSet) {
  on_every_instruction_set([](auto kernels, const std::string& isa) {
    expect_float_sum_runs<typename decltype(kernels)::type>(isa);
  });
}

// Runs a REDUCE of the [rows, cols] FLOAT32 data x with the input packed and with its elements 2
// apart (the optimized backend reads the one in place and gathers the other first) and expects
// the same output bits.
void expect_packed_matches_spaced(const ReduceDesc& packed, const std::vector<float>& x) {
  const uint32_t cols = packed.input.sizes[1];
  ReduceDesc spaced = packed;
  spaced.input.strides = std::vector<uint32_t>{2 * cols, 2};
  spaced.input.total_bytes = min_implied_bytes(spaced.input).value();
  InputData data;  // logical data; run_case lays it out by each descriptor's strides
  data.input.resize(x.size() * sizeof(float));
  std::memcpy(data.input.data(), x.data(), data.input.size());
  const RunOutput a = run_case(optimized_backend(), packed, FeatureLevel::L5_0, data);
  const RunOutput b = run_case(optimized_backend(), spaced, FeatureLevel::L5_0, data);
  ASSERT_EQ(a.exec.status, Status::Ok) << a.exec.message;
  ASSERT_EQ(b.exec.status, Status::Ok) << b.exec.message;
  EXPECT_TRUE(a.output == b.output);
}

// The column engine groups K::kRows rows into one float run whatever the input's layout: rows
// it reads in place (columns 1 element apart) and rows it gathers first (here 2 apart) give the
// same bits (rounding data: the grouping shows in the result).
TEST(OptimizedLayouts, ColumnSumsOfGatheredRowsMatchRowsReadInPlaceBitwise) {
  for (ReduceFunction f : {ReduceFunction::SUM, ReduceFunction::L1, ReduceFunction::SUM_SQUARE}) {
    SCOPED_TRACE(name(f));
    const uint32_t rows = 45, cols = 37;
    const std::vector<float> x = rounding_data(rows * cols, 11);
    ReduceDesc packed;
    packed.function = f;
    packed.axes = {0};
    packed.input = packed_desc(F32, {rows, cols});
    packed.output = packed_desc(F32, {1, cols});
    expect_packed_matches_spaced(packed, x);
  }
}

// The rows engine reads an output whose elements are one contiguous segment in one kernel call
// (reduce_engine.h: block_state), and others through its lanes, segment by segment. Rows read in
// place and the same rows gathered first (elements 2 apart) must give the same bits. Rounding data,
// and in each row 2^60 in lane 0 and -2^60 in lane 16, which the fixed tree (lane j with j + 16
// first) cancels before it adds the other lanes, and any other order would not: a different
// grouping or fold shows in the result.
TEST(OptimizedLayouts, RowReductionsReadInPlaceMatchGatheredRowsBitwise) {
  for (ReduceFunction f : {ReduceFunction::SUM, ReduceFunction::L1, ReduceFunction::SUM_SQUARE,
                           ReduceFunction::MAX, ReduceFunction::MIN}) {
    SCOPED_TRACE(name(f));
    const uint32_t rows = 9, cols = 1000;  // 31 groups of 32 lanes and a tail of 8
    std::vector<float> x = rounding_data(rows * cols, 5);
    for (uint32_t r = 0; r < rows; ++r) x[r * cols] = 0x1p60f, x[r * cols + 16] = -0x1p60f;
    ReduceDesc packed;
    packed.function = f;
    packed.axes = {1};
    packed.input = packed_desc(F32, {rows, cols});
    packed.output = packed_desc(F32, {rows, 1});
    expect_packed_matches_spaced(packed, x);
  }
}

// A sum over many blocks of one output computes its blocks in parallel, each thread from its own
// range of (output, block) items, and folds them afterwards in block order. 40 rows of
// 4100 are 5 full blocks of 32768 elements and a short one. Every thread count gives the same bits
// (rounding data, for the float sums), and the INT32 sum is exact, so that a block read from the
// wrong elements shows even where every thread count reads it alike.
struct ManyBlockSum {
  const char* name;
  DataType type;
  ReduceFunction function;
};
const ManyBlockSum kManyBlockSums[] = {
    {"Float32Sum", F32, ReduceFunction::SUM},
    {"Float32SumSquare", F32, ReduceFunction::SUM_SQUARE},
    {"Int32Sum", DataType::INT32, ReduceFunction::SUM},
};

TEST(OptimizedThreads, SumsOverManyBlocksGiveTheSameBitsForAnyThreadCount) {
  const uint32_t rows = 40, cols = 4100;
  for (const ManyBlockSum& c : kManyBlockSums) {
    SCOPED_TRACE(c.name);
    ReduceDesc d;
    d.function = c.function;
    d.axes = {0, 1};
    d.input = packed_desc(c.type, {rows, cols});
    d.output = packed_desc(c.type, {1, 1});
    InputData data;
    int64_t exact = 0;
    if (c.type == F32) {
      const std::vector<float> x = rounding_data(rows * cols, 7);
      data.input.resize(x.size() * sizeof(float));
      std::memcpy(data.input.data(), x.data(), data.input.size());
    } else {
      std::mt19937 rng(7);
      std::vector<int32_t> x(rows * cols);
      for (int32_t& v : x) exact += v = std::uniform_int_distribution<int32_t>(-1000, 1000)(rng);
      data.input.resize(x.size() * sizeof(int32_t));
      std::memcpy(data.input.data(), x.data(), data.input.size());
    }
    std::vector<Bytes> outputs;
    for (unsigned threads : {1u, 2u, 3u}) {
      optimized::set_thread_count(threads);
      const RunOutput r = run_case(optimized_backend(), d, FeatureLevel::L5_0, data);
      optimized::set_thread_count(0);
      ASSERT_EQ(r.exec.status, Status::Ok) << r.exec.message;
      outputs.push_back(r.output);
    }
    EXPECT_TRUE(outputs[1] == outputs[0]) << "2 threads";
    EXPECT_TRUE(outputs[2] == outputs[0]) << "3 threads";
    if (c.type == DataType::INT32) {
      int32_t got = 0;
      ASSERT_GE(outputs[0].size(), sizeof got);
      std::memcpy(&got, outputs[0].data(), sizeof got);
      EXPECT_EQ(got, exact);
    }
  }
}

// ---- ARG* kernels: the same lanes on every instruction set. -----------------------------------
// arg_lanes keeps, in lane i % kLanes, the first element of that lane that beats the lane's best
// strictly (ties keep the lower index, a NaN never wins), and arg_columns each column's first best
// row: for every instruction set and 4-byte type exactly what a scalar loop keeps, since the
// engine folds the lanes in a fixed order and results must not depend on the machine. AVX-512
// does it with mask registers (kernels.inc, better16), unsigned data with unsigned comparisons.
template <class T>
struct ArgSegment {
  const char* name;
  size_t n;
  T fill;                                    // every element but the marked ones
  std::vector<std::pair<size_t, T>> marked;  // (position, value)
};

template <class Cmp, class T>
T arg_identity() {
  constexpr bool max = std::is_same_v<Cmp, optimized::ops::Greater>;
  if constexpr (std::is_floating_point_v<T>)
    return max ? -std::numeric_limits<T>::infinity() : std::numeric_limits<T>::infinity();
  return max ? std::numeric_limits<T>::lowest() : std::numeric_limits<T>::max();
}

template <class Cmp, class T>
std::vector<ArgSegment<T>> arg_segments() {
  const T worst = arg_identity<Cmp, T>();
  // The fill is 1: 5 beats it for ARGMAX, -5 (0 for unsigned data) for ARGMIN.
  const T best = std::is_same_v<Cmp, optimized::ops::Greater> ? T{5}
                 : std::is_unsigned_v<T>                      ? T{0}
                                                              : static_cast<T>(-5);
  std::vector<ArgSegment<T>> cases = {
      {"best_in_a_full_group", 64, T{1}, {{37, best}}},
      {"best_in_the_tail", 100, T{1}, {{98, best}}},  // 100 = 3 groups of 32 + 4
      // Lanes: 10 and 42 share one; 11 and 120 do not. Columns of 37: 10 and 47 share one.
      {"ties_keep_the_first_index", 128, T{1}, {{42, best}, {10, best}, {11, best}, {120, best}, {47, best}}},
      {"nothing_beats_the_identity", 100, worst, {}},
  };
  if constexpr (std::is_floating_point_v<T>) {
    const T nan = std::numeric_limits<T>::quiet_NaN();
    cases.push_back({"nan_never_wins", 100, T{1}, {{3, nan}, {35, nan}, {50, best}, {99, nan}}});
  } else if constexpr (std::is_signed_v<T>) {
    cases.push_back({"int32_extremes",
                     100,
                     T{1},
                     {{7, std::numeric_limits<T>::min()}, {60, std::numeric_limits<T>::max()}}});
  } else {
    // Signed comparisons would take 0x80000001 for negative.
    cases.push_back(
        {"above_2_31_is_large", 100, T{7}, {{20, T{0x80000001u}}, {21, T{0}}, {90, T{0xFFFFFFFFu}}}});
  }
  return cases;
}

template <class Kernels, class Cmp, class T>
void expect_arg_kernels(const std::string& isa) {
  constexpr int L = Kernels::kLanes;
  constexpr uint32_t kNone = 0xFFFFFFFFu;
  constexpr size_t kColumns = 37;  // two 16-lane blocks and a tail of 5
  for (const ArgSegment<T>& c : arg_segments<Cmp, T>()) {
    std::vector<T> x(c.n, c.fill);
    for (const auto& [at, v] : c.marked) x[at] = v;
    const auto* data = reinterpret_cast<const optimized::unaligned_t<T>*>(x.data());

    // Two calls on the same lanes, as the engine makes one per segment (the second starts at a
    // multiple of 32, so lane i % 32 holds element i throughout), with the first element's index
    // small or near 2^32.
    for (uint32_t first : {1000u, 0xFFFFFF00u}) {
      SCOPED_TRACE(isa + ": " + c.name + ", first index " + std::to_string(first));
      const size_t split = x.size() / 2 / L * L;
      T val[L], want_val[L];
      uint32_t idx[L], want_idx[L];
      std::fill_n(val, L, arg_identity<Cmp, T>()), std::fill_n(want_val, L, arg_identity<Cmp, T>());
      std::fill_n(idx, L, kNone), std::fill_n(want_idx, L, kNone);
      // One half without the software prefetch and one with it: a prefetch changes no bit.
      Kernels::template arg_lanes<Cmp, T>(data, split, val, idx, first, false);
      Kernels::template arg_lanes<Cmp, T>(data + split, x.size() - split, val, idx,
                                          first + static_cast<uint32_t>(split), true);
      for (size_t i = 0; i < x.size(); ++i)
        if (Cmp::better(x[i], want_val[i % L]))
          want_val[i % L] = x[i], want_idx[i % L] = first + static_cast<uint32_t>(i);
      for (int j = 0; j < L; ++j) {
        EXPECT_EQ(std::memcmp(&val[j], &want_val[j], sizeof(T)), 0) << "lane " << j;
        EXPECT_EQ(idx[j], want_idx[j]) << "lane " << j;
      }
    }

    // Rows of 37 columns, the last one short.
    SCOPED_TRACE(isa + ": " + c.name + ", columns");
    std::vector<T> cval(kColumns, arg_identity<Cmp, T>()), want_cval = cval;
    std::vector<uint32_t> cidx(kColumns, kNone), want_cidx = cidx;
    for (size_t r = 0; r * kColumns < x.size(); ++r) {
      const size_t n = std::min(kColumns, x.size() - r * kColumns);
      Kernels::template arg_columns<Cmp, T>(data + r * kColumns, n, cval.data(), cidx.data(),
                                            static_cast<uint32_t>(r));
      for (size_t j = 0; j < n; ++j)
        if (Cmp::better(x[r * kColumns + j], want_cval[j]))
          want_cval[j] = x[r * kColumns + j], want_cidx[j] = static_cast<uint32_t>(r);
    }
    EXPECT_EQ(std::memcmp(cval.data(), want_cval.data(), kColumns * sizeof(T)), 0) << "columns";
    EXPECT_EQ(cidx, want_cidx) << "columns";
  }
}

template <class Kernels>
void expect_arg_kernels_for_every_type(const std::string& isa) {
  using optimized::ops::Greater, optimized::ops::Less;
  expect_arg_kernels<Kernels, Greater, float>(isa + " ARGMAX float");
  expect_arg_kernels<Kernels, Less, float>(isa + " ARGMIN float");
  expect_arg_kernels<Kernels, Greater, int32_t>(isa + " ARGMAX int32");
  expect_arg_kernels<Kernels, Less, int32_t>(isa + " ARGMIN int32");
  expect_arg_kernels<Kernels, Greater, uint32_t>(isa + " ARGMAX uint32");
  expect_arg_kernels<Kernels, Less, uint32_t>(isa + " ARGMIN uint32");
}

TEST(OptimizedKernels, ArgKernelsKeepTheFirstBestOfEachLaneOnEveryInstructionSet) {
  on_every_instruction_set([](auto kernels, const std::string& isa) {
    expect_arg_kernels_for_every_type<typename decltype(kernels)::type>(isa);
  });
}

// ---- (e) Streaming stores. ------------------------------------------------------------------------

// A data-movement case for the streaming kernels (copy.cpp): each names the run kernel it reaches.
struct StreamingCase {
  std::string name;
  OperatorDesc desc;
};
void PrintTo(const StreamingCase& c, std::ostream* os) {
  *os << c.name;
}

SliceDesc slice_case(DataType t, Sizes in, std::vector<uint32_t> offsets, Sizes sizes,
                     std::vector<uint32_t> strides) {
  SliceDesc d;
  d.input = packed_desc(t, std::move(in));
  d.offsets = std::move(offsets);
  d.output = packed_desc(t, sizes);
  d.sizes = std::move(sizes);
  d.strides = std::move(strides);
  return d;
}

Slice1Desc reverse_case(DataType t, Sizes in, std::vector<int32_t> strides) {
  Slice1Desc d;
  d.input = packed_desc(t, in);
  d.input_window_offsets.assign(in.size(), 0);
  d.input_window_sizes = in;
  d.input_window_strides = std::move(strides);
  d.output = packed_desc(t, std::move(in));
  return d;
}

std::vector<StreamingCase> streaming_cases() {
  constexpr auto U8 = DataType::UINT8, U64 = DataType::UINT64;
  return {
      {"contiguous_rows", slice_case(F32, {6, 67}, {0, 0}, {3, 67}, {2, 1})},
      {"contiguous_long_run", slice_case(F32, {40000}, {3}, {39990}, {1})},  // past 64 KiB: cut in chunks
      {"every_second_f32", slice_case(F32, {5, 131}, {0, 1}, {5, 65}, {1, 2})},
      {"every_second_f16", slice_case(F16, {5, 131}, {0, 0}, {5, 66}, {1, 2})},
      {"every_second_u8", slice_case(U8, {3, 301}, {0, 0}, {3, 151}, {1, 2})},
      {"every_second_u64", slice_case(U64, {4, 99}, {0, 1}, {4, 49}, {1, 2})},
      {"reversed_rows_f32", reverse_case(F32, {7, 45}, {1, -1})},
      {"reversed_rows_f16", reverse_case(F16, {7, 45}, {1, -1})},
      {"reversed_long_run", reverse_case(F32, {20000}, {-1})},
  };
}

// Runs the case on the optimized backend with its output `skew` bytes past a 64-byte boundary of
// a buffer filled with a pattern, and returns the buffer from that boundary on (the skew, the
// output and 64 bytes after it, so that a stray write shows too).
Bytes run_with_output_at(const OperatorDesc& desc, const Bytes& input, size_t skew) {
  const uint64_t out_bytes = tensor(desc, Role::OUTPUT)->total_bytes;
  Bytes buffer(64 + skew + out_bytes + 64, std::byte{0xA5});
  const uintptr_t base = reinterpret_cast<uintptr_t>(buffer.data());
  const size_t boundary = static_cast<size_t>((64 - base % 64) % 64);
  Bindings b;
  b.input = {input.data(), input.size()};
  b.output = {buffer.data() + boundary + skew, out_bytes};
  const ExecResult r = optimized_backend().execute(desc, FeatureLevel::L5_0, b);
  EXPECT_EQ(r.status, Status::Ok) << r.message;
  return Bytes(buffer.begin() + static_cast<std::ptrdiff_t>(boundary),
               buffer.begin() + static_cast<std::ptrdiff_t>(boundary + skew + out_bytes + 64));
}

class OptimizedStreamingStores : public ::testing::TestWithParam<StreamingCase> {
 protected:
  void TearDown() override { optimized::set_streaming_store_min_bytes(0); }
};

// Skews 0 and 4 start aligned and unaligned runs of blocks; 1 and 2 leave most outputs never
// element-aligned, so every element is stored one by one.
TEST_P(OptimizedStreamingStores, WriteTheSameBytesAsOrdinaryStores) {
  const OperatorDesc& desc = GetParam().desc;
  CaseMaker maker(11);
  const Bytes input = maker.random_bytes(tensor(desc, Role::INPUT)->total_bytes);
  for (size_t skew : {0, 1, 2, 4, 12, 36}) {
    SCOPED_TRACE("output " + std::to_string(skew) + " bytes past a 64-byte boundary");
    optimized::set_streaming_store_min_bytes(std::numeric_limits<uint64_t>::max());
    const Bytes cached = run_with_output_at(desc, input, skew);
    optimized::set_streaming_store_min_bytes(1);
    ASSERT_EQ(optimized::streaming_store_min_bytes(), 1u) << "the copy below would not stream";
    const Bytes streamed = run_with_output_at(desc, input, skew);
    ASSERT_EQ(cached.size(), streamed.size());
    const auto diff = std::mismatch(cached.begin(), cached.end(), streamed.begin());
    EXPECT_TRUE(diff.first == cached.end()) << "first difference at byte " << (diff.first - cached.begin());
  }
}
INSTANTIATE_TEST_SUITE_P(Copies, OptimizedStreamingStores, ::testing::ValuesIn(streaming_cases()),
                         [](const auto& row) { return row.param.name; });

// The default threshold is the last-level cache, up to 32 MiB (a reported cache is the socket's,
// shared): a copy that fits it leaves its output in the cache for its reader. A set threshold
// replaces it until 0 restores it.
TEST(OptimizedStreamingStores, DefaultThresholdIsTheLastLevelCacheUpTo32MiB) {
  const uint64_t default_bytes = std::min(optimized::last_level_cache_bytes(), uint64_t{32} << 20);
  optimized::set_streaming_store_min_bytes(0);
  EXPECT_EQ(optimized::streaming_store_min_bytes(), default_bytes);
  EXPECT_GE(optimized::last_level_cache_bytes(), uint64_t{1} << 20);
  optimized::set_streaming_store_min_bytes(4096);
  EXPECT_EQ(optimized::streaming_store_min_bytes(), 4096u);
  optimized::set_streaming_store_min_bytes(0);
  EXPECT_EQ(optimized::streaming_store_min_bytes(), default_bytes);
}

// Whether the stream kernels prefetch in software (optimized/cpu.h): by the CPU's vendor, unless
// DMLCERT_PREFETCH names a choice. A value that names none leaves the vendor's choice.
struct PrefetchChoiceCase {
  std::string name;
  optimized::PrefetchVendor vendor;
  const char* env;  // DMLCERT_PREFETCH, or nullptr when unset
  bool software;
};
void PrintTo(const PrefetchChoiceCase& c, std::ostream* os) {
  *os << c.name;
}
class SoftwarePrefetch : public ::testing::TestWithParam<PrefetchChoiceCase> {};
TEST_P(SoftwarePrefetch, FollowsTheVendorUnlessTheEnvironmentChooses) {
  const auto& c = GetParam();
  EXPECT_EQ(optimized::software_prefetch_for(c.vendor, c.env), c.software);
}
INSTANTIATE_TEST_SUITE_P(
    Choices, SoftwarePrefetch,
    ::testing::Values(
        PrefetchChoiceCase{"IntelPrefetches", optimized::PrefetchVendor::Intel, nullptr, true},
        PrefetchChoiceCase{"OthersLeaveItToTheHardware", optimized::PrefetchVendor::Other, nullptr, false},
        PrefetchChoiceCase{"SoftwareOnAnyVendor", optimized::PrefetchVendor::Other, "software", true},
        PrefetchChoiceCase{"HardwareOnIntel", optimized::PrefetchVendor::Intel, "hardware", false},
        PrefetchChoiceCase{"AnUnknownValueKeepsIntelsChoice", optimized::PrefetchVendor::Intel, "Software",
                           true},
        PrefetchChoiceCase{"AnEmptyValueKeepsTheOthersChoice", optimized::PrefetchVendor::Other, "", false}),
    [](const auto& row) { return row.param.name; });

// How many bytes a copy passes through the cache (optimized/copy.h): on a 32 MiB cache, those of
// 32 MiB or more stream their output. Nests are canonical, outermost first; each dim is
// {size, {output stride, input stride}} in FLOAT32 elements.
struct FootprintCase {
  std::string name;
  std::vector<optimized::Dim> dims;
  uint64_t footprint;
};
void PrintTo(const FootprintCase& c, std::ostream* os) {
  *os << c.name;
}
constexpr uint64_t kMiB = uint64_t{1} << 20;
const FootprintCase kFootprintCases[] = {
    // Output plus as many input bytes.
    {"ContiguousCopyOf12MiB", {{3 * kMiB, {1, 1}}}, 24 * kMiB},
    {"ContiguousCopyOf16MiB", {{4 * kMiB, {1, 1}}}, 32 * kMiB},
    {"OneElement", {{1, {1, 1}}}, 8},
    // The bench's slice1_4d_mixed, SLICE1 of [64,64,64,64] with window strides {1,-2,3,-1}: 256-byte
    // reversed rows 768 bytes apart, each counted with its 8 lines of run-on (512 bytes), which
    // reach the next row: 11 MiB out, 45056 rows of 768 bytes in.
    {"ShortRowsEveryThirdRow",
     {{64, {45056, 262144}}, {32, {1408, -8192}}, {22, {64, 192}}, {64, {1, -1}}},
     44 * kMiB},
    {"ShortRowsEveryThirdRowHalfAsMany",
     {{32, {45056, 262144}}, {32, {1408, -8192}}, {22, {64, 192}}, {64, {1, -1}}},
     22 * kMiB},
    // Two columns of a [8192,1024] matrix: 8-byte runs a page apart count their line and 8 more.
    {"TwoColumns", {{8192, {2, 1024}}, {2, {1, 1}}}, 64 * 1024 + 8192 * 576},
    // 16 KiB rows 32 KiB apart: longer than a page, so the gaps do not count.
    {"LongRowsEverySecondRow", {{768, {4096, 8192}}, {4096, {1, 1}}}, 24 * kMiB},
    // One 256-byte row read 81920 times: the input's span, not its reads.
    {"BroadcastRow", {{81920, {64, 0}}, {64, {1, 1}}}, 20 * kMiB + 256},
    // One element per 64-byte line: 2 MiB out, the 32 MiB span of those lines in (less the last
    // line's 60 unread bytes); in rows, one line per element and no run-on.
    {"EverySixteenthElement", {{kMiB / 2, {1, 16}}}, 34 * kMiB - 60},
    {"EverySixteenthElementOfRows", {{1024, {64, 65536}}, {64, {1, 16}}}, 256 * 1024 + 4 * kMiB},
};
class CopyCacheFootprint : public ::testing::TestWithParam<FootprintCase> {};
TEST_P(CopyCacheFootprint, CountsTheOutputAndTheInputLinesTheCopyBringsIn) {
  optimized::LoopNest nest;
  nest.streams = 2;
  nest.dims = GetParam().dims;
  EXPECT_EQ(optimized::copy_cache_footprint(nest, 4), GetParam().footprint);
}
INSTANTIATE_TEST_SUITE_P(Optimized, CopyCacheFootprint, ::testing::ValuesIn(kFootprintCases),
                         [](const auto& row) { return row.param.name; });

// A copy streams its output when its footprint reaches the threshold, except a copy whose output
// the operator then updates in place (SCATTER_ND), which streams only when the output alone does.
TEST(CopyStreamsOutput, AtTheThresholdUnlessTheOutputIsUpdatedInPlace) {
  using optimized::OutputNext;
  const uint64_t threshold = 32 * kMiB;
  auto contiguous = [](uint64_t bytes) {
    optimized::LoopNest nest;
    nest.streams = 2;
    nest.dims = {{bytes / 4, {1, 1}}};
    return nest;
  };
  EXPECT_FALSE(optimized::copy_streams_output(contiguous(12 * kMiB), 4, OutputNext::Returned, threshold));
  EXPECT_TRUE(optimized::copy_streams_output(contiguous(16 * kMiB), 4, OutputNext::Returned, threshold));
  EXPECT_FALSE(
      optimized::copy_streams_output(contiguous(16 * kMiB), 4, OutputNext::UpdatedInPlace, threshold));
  EXPECT_FALSE(
      optimized::copy_streams_output(contiguous(31 * kMiB), 4, OutputNext::UpdatedInPlace, threshold));
  EXPECT_TRUE(
      optimized::copy_streams_output(contiguous(32 * kMiB), 4, OutputNext::UpdatedInPlace, threshold));
}

// Which REDUCE calls run the 16-byte kernels on a CPU with the 32-byte ones (optimized/
// reduce_width.h says why): row SUM, MAX and MIN of FLOAT32 or small integers, streaming from
// memory. Every result is the same on either width (the lanes are fixed, reduce_engine.h), so the
// choice can only cost or gain speed.
struct WidthCase {
  std::string name;
  DataType input;
  ReduceFunction function;
  bool columns;
  uint64_t input_bytes;
  bool narrow;
};
void PrintTo(const WidthCase& c, std::ostream* os) {
  *os << c.name;
}
constexpr uint64_t kLlc = uint64_t{32} << 20;
const WidthCase kWidthCases[] = {
    {"Float32RowSumFromMemory", DataType::FLOAT32, ReduceFunction::SUM, false, 2 * kLlc, true},
    {"Float32RowMaxFromMemory", DataType::FLOAT32, ReduceFunction::MAX, false, 2 * kLlc, true},
    {"Int32RowMinFromMemory", DataType::INT32, ReduceFunction::MIN, false, 2 * kLlc, true},
    {"Uint8RowSumFromMemory", DataType::UINT8, ReduceFunction::SUM, false, 2 * kLlc, true},
    {"Float32RowSumThatFitsTheCache", DataType::FLOAT32, ReduceFunction::SUM, false, kLlc, false},
    {"Float32ColumnSumFromMemory", DataType::FLOAT32, ReduceFunction::SUM, true, 2 * kLlc, false},
    {"Float32L2FromMemory", DataType::FLOAT32, ReduceFunction::L2, false, 2 * kLlc, false},
    {"Float16RowSumFromMemory", DataType::FLOAT16, ReduceFunction::SUM, false, 2 * kLlc, false},
    {"Int64RowSumFromMemory", DataType::INT64, ReduceFunction::SUM, false, 2 * kLlc, false},
};
class ReduceKernelWidth : public ::testing::TestWithParam<WidthCase> {};
TEST_P(ReduceKernelWidth, NarrowOnlyForRowSumsAndExtremaStreamingFromMemory) {
  const WidthCase& c = GetParam();
  EXPECT_EQ(optimized::narrow_kernels_stream_faster(c.input, c.function, c.columns, c.input_bytes, kLlc),
            c.narrow);
}
INSTANTIATE_TEST_SUITE_P(Optimized, ReduceKernelWidth, ::testing::ValuesIn(kWidthCases),
                         [](const auto& row) { return row.param.name; });

// Which kernel set runs a REDUCE call (optimized/reduce_width.h: reduce_kernel_set). Every set gives
// the same bits, so the choice can only cost or gain speed.
struct KernelSetCase {
  std::string name;
  optimized::KernelCpu cpu;
  DataType input;
  ReduceFunction function;
  bool columns;
  uint64_t input_bytes;
  optimized::KernelSet set;
};
void PrintTo(const KernelSetCase& c, std::ostream* os) {
  *os << c.name;
}
constexpr optimized::KernelCpu kAvx2Only{true, false, false}, kSplitAvx512{true, true, false},
    kFullAvx512{true, true, true}, kNoVectors{false, false, false};
using Set = optimized::KernelSet;
const KernelSetCase kKernelSetCases[] = {
    {"FullWidthAvx512RunsEveryCall", kFullAvx512, DataType::FLOAT32, ReduceFunction::SUM, false, kLlc,
     Set::Avx512},
    {"FullWidthAvx512StreamsFromMemory", kFullAvx512, DataType::FLOAT32, ReduceFunction::MAX, false, 2 * kLlc,
     Set::Avx512},
    {"FullWidthAvx512RunsIntegers", kFullAvx512, DataType::INT8, ReduceFunction::MIN, true, kLlc,
     Set::Avx512},
    {"SplitAvx512RunsLogSumExp", kSplitAvx512, DataType::FLOAT16, ReduceFunction::LOG_SUM_EXP, false, kLlc,
     Set::Avx512},
    {"SplitAvx512RunsArgmaxOf4Bytes", kSplitAvx512, DataType::UINT32, ReduceFunction::ARGMAX, false, kLlc,
     Set::Avx512},
    {"SplitAvx512LeavesArgminOf2BytesToAvx2", kSplitAvx512, DataType::INT16, ReduceFunction::ARGMIN, false,
     kLlc, Set::Avx2},
    {"SplitAvx512LeavesSumsToAvx2", kSplitAvx512, DataType::FLOAT32, ReduceFunction::SUM, true, 2 * kLlc,
     Set::Avx2},
    {"SplitAvx512StreamsRowSumsNarrow", kSplitAvx512, DataType::FLOAT32, ReduceFunction::SUM, false, 2 * kLlc,
     Set::Baseline},
    {"Avx2StreamsRowMaxNarrow", kAvx2Only, DataType::INT32, ReduceFunction::MAX, false, 2 * kLlc,
     Set::Baseline},
    {"Avx2RunsLogSumExpWithoutAvx512", kAvx2Only, DataType::FLOAT32, ReduceFunction::LOG_SUM_EXP, false, kLlc,
     Set::Avx2},
    {"NoVectorsRunsTheBaseline", kNoVectors, DataType::FLOAT32, ReduceFunction::ARGMAX, false, kLlc,
     Set::Baseline},
};
class ReduceKernelSet : public ::testing::TestWithParam<KernelSetCase> {};
TEST_P(ReduceKernelSet, FollowsTheCpuAndTheCall) {
  const KernelSetCase& c = GetParam();
  EXPECT_EQ(optimized::reduce_kernel_set(c.cpu, c.input, c.function, c.columns, c.input_bytes, kLlc), c.set);
}
INSTANTIATE_TEST_SUITE_P(Optimized, ReduceKernelSet, ::testing::ValuesIn(kKernelSetCases),
                         [](const auto& row) { return row.param.name; });

// The row kernels prefetch in software only on a CPU that wants it and only past the cache.
struct PrefetchPaysCase {
  std::string name;
  bool cpu_wants_it;
  uint64_t input_bytes;
  bool prefetch;
};
void PrintTo(const PrefetchPaysCase& c, std::ostream* os) {
  *os << c.name;
}
class StreamPrefetchPays : public ::testing::TestWithParam<PrefetchPaysCase> {};
TEST_P(StreamPrefetchPays, OnlyWhereTheCpuWantsItAndTheInputIsPastTheCache) {
  const auto& c = GetParam();
  EXPECT_EQ(optimized::stream_prefetch_pays(c.cpu_wants_it, c.input_bytes, kLlc), c.prefetch);
}
INSTANTIATE_TEST_SUITE_P(Optimized, StreamPrefetchPays,
                         ::testing::Values(PrefetchPaysCase{"PastTheCache", true, kLlc + 1, true},
                                           PrefetchPaysCase{"ThatFitsTheCache", true, kLlc, false},
                                           PrefetchPaysCase{"OnACpuThatDoesNotWantIt", false, 4 * kLlc,
                                                            false}),
                         [](const auto& row) { return row.param.name; });

}  // namespace
}  // namespace dmlcert::test

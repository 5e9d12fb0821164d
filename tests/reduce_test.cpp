// REDUCE on the reference backend against hand-computed results (docs/ops/reduce.md): every
// function, ARGMAX/ARGMIN ties and flattened indices, exact integers, FLOAT16 rounding, strided
// tensors.
#include <cstdint>
#include <limits>

#include "op_tester.h"

namespace dmlcert::test {

// REDUCE: function and axes; Output.Sizes defaults to Input.Sizes with the reduced axes set to 1,
// and its type to the data type (UINT32 for ARGMAX/ARGMIN).
class ReduceTester : public OpTester<ReduceTester> {
 public:
  ReduceTester& function(ReduceFunction f) { return set(function_, f); }
  ReduceTester& axes(std::vector<uint32_t> v) { return set(axes_, std::move(v)); }
  OperatorDesc build() const {
    ReduceDesc d;
    d.function = function_;
    d.input = make_tensor(Role::INPUT, data_type());
    Sizes reduced = d.input.sizes;
    for (uint32_t a : axes_)
      if (a < reduced.size()) reduced[a] = 1;
    d.output =
        make_tensor(Role::OUTPUT, is_arg_function(function_) ? DataType::UINT32 : data_type(), reduced);
    d.axes = axes_;
    return d;
  }

 private:
  ReduceFunction function_ = ReduceFunction::SUM;
  std::vector<uint32_t> axes_;
};
using ReduceCase = NamedCase<ReduceTester>;
namespace {

using F = ReduceFunction;
constexpr auto F16 = DataType::FLOAT16;
constexpr auto I32 = DataType::INT32;
constexpr auto I64 = DataType::INT64;
constexpr auto U32 = DataType::UINT32;
constexpr auto U64 = DataType::UINT64;
constexpr auto U8 = DataType::UINT8;
constexpr double inf = std::numeric_limits<double>::infinity();

// The seed's input: [[1,2,3],[3,0,4],[2,4,2]] (docs/semantics.md: its third example misprints the 4 as 5).
ReduceTester seed_input(F f) {
  return ReduceTester().function(f).input_sizes({3, 3}).input_data({1, 2, 3, 3, 0, 4, 2, 4, 2});
}

// [[3,1,2],[4,6,5]], reduced along its rows.
ReduceTester rows_of(F f) {
  return ReduceTester().function(f).input_sizes({2, 3}).input_data({3, 1, 2, 4, 6, 5}).axes({1});
}

// FLOAT16 values as exact powers of two.
constexpr double kTwoToMinus11 = 0.00048828125;
constexpr double kTwoToMinus24 = 5.9604644775390625e-08;
constexpr double kOnePlusHalfUlp = 1.0009765625;  // 1 + 2^-10, the FLOAT16 successor of 1

std::vector<ReduceCase> reduce_conformance_cases() {
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min(), kMax = std::numeric_limits<int64_t>::max();
  constexpr uint64_t kUMax = std::numeric_limits<uint64_t>::max();
  constexpr int64_t k2p62 = int64_t{1} << 62;
  return {
      // The seed's three examples.
      {"seed_example1_sum_columns", seed_input(F::SUM).axes({0}).expect_output({6, 6, 9})},
      {"seed_example2_sum_rows", seed_input(F::SUM).axes({1}).expect_output({6, 7, 8})},
      {"seed_example3_sum_all", seed_input(F::SUM).axes({0, 1}).expect_output({21})},
      // ARGMAX/ARGMIN: first index on ties; over {0,1} the index is row-major over (axis0, axis1).
      // The max 4 is at (1,2) (index 5) and (2,1) (index 7): the first wins.
      {"argmax_two_axes_flattened_first_tie", seed_input(F::ARGMAX).axes({0, 1}).expect_output({5})},
      {"argmin_two_axes_flattened", seed_input(F::ARGMIN).axes({0, 1}).expect_output({4})},
      {"argmax_columns", seed_input(F::ARGMAX).axes({0}).expect_output({1, 2, 1})},
      {"argmax_rows", seed_input(F::ARGMAX).axes({1}).expect_output({2, 2, 1})},
      {"argmin_rows_first_tie", seed_input(F::ARGMIN).axes({1}).expect_output({0, 1, 0})},
      {"argmax_int64_output", seed_input(F::ARGMAX).axes({0, 1}).output_type(I64).expect_output({5})},
      {"argmax_int32_output", seed_input(F::ARGMAX).axes({0, 1}).output_type(I32).expect_output({5})},
      {"argmax_uint64_output", seed_input(F::ARGMAX).axes({0, 1}).output_type(U64).expect_output({5})},
      // All 12 functions on [[3,1,2],[4,6,5]] along axis 1.
      {"all_sum", rows_of(F::SUM).expect_output({6, 15})},
      {"all_multiply", rows_of(F::MULTIPLY).expect_output({6, 120})},
      {"all_max", rows_of(F::MAX).expect_output({3, 6})},
      {"all_min", rows_of(F::MIN).expect_output({1, 4})},
      {"all_average", rows_of(F::AVERAGE).float_reduction().expect_output({2, 5})},
      {"all_l1", rows_of(F::L1).expect_output({6, 15})},
      {"all_l2", rows_of(F::L2).float_reduction().expect_output(
                     {3.7416573867739413, 8.774964387392123})},  // sqrt 14, 77
      {"all_sum_square", rows_of(F::SUM_SQUARE).expect_output({14, 77})},
      {"all_log_sum", rows_of(F::LOG_SUM)
                          .float_reduction()
                          .expect_output({1.791759469228055, 2.70805020110221})},  // ln 6, 15
      // ln(e^3 + e^1 + e^2) = 3 + ln(1 + e^-2 + e^-1); the second row is that plus 3.
      {"all_log_sum_exp",
       rows_of(F::LOG_SUM_EXP).float_reduction().expect_output({3.40760596444438, 6.407605964444381})},
      {"all_argmax", rows_of(F::ARGMAX).expect_output({0, 1})},
      {"all_argmin", rows_of(F::ARGMIN).expect_output({1, 0})},
      {"average_one_third_rounded_once", ReduceTester()
                                             .function(F::AVERAGE)
                                             .input_sizes({1, 3})
                                             .input_data({1, 0, 0})
                                             .axes({1})
                                             .float_reduction()
                                             .expect_output({1.0 / 3.0})},
      {"l1_of_negatives", ReduceTester()
                              .function(F::L1)
                              .input_sizes({2, 3})
                              .input_data({1, -2, 3, -4, 5, -6})
                              .axes({1})
                              .expect_output({6, 15})},
      {"sum_square_of_negatives", ReduceTester()
                                      .function(F::SUM_SQUARE)
                                      .input_sizes({1, 2})
                                      .input_data({-3, -4})
                                      .axes({1})
                                      .expect_output({25})},
      // LOG_SUM_EXP of large values: exp(1000) overflows, the max-shifted form does not.
      {"log_sum_exp_large_values", ReduceTester()
                                       .function(F::LOG_SUM_EXP)
                                       .input_sizes({1, 2})
                                       .input_data({1000, 1000})
                                       .axes({1})
                                       .float_reduction()
                                       .expect_output({1000.6931471805599})},
      // FLOAT16: the result is the exact sum rounded once.
      // 1 + 2^-11 + 2^-11 = 1 + 2^-10 exactly; a FLOAT16 accumulator would round 1 + 2^-11 to 1 twice.
      {"float16_sum_exact_where_half_accumulation_loses", ReduceTester()
                                                              .type(F16)
                                                              .function(F::SUM)
                                                              .input_sizes({1, 3})
                                                              .input_data({1, kTwoToMinus11, kTwoToMinus11})
                                                              .axes({1})
                                                              .float_reduction()
                                                              .expect_output({kOnePlusHalfUlp})},
      // 1 + 2^-11 + 2^-24 lies just above the midpoint of 1 and 1 + 2^-10, so it rounds up. A float32
      // sum rounds it to the midpoint 1 + 2^-11 first, and that rounds to even: 1.
      {"float16_sum_rounded_once_not_through_float32", ReduceTester()
                                                           .type(F16)
                                                           .function(F::SUM)
                                                           .input_sizes({1, 3})
                                                           .input_data({1, kTwoToMinus11, kTwoToMinus24})
                                                           .axes({1})
                                                           .float_reduction()
                                                           .expect_output({kOnePlusHalfUlp})},
      {"float16_max_bits", ReduceTester()
                               .type(F16)
                               .function(F::MAX)
                               .input_sizes({1, 3})
                               .input_data(Values::bits({0x3C00, 0x7BFF, 0xFBFF}))
                               .axes({1})
                               .expect_output(Values::bits({0x7BFF}))},
      {"float16_argmin", ReduceTester()
                             .type(F16)
                             .function(F::ARGMIN)
                             .input_sizes({1, 3})
                             .input_data({0.5, -65504, 2})
                             .axes({1})
                             .expect_output({1})},
      // Exact 64-bit integers (from 5_0), beyond what a double holds.
      {"int64_min_max_extremes", ReduceTester()
                                     .type(I64)
                                     .function(F::MIN)
                                     .input_sizes({2, 2})
                                     .input_data(Values::ints({kMax, kMin, -1, 0}))
                                     .axes({1})
                                     .expect_output(Values::ints({kMin, -1}))},
      {"int64_max_extremes", ReduceTester()
                                 .type(I64)
                                 .function(F::MAX)
                                 .input_sizes({2, 2})
                                 .input_data(Values::ints({kMin, kMax, -1, kMin}))
                                 .axes({1})
                                 .expect_output(Values::ints({kMax, -1}))},
      {"uint64_max_extreme", ReduceTester()
                                 .type(U64)
                                 .function(F::MAX)
                                 .input_sizes({1, 3})
                                 .input_data(Values::uints({1, kUMax, kUMax - 1}))
                                 .axes({1})
                                 .expect_output(Values::uints({kUMax}))},
      // 2^62 and 2^62+1 are equal as doubles; compared exactly, the second is larger.
      {"int64_argmax_beyond_double_precision", ReduceTester()
                                                   .type(I64)
                                                   .function(F::ARGMAX)
                                                   .input_sizes({1, 3})
                                                   .input_data(Values::ints({k2p62, k2p62 + 1, k2p62}))
                                                   .axes({1})
                                                   .expect_output({1})},
      {"int64_sum_exact", ReduceTester()
                              .type(I64)
                              .function(F::SUM)
                              .input_sizes({1, 3})
                              .input_data(Values::ints({k2p62, k2p62 - 1, -k2p62}))
                              .axes({1})
                              .expect_output(Values::ints({k2p62 - 1}))},
      {"uint64_sum_square_exact", ReduceTester()
                                      .type(U64)
                                      .function(F::SUM_SQUARE)
                                      .input_sizes({1, 2})
                                      .input_data(Values::uints({uint64_t{1} << 31, 3}))
                                      .axes({1})
                                      .expect_output(Values::uints({(uint64_t{1} << 62) + 9}))},
      {"int32_multiply_negative", ReduceTester()
                                      .level(FeatureLevel::L3_0)
                                      .type(I32)
                                      .function(F::MULTIPLY)
                                      .input_sizes({3})
                                      .input_data({-3, 7, 2})
                                      .axes({0})
                                      .expect_output({-42})},
      {"int32_l1", ReduceTester()
                       .type(I32)
                       .function(F::L1)
                       .input_sizes({1, 3})
                       .input_data({-5, 3, -2})
                       .axes({1})
                       .expect_output({10})},
      {"uint32_sum_near_max", ReduceTester()
                                  .type(U32)
                                  .function(F::SUM)
                                  .input_sizes({1, 2})
                                  .input_data({4000000000, 294967295})
                                  .axes({1})
                                  .expect_output({4294967295})},
      {"int8_min_from_3_0", ReduceTester()
                                .level(FeatureLevel::L3_0)
                                .type(DataType::INT8)
                                .function(F::MIN)
                                .input_sizes({1, 3})
                                .input_data({5, -128, 127})
                                .axes({1})
                                .expect_output({-128})},
      // Ranks: 4 at 1_0 and 2_1, 1 and 8 from 3_0.
      {"level_1_0_rank4_sum", ReduceTester()
                                  .level(FeatureLevel::L1_0)
                                  .function(F::SUM)
                                  .input_sizes({1, 1, 2, 2})
                                  .input_data({1, 2, 3, 4})
                                  .axes({2, 3})
                                  .expect_output({10})},
      {"level_1_0_rank4_argmax", ReduceTester()
                                     .level(FeatureLevel::L1_0)
                                     .function(F::ARGMAX)
                                     .input_sizes({1, 1, 2, 2})
                                     .input_data({1, 9, 3, 4})
                                     .axes({2, 3})
                                     .expect_output({1})},
      {"level_2_1_rank4_uint32_max", ReduceTester()
                                         .level(FeatureLevel::L2_1)
                                         .type(U32)
                                         .function(F::MAX)
                                         .input_sizes({1, 1, 1, 3})
                                         .input_data({7, 4000000000, 9})
                                         .axes({3})
                                         .expect_output({4000000000})},
      {"rank1_min", ReduceTester()
                        .level(FeatureLevel::L3_0)
                        .function(F::MIN)
                        .input_sizes({4})
                        .input_data({3, -1, 2, -1})
                        .axes({0})
                        .expect_output({-1})},
      {"rank8_sum_two_axes", ReduceTester()
                                 .function(F::SUM)
                                 .input_sizes({1, 1, 1, 1, 1, 2, 1, 3})
                                 .input_data(Values::iota(6, 0))
                                 .axes({5, 7})
                                 .expect_output({15})},
      {"rank8_argmax_two_axes", ReduceTester()
                                    .function(F::ARGMAX)
                                    .input_sizes({1, 1, 1, 1, 1, 2, 1, 3})
                                    .input_data({0, 1, 2, 5, 4, 3})
                                    .axes({5, 7})
                                    .expect_output({3})},
      {"rank8_max_all_axes", ReduceTester()
                                 .function(F::MAX)
                                 .input_sizes({1, 1, 1, 1, 1, 2, 1, 3})
                                 .input_data(Values::iota(6))
                                 .axes({0, 1, 2, 3, 4, 5, 6, 7})
                                 .expect_output({6})},
      {"axes_listed_out_of_order", ReduceTester()
                                       .function(F::ARGMAX)
                                       .input_sizes({3, 3})
                                       .input_data({1, 2, 3, 3, 0, 4, 2, 4, 2})
                                       .axes({1, 0})
                                       .expect_output({5})},
      // Strided tensors.
      {"permuted_input_strides_column_major", ReduceTester()
                                                  .function(F::SUM)
                                                  .input_sizes({2, 3})
                                                  .input_strides({1, 2})
                                                  .input_data(Values::iota(6))
                                                  .axes({1})
                                                  .expect_output({6, 15})},
      {"padded_input_rows", ReduceTester()
                                .function(F::SUM)
                                .input_sizes({2, 3})
                                .input_strides({4, 1})
                                .input_data(Values::iota(6))
                                .axes({0})
                                .expect_output({5, 7, 9})},
      {"broadcast_input_zero_stride", ReduceTester()
                                          .function(F::SUM)
                                          .input_sizes({3, 2})
                                          .input_strides({0, 1})
                                          .input_data({1, 2, 1, 2, 1, 2})
                                          .axes({0})
                                          .expect_output({3, 6})},
      {"padded_output_strides", ReduceTester()
                                    .function(F::MAX)
                                    .input_sizes({2, 3})
                                    .input_data(Values::iota(6))
                                    .axes({0})
                                    .output_strides({8, 2})
                                    .expect_output({4, 5, 6})},
      // REDUCE.NONFINITE (class U): MIN/MAX/ARG* may propagate NaN or ignore it.
      {"max_with_nan_propagates_or_ignores",
       ReduceTester()
           .function(F::MAX)
           .input_sizes({1, 3})
           .input_data(Values::bits({0x3F800000, 0x7FC00001, 0x40400000}))
           .axes({1})
           .expect_output_one_of({Values::bits({0x7FC00001}), Values::bits({0x40400000})})},
      {"argmax_with_nan_propagates_or_ignores",
       ReduceTester()
           .function(F::ARGMAX)
           .input_sizes({1, 3})
           .input_data(Values::bits({0x3F800000, 0x7FC00001, 0x40400000}))
           .axes({1})
           .expect_output_one_of({{1}, {2}})},
      // Invalid descriptors.
      {"rejects_output_rank_differing",
       seed_input(F::SUM).axes({0}).output_sizes({3}).expect_rejected("REDUCE.DIMCOUNT")},
      {"rejects_axis_out_of_range",
       seed_input(F::SUM).axes({2}).output_sizes({3, 3}).expect_rejected("REDUCE.AXIS_RANGE")},
      {"rejects_reduced_axis_not_size_1",
       seed_input(F::SUM).axes({0}).output_sizes({3, 3}).expect_rejected("REDUCE.OUTPUT_SIZES")},
      {"rejects_output_type_differing",
       seed_input(F::SUM).axes({0}).output_type(I32).expect_rejected("REDUCE.DTYPE_MATCH")},
      {"rejects_function_outside_the_12",
       seed_input(static_cast<F>(99)).axes({0}).expect_rejected("OP.FUNCTION")},
      {"rejects_average_of_int32", seed_input(F::AVERAGE).type(I32).axes({0}).expect_rejected("T.DTYPE")},
      {"rejects_int64_sum_before_5_0",
       seed_input(F::SUM).level(FeatureLevel::L4_1).type(I64).axes({0}).expect_rejected("T.DTYPE")},
      {"rejects_rank2_at_2_1",
       seed_input(F::SUM).level(FeatureLevel::L2_1).axes({0}).expect_rejected("T.RANK")},
      // Cases that exercise the optimized backend's engines and layouts.
      {"argmax_seed_two_axes", ReduceTester()
                                   .function(ReduceFunction::ARGMAX)
                                   .input_sizes({3, 3})
                                   .input_data({1, 2, 3, 3, 0, 4, 2, 5, 2})
                                   .axes({0, 1})
                                   .expect_output({7})},
      {"argmax_non_adjacent_axes_first_tie", ReduceTester()
                                                 .function(ReduceFunction::ARGMAX)
                                                 .input_sizes({2, 2, 2})
                                                 .input_data({1, 2, 4, 8, 9, 3, 5, 8})
                                                 .axes({0, 2})
                                                 .expect_output({2, 1})},
      {"argmin_first_index_on_ties", ReduceTester()
                                         .function(ReduceFunction::ARGMIN)
                                         .input_sizes({4})
                                         .input_data({3, 1, 1, 2})
                                         .axes({0})
                                         .expect_output({1})},
      {"max_keeps_first_zero", ReduceTester()
                                   .function(ReduceFunction::MAX)
                                   .input_sizes({3})
                                   .input_data(Values::bits({0x80000000, 0x00000000, 0xbf800000}))
                                   .axes({0})
                                   .expect_output(Values::bits({0x80000000}))},
      {"min_of_infinities", ReduceTester()
                                .function(ReduceFunction::MIN)
                                .input_sizes({2})
                                .input_data({inf, inf})
                                .axes({0})
                                .expect_output({inf})},
      {"sum_rank8_all_axes", ReduceTester()
                                 .input_sizes({1, 1, 1, 1, 1, 2, 2, 2})
                                 .input_data(Values::iota(8))
                                 .axes({0, 1, 2, 3, 4, 5, 6, 7})
                                 .expect_output({36})},
      {"sum_columns_axis0", ReduceTester()
                                .input_sizes({3, 8})
                                .input_data(Values::iota(24))
                                .axes({0})
                                .expect_output({27, 30, 33, 36, 39, 42, 45, 48})},
      {"sum_middle_axis_padded_output", ReduceTester()
                                            .input_sizes({2, 3, 8})
                                            .input_data(Values::iota(48))
                                            .axes({1})
                                            .output_strides({16, 16, 1})
                                            .expect_output({27, 30, 33, 36, 39, 42, 45, 48,  //
                                                            99, 102, 105, 108, 111, 114, 117, 120})},
      {"sum_fp16", ReduceTester()
                       .type(F16)
                       .input_sizes({2, 2})
                       .input_data({0.5, 0.25, 1, 2})
                       .axes({1})
                       .float_reduction()
                       .expect_output({0.75, 3})},
      {"sum_int32_negative",
       ReduceTester().type(I32).input_sizes({3}).input_data({-5, 3, 7}).axes({0}).expect_output({5})},
      {"multiply", ReduceTester()
                       .function(ReduceFunction::MULTIPLY)
                       .input_sizes({3})
                       .input_data({2, 0.5, -8})
                       .axes({0})
                       .expect_output({-8})},
      {"l2", ReduceTester()
                 .function(ReduceFunction::L2)
                 .input_sizes({2})
                 .input_data({3, 4})
                 .axes({0})
                 .float_reduction()
                 .expect_output({5})},
      {"average", ReduceTester()
                      .function(ReduceFunction::AVERAGE)
                      .input_sizes({4})
                      .input_data({1, 2, 3, 4})
                      .axes({0})
                      .float_reduction()
                      .expect_output({2.5})},
      {"log_sum_exp", ReduceTester()
                          .function(ReduceFunction::LOG_SUM_EXP)
                          .input_sizes({2})
                          .input_data({0, 0})
                          .axes({0})
                          .float_reduction()
                          .expect_output({std::log(2.0)})},
      {"argmax_uint8_broadcast_input", ReduceTester()
                                           .function(ReduceFunction::ARGMAX)
                                           .type(U8)
                                           .input_sizes({2, 3})
                                           .input_strides({0, 1})
                                           .input_data({4, 9, 9, 4, 9, 9})
                                           .axes({1})
                                           .expect_output({1, 1})},
      {"axis_out_of_range_rejected",
       ReduceTester().input_sizes({2}).input_data({1, 2}).axes({1}).output_sizes({2}).expect_rejected(
           "REDUCE.AXIS_RANGE")},
  };
}

// What the reference does where docs/semantics.md leaves a choice (class U), documented in reduce.cpp.
std::vector<ReduceCase> reference_choice_cases() {
  return {
      // REDUCE.NONFINITE: IEEE-propagating; the first NaN's bits (payload included) or index.
      {"max_returns_first_nan_bits",
       ReduceTester()
           .function(F::MAX)
           .input_sizes({1, 4})
           .input_data(Values::bits({0x3F800000, 0x7FC00001, 0xFFC00002, 0x40400000}))
           .axes({1})
           .expect_output(Values::bits({0x7FC00001}))},
      {"argmin_returns_first_nan_index", ReduceTester()
                                             .function(F::ARGMIN)
                                             .input_sizes({1, 3})
                                             .input_data(Values::bits({0xBF800000, 0x7FC00000, 0x7FC00000}))
                                             .axes({1})
                                             .expect_output({1})},
      {"sum_with_infinity_is_infinity", ReduceTester()
                                            .function(F::SUM)
                                            .input_sizes({1, 2})
                                            .input_data({1, std::numeric_limits<double>::infinity()})
                                            .axes({1})
                                            .expect_output({std::numeric_limits<double>::infinity()})},
      // +0 and -0 compare equal; MIN/MAX keep the first of equal elements, bits and all.
      {"max_of_zeros_keeps_first", ReduceTester()
                                       .function(F::MAX)
                                       .input_sizes({1, 2})
                                       .input_data(Values::bits({0x80000000, 0x00000000}))
                                       .axes({1})
                                       .expect_output(Values::bits({0x80000000}))},
      {"min_of_zeros_keeps_first", ReduceTester()
                                       .function(F::MIN)
                                       .input_sizes({1, 2})
                                       .input_data(Values::bits({0x00000000, 0x80000000}))
                                       .axes({1})
                                       .expect_output(Values::bits({0x00000000}))},
      // REDUCE.AXES_EMPTY: each element reduced alone (N = 1).
      {"no_axes_sum_square_squares_each_element", ReduceTester()
                                                      .function(F::SUM_SQUARE)
                                                      .input_sizes({2, 2})
                                                      .input_data({1, -2, 3, 0.5})
                                                      .axes({})
                                                      .expect_output({1, 4, 9, 0.25})},
      {"no_axes_argmax_is_zero",
       ReduceTester().function(F::ARGMAX).input_sizes({1, 3}).input_data({5, 1, 9}).axes({}).expect_output(
           {0, 0, 0})},
      // REDUCE.AXES_DUPLICATE: axes read as a set.
      {"duplicate_axes_read_as_a_set", ReduceTester()
                                           .function(F::SUM)
                                           .input_sizes({2, 3})
                                           .input_data(Values::iota(6))
                                           .axes({1, 1})
                                           .expect_output({6, 15})},
      // REDUCE.INT_OVERFLOW: no admissible result; the reference wraps modulo 2^32.
      {"uint32_overflow_wraps", ReduceTester()
                                    .type(U32)
                                    .function(F::SUM)
                                    .input_sizes({1, 2})
                                    .input_data({4000000000, 400000000})
                                    .axes({1})
                                    .expect_output({105032704})},
  };
}

class ReferenceReduce : public ::testing::TestWithParam<ReduceCase> {};

TEST_P(ReferenceReduce, Case) {
  GetParam().tester.run(reference_backend());
}

INSTANTIATE_TEST_SUITE_P(Conformance, ReferenceReduce, ::testing::ValuesIn(reduce_conformance_cases()),
                         case_name<ReduceTester>);
INSTANTIATE_TEST_SUITE_P(ReferenceChoices, ReferenceReduce, ::testing::ValuesIn(reference_choice_cases()),
                         case_name<ReduceTester>);

// reference::admissible_outputs: NaN inputs to MIN/MAX/ARG* admit the propagating and the
// NaN-ignoring result; other functions and integer overflow admit none; no axes admit N = 1.
ReduceTester with_nan(F f) {
  return ReduceTester()
      .function(f)
      .input_sizes({1, 3})
      .input_data(Values::bits({0x3F800000, 0x7FC00001, 0x40400000}))
      .axes({1});
}

std::vector<AdmissibleCase<ReduceTester>> admissible_cases() {
  return {
      {"valid_case_has_the_reference_result", seed_input(F::SUM).axes({0}), {{6, 6, 9}}},
      {"max_with_nan_propagating_or_ignoring", with_nan(F::MAX), {Values::bits({0x7FC00001}), {3}}},
      {"argmax_with_nan_propagating_or_ignoring", with_nan(F::ARGMAX), {{1}, {2}}},
      {"min_with_infinity_only_has_one",
       ReduceTester()
           .function(F::MIN)
           .input_sizes({1, 2})
           .input_data({1, -std::numeric_limits<double>::infinity()})
           .axes({1}),
       {{-std::numeric_limits<double>::infinity()}}},
      {"sum_with_nan_has_none", with_nan(F::SUM), {}},
      {"integer_overflow_has_none",
       ReduceTester()
           .type(U32)
           .function(F::SUM)
           .input_sizes({1, 2})
           .input_data({4000000000, 400000000})
           .axes({1}),
       {}},
      {"no_axes_reduce_each_element_alone",
       ReduceTester().function(F::SUM_SQUARE).input_sizes({1, 2}).input_data({-2, 3}).axes({}),
       {{4, 9}}},
  };
}

class ReferenceReduceAdmissible : public ::testing::TestWithParam<AdmissibleCase<ReduceTester>> {};

TEST_P(ReferenceReduceAdmissible, Outputs) {
  check_admissible(GetParam());
}

INSTANTIATE_TEST_SUITE_P(Admissible, ReferenceReduceAdmissible, ::testing::ValuesIn(admissible_cases()),
                         admissible_case_name<ReduceTester>);

// The same table on the optimized backend. Float reductions may differ from the correctly rounded
// value by an ulp.
class OptimizedReduce : public ::testing::TestWithParam<ReduceCase> {};

TEST_P(OptimizedReduce, Case) {
  GetParam().tester.run(optimized_backend(), CheckPolicy{1});
}

INSTANTIATE_TEST_SUITE_P(Conformance, OptimizedReduce, ::testing::ValuesIn(reduce_conformance_cases()),
                         case_name<ReduceTester>);

}  // namespace
}  // namespace dmlcert::test

// SLICE1 on the reference backend against hand-computed results (docs/ops/slice1.md):
// CopyStart[i] = InputWindowOffsets[i] + (InputWindowStrides[i] < 0 ? InputWindowSizes[i]-1 : 0),
// Output[c] = Input[CopyStart + InputWindowStrides * c].
#include <cstdint>
#include <limits>

#include "op_tester.h"

namespace dmlcert::test {

// SLICE1: the input window; Output.Sizes must be given.
class Slice1Tester : public OpTester<Slice1Tester> {
 public:
  Slice1Tester& window_offsets(std::vector<uint32_t> v) { return set(offsets_, std::move(v)); }
  Slice1Tester& window_sizes(std::vector<uint32_t> v) { return set(sizes_, std::move(v)); }
  Slice1Tester& window_strides(std::vector<int32_t> v) { return set(strides_, std::move(v)); }
  OperatorDesc build() const {
    Slice1Desc d;
    d.input = make_tensor(Role::INPUT, data_type());
    d.output = make_tensor(Role::OUTPUT, data_type());
    d.input_window_offsets = offsets_;
    d.input_window_sizes = sizes_;
    d.input_window_strides = strides_;
    return d;
  }

 private:
  std::vector<uint32_t> offsets_, sizes_;
  std::vector<int32_t> strides_;
};
using Slice1Case = NamedCase<Slice1Tester>;
namespace {

constexpr auto F16 = DataType::FLOAT16;
constexpr auto F64 = DataType::FLOAT64;
constexpr auto I64 = DataType::INT64;
constexpr auto I32 = DataType::INT32;

// The seed's 4x4 input: [[1,2,3,4],[5,6,7,8],[9,10,11,12],[13,14,15,16]].
Slice1Tester seed_input() {
  return Slice1Tester().input_sizes({1, 1, 4, 4}).input_data(Values::iota(16));
}

std::vector<Slice1Case> slice1_conformance_cases() {
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min(), kMax = std::numeric_limits<int64_t>::max();
  return {
      // The seed's two examples.
      {"seed_example1_positive_strides", seed_input()
                                             .window_offsets({0, 0, 0, 1})
                                             .window_sizes({1, 1, 4, 3})
                                             .window_strides({1, 1, 2, 2})
                                             .output_sizes({1, 1, 2, 2})
                                             .expect_output({2, 4, 10, 12})},
      {"seed_example2_negative_stride_starts_at_window_end", seed_input()
                                                                 .window_offsets({0, 0, 0, 1})
                                                                 .window_sizes({1, 1, 4, 3})
                                                                 .window_strides({1, 1, -2, 2})
                                                                 .output_sizes({1, 1, 2, 2})
                                                                 .expect_output({14, 16, 6, 8})},
      // Negative strides.
      {"both_axes_reversed", seed_input()
                                 .window_offsets({0, 0, 0, 0})
                                 .window_sizes({1, 1, 4, 4})
                                 .window_strides({1, 1, -1, -1})
                                 .output_sizes({1, 1, 4, 4})
                                 .expect_output({16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1})},
      // CopyStart[3] = 0 + 4 - 1 = 3; stride -3 reaches columns 3 and 0 of row 1.
      {"negative_stride_minus3", seed_input()
                                     .window_offsets({0, 0, 1, 0})
                                     .window_sizes({1, 1, 1, 4})
                                     .window_strides({1, 1, 1, -3})
                                     .output_sizes({1, 1, 1, 2})
                                     .expect_output({8, 5})},
      // Output.Sizes may be below MaxCopiedElements: the first reachable elements are copied.
      {"output_smaller_than_window", seed_input()
                                         .window_offsets({0, 0, 0, 0})
                                         .window_sizes({1, 1, 4, 4})
                                         .window_strides({1, 1, 1, 1})
                                         .output_sizes({1, 1, 2, 2})
                                         .expect_output({1, 2, 5, 6})},
      {"output_smaller_than_window_negative_stride", seed_input()
                                                         .window_offsets({0, 0, 0, 0})
                                                         .window_sizes({1, 1, 4, 4})
                                                         .window_strides({1, 1, -1, 1})
                                                         .output_sizes({1, 1, 2, 1})
                                                         .expect_output({13, 9})},
      // Ranks 1 and 8 (from 3_0), rank 5 at 2_1.
      {"rank1_negative_stride", Slice1Tester()
                                    .level(FeatureLevel::L3_0)
                                    .input_sizes({5})
                                    .input_data(Values::iota(5, 0))
                                    .window_offsets({1})
                                    .window_sizes({4})
                                    .window_strides({-2})
                                    .output_sizes({2})
                                    .expect_output({4, 2})},
      // Element (a,0,...,0,c) comes from input (1-a, 0,...,0, 2-c), flat index 3*(1-a) + 2-c.
      {"rank8_reversed", Slice1Tester()
                             .level(FeatureLevel::L3_0)
                             .input_sizes({2, 1, 1, 1, 1, 1, 1, 3})
                             .input_data(Values::iota(6, 0))
                             .window_offsets({0, 0, 0, 0, 0, 0, 0, 0})
                             .window_sizes({2, 1, 1, 1, 1, 1, 1, 3})
                             .window_strides({-1, 1, 1, 1, 1, 1, 1, -1})
                             .output_sizes({2, 1, 1, 1, 1, 1, 1, 3})
                             .expect_output({5, 4, 3, 2, 1, 0})},
      {"level_2_1_rank5_int8_reversed", Slice1Tester()
                                            .level(FeatureLevel::L2_1)
                                            .type(DataType::INT8)
                                            .input_sizes({1, 1, 1, 1, 4})
                                            .input_data({-128, -1, 0, 127})
                                            .window_offsets({0, 0, 0, 0, 0})
                                            .window_sizes({1, 1, 1, 1, 4})
                                            .window_strides({1, 1, 1, 1, -1})
                                            .output_sizes({1, 1, 1, 1, 4})
                                            .expect_output({127, 0, -1, -128})},
      // Bit-exact data movement.
      {"float32_nan_payload_and_negative_zero_reversed",
       Slice1Tester()
           .input_sizes({1, 1, 1, 3})
           .input_data(Values::bits({0x7FC00001, 0x80000000, 0xFF800001}))
           .window_offsets({0, 0, 0, 0})
           .window_sizes({1, 1, 1, 3})
           .window_strides({1, 1, 1, -1})
           .output_sizes({1, 1, 1, 3})
           .expect_output(Values::bits({0xFF800001, 0x80000000, 0x7FC00001}))},
      {"float16_nan_payload_and_negative_zero_reversed",
       Slice1Tester()
           .type(F16)
           .input_sizes({1, 1, 1, 3})
           .input_data(Values::bits({0x7E01, 0x8000, 0x0001}))
           .window_offsets({0, 0, 0, 0})
           .window_sizes({1, 1, 1, 3})
           .window_strides({1, 1, 1, -1})
           .output_sizes({1, 1, 1, 3})
           .expect_output(Values::bits({0x0001, 0x8000, 0x7E01}))},
      {"float64_from_4_1", Slice1Tester()
                               .level(FeatureLevel::L4_1)
                               .type(F64)
                               .input_sizes({2})
                               .input_data(Values::bits({0x7FF0000000000001, 0x8000000000000000}))
                               .window_offsets({0})
                               .window_sizes({2})
                               .window_strides({-1})
                               .output_sizes({2})
                               .expect_output(Values::bits({0x8000000000000000, 0x7FF0000000000001}))},
      {"int64_extremes_reversed", Slice1Tester()
                                      .type(I64)
                                      .input_sizes({1, 1, 1, 3})
                                      .input_data(Values::ints({kMin, -1, kMax}))
                                      .window_offsets({0, 0, 0, 0})
                                      .window_sizes({1, 1, 1, 3})
                                      .window_strides({1, 1, 1, -1})
                                      .output_sizes({1, 1, 1, 3})
                                      .expect_output(Values::ints({kMax, -1, kMin}))},
      // Strided tensors.
      {"padded_input_rows", Slice1Tester()
                                .input_sizes({1, 1, 2, 3})
                                .input_strides({8, 8, 4, 1})
                                .input_data(Values::iota(6))
                                .window_offsets({0, 0, 0, 0})
                                .window_sizes({1, 1, 2, 3})
                                .window_strides({1, 1, -1, 2})
                                .output_sizes({1, 1, 2, 2})
                                .expect_output({4, 6, 1, 3})},
      {"permuted_input_strides_column_major", Slice1Tester()
                                                  .input_sizes({1, 1, 2, 3})
                                                  .input_strides({6, 6, 1, 2})
                                                  .input_data(Values::iota(6))
                                                  .window_offsets({0, 0, 0, 0})
                                                  .window_sizes({1, 1, 2, 3})
                                                  .window_strides({1, 1, 1, -1})
                                                  .output_sizes({1, 1, 2, 3})
                                                  .expect_output({3, 2, 1, 6, 5, 4})},
      {"broadcast_input_zero_stride_rows", Slice1Tester()
                                               .input_sizes({1, 1, 2, 3})
                                               .input_strides({0, 0, 0, 1})
                                               .input_data({1, 2, 3, 1, 2, 3})
                                               .window_offsets({0, 0, 0, 0})
                                               .window_sizes({1, 1, 2, 3})
                                               .window_strides({1, 1, -1, -1})
                                               .output_sizes({1, 1, 2, 3})
                                               .expect_output({3, 2, 1, 3, 2, 1})},
      {"padded_output_rows", seed_input()
                                 .window_offsets({0, 0, 0, 1})
                                 .window_sizes({1, 1, 4, 3})
                                 .window_strides({1, 1, -2, 2})
                                 .output_sizes({1, 1, 2, 2})
                                 .output_strides({8, 8, 4, 1})
                                 .expect_output({14, 16, 6, 8})},
      // Invalid descriptors.
      {"rejects_empty_window", seed_input()
                                   .window_offsets({0, 0, 0, 0})
                                   .window_sizes({1, 1, 0, 4})
                                   .window_strides({1, 1, 1, 1})
                                   .output_sizes({1, 1, 1, 4})
                                   .expect_rejected("SLICE1.WINDOW_EMPTY")},
      {"rejects_window_past_input_end", seed_input()
                                            .window_offsets({0, 0, 1, 0})
                                            .window_sizes({1, 1, 4, 4})
                                            .window_strides({1, 1, 1, 1})
                                            .output_sizes({1, 1, 1, 1})
                                            .expect_rejected("SLICE1.WINDOW_BOUNDS")},
      {"rejects_zero_stride", seed_input()
                                  .window_offsets({0, 0, 0, 0})
                                  .window_sizes({1, 1, 4, 4})
                                  .window_strides({1, 1, 0, 1})
                                  .output_sizes({1, 1, 1, 4})
                                  .expect_rejected("SLICE1.STRIDE_ZERO")},
      // MaxCopiedElements = 1 + (4-1)/2 = 2 (the seed divides by the stride; docs/semantics.md by its abs).
      {"rejects_output_beyond_reachable_elements", seed_input()
                                                       .window_offsets({0, 0, 0, 0})
                                                       .window_sizes({1, 1, 4, 4})
                                                       .window_strides({1, 1, -2, 1})
                                                       .output_sizes({1, 1, 3, 4})
                                                       .expect_rejected("SLICE1.OUTPUT_SIZE")},
      {"rejects_output_type_differing_from_input", seed_input()
                                                       .window_offsets({0, 0, 0, 0})
                                                       .window_sizes({1, 1, 4, 4})
                                                       .window_strides({1, 1, 1, 1})
                                                       .output_sizes({1, 1, 4, 4})
                                                       .output_type(I32)
                                                       .expect_rejected("SLICE1.DTYPE_MATCH")},
      {"rejects_rank3_at_2_1", Slice1Tester()
                                   .level(FeatureLevel::L2_1)
                                   .input_sizes({1, 2, 2})
                                   .input_data(Values::iota(4))
                                   .window_offsets({0, 0, 0})
                                   .window_sizes({1, 2, 2})
                                   .window_strides({1, 1, 1})
                                   .output_sizes({1, 2, 2})
                                   .expect_rejected("SLICE1.DIMCOUNT")},
      {"rejects_level_before_2_1", seed_input()
                                       .level(FeatureLevel::L2_0)
                                       .window_offsets({0, 0, 0, 0})
                                       .window_sizes({1, 1, 4, 4})
                                       .window_strides({1, 1, 1, 1})
                                       .output_sizes({1, 1, 4, 4})
                                       .expect_rejected("OP.FEATURE_LEVEL")},
      // Cases that exercise the optimized backend's engines and layouts.
      {"negative_strides", Slice1Tester()
                               .input_sizes({3, 4})
                               .input_data(Values::iota(12))
                               .window_offsets({0, 0})
                               .window_sizes({3, 4})
                               .window_strides({-1, -2})
                               .output_sizes({3, 2})
                               .expect_output({12, 10, 8, 6, 4, 2})},
      {"rank8_reverse_fp16", Slice1Tester()
                                 .type(F16)
                                 .input_sizes({1, 1, 1, 1, 1, 1, 2, 2})
                                 .input_data({0.5, -0.0, 1.5, 65504})
                                 .window_offsets({0, 0, 0, 0, 0, 0, 0, 0})
                                 .window_sizes({1, 1, 1, 1, 1, 1, 2, 2})
                                 .window_strides({1, 1, 1, 1, 1, 1, -1, -1})
                                 .output_sizes({1, 1, 1, 1, 1, 1, 2, 2})
                                 .expect_output({65504, 1.5, -0.0, 0.5})},
      {"nan_payload_moves_bit_exact", Slice1Tester()
                                          .input_sizes({2})
                                          .input_data(Values::bits({0x7fa00001, 0xffc00123}))
                                          .level(FeatureLevel::L3_0)
                                          .window_offsets({0})
                                          .window_sizes({2})
                                          .window_strides({-1})
                                          .output_sizes({2})
                                          .expect_output(Values::bits({0xffc00123, 0x7fa00001}))},
      {"invalid_window_rejected", Slice1Tester()
                                      .input_sizes({4})
                                      .input_data(Values::iota(4))
                                      .window_offsets({2})
                                      .window_sizes({3})
                                      .window_strides({1})
                                      .output_sizes({3})
                                      .expect_rejected("SLICE1.WINDOW_BOUNDS")},
  };
}

class ReferenceSlice1 : public ::testing::TestWithParam<Slice1Case> {};

TEST_P(ReferenceSlice1, Case) {
  GetParam().tester.run(reference_backend());
}

INSTANTIATE_TEST_SUITE_P(Conformance, ReferenceSlice1, ::testing::ValuesIn(slice1_conformance_cases()),
                         case_name<Slice1Tester>);

// The same table on the optimized backend. Float reductions may differ from the correctly rounded
// value by an ulp.
class OptimizedSlice1 : public ::testing::TestWithParam<Slice1Case> {};

TEST_P(OptimizedSlice1, Case) {
  GetParam().tester.run(optimized_backend(), CheckPolicy{1});
}

INSTANTIATE_TEST_SUITE_P(Conformance, OptimizedSlice1, ::testing::ValuesIn(slice1_conformance_cases()),
                         case_name<Slice1Tester>);

}  // namespace
}  // namespace dmlcert::test

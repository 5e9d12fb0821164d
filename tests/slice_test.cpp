// SLICE on the reference backend against hand-computed results (docs/ops/slice.md):
// Output[c] = Input[Offsets + Strides * c].
#include <cstdint>
#include <limits>

#include "op_tester.h"

namespace dmlcert::test {

// SLICE: offsets, sizes, strides; Output.Sizes defaults to the slice sizes.
class SliceTester : public OpTester<SliceTester> {
 public:
  SliceTester& offsets(std::vector<uint32_t> v) { return set(offsets_, std::move(v)); }
  SliceTester& sizes(std::vector<uint32_t> v) { return set(sizes_, std::move(v)); }
  SliceTester& strides(std::vector<uint32_t> v) { return set(strides_, std::move(v)); }
  OperatorDesc build() const {
    SliceDesc d;
    d.input = make_tensor(Role::INPUT, data_type());
    d.output = make_tensor(Role::OUTPUT, data_type(), sizes_);
    d.offsets = offsets_;
    d.sizes = sizes_;
    d.strides = strides_;
    return d;
  }

 private:
  std::vector<uint32_t> offsets_, sizes_, strides_;
};
using SliceCase = NamedCase<SliceTester>;
namespace {

constexpr auto F16 = DataType::FLOAT16;
constexpr auto F64 = DataType::FLOAT64;
constexpr auto I32 = DataType::INT32;
constexpr auto I64 = DataType::INT64;
constexpr auto U64 = DataType::UINT64;
constexpr auto U8 = DataType::UINT8;

// The seeds' 4x4 input: [[1,2,3,4],[5,6,7,8],[9,10,11,12],[13,14,15,16]].
SliceTester seed_input() {
  return SliceTester().input_sizes({1, 1, 4, 4}).input_data(Values::iota(16));
}

// Every second element of rows of `row` elements (iota data), as SLICE with stride 2 along the
// innermost axis takes them: rows long enough for the optimized backend's vector blocks (16 lanes
// with AVX-512), and odd, so that a block's second load would reach past the row.
SliceTester every_second_of_rows(DataType type, uint32_t rows, uint32_t row) {
  const uint32_t taken = (row + 1) / 2;
  std::vector<double> expected;
  for (uint32_t r = 0; r < rows; ++r)
    for (uint32_t j = 0; j < taken; ++j) expected.push_back(r * row + 2 * j);
  return SliceTester()
      .type(type)
      .input_sizes({1, 1, rows, row})
      .input_data(Values::iota(rows * row, 0))
      .offsets({0, 0, 0, 0})
      .sizes({1, 1, rows, taken})
      .strides({1, 1, 1, 2})
      .expect_output(expected);
}

std::vector<SliceCase> slice_conformance_cases() {
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min(), kMax = std::numeric_limits<int64_t>::max();
  return {
      // The seed's two examples.
      {"seed_example1_contiguous", seed_input()
                                       .offsets({0, 0, 1, 2})
                                       .sizes({1, 1, 3, 2})
                                       .strides({1, 1, 1, 1})
                                       .expect_output({7, 8, 11, 12, 15, 16})},
      {"seed_example2_strided", seed_input()
                                    .offsets({0, 0, 1, 0})
                                    .sizes({1, 1, 2, 2})
                                    .strides({1, 1, 2, 3})
                                    .expect_output({5, 8, 13, 16})},
      {"level_1_0_rank5_int16", SliceTester()
                                    .level(FeatureLevel::L1_0)
                                    .type(DataType::INT16)
                                    .input_sizes({1, 1, 1, 2, 3})
                                    .input_data({-1, -2, -3, 4, 5, 6})
                                    .offsets({0, 0, 0, 1, 0})
                                    .sizes({1, 1, 1, 1, 2})
                                    .strides({1, 1, 1, 1, 2})
                                    .expect_output({4, 6})},
      {"every_second_column_float32", every_second_of_rows(DataType::FLOAT32, 3, 75)},
      {"every_second_column_uint8", every_second_of_rows(U8, 2, 101)},
      {"every_second_column_int64", every_second_of_rows(I64, 2, 41)},
      // Ranks 1 and 8 (from 3_0).
      {"rank1_strided", SliceTester()
                            .level(FeatureLevel::L3_0)
                            .input_sizes({10})
                            .input_data(Values::iota(10, 0))
                            .offsets({2})
                            .sizes({3})
                            .strides({3})
                            .expect_output({2, 5, 8})},
      // Input element (0,1,0,c3,0,1,0,c7) is at flat index 12 + 6*c3 + 3 + c7.
      {"rank8", SliceTester()
                    .level(FeatureLevel::L3_0)
                    .type(U8)
                    .input_sizes({1, 2, 1, 2, 1, 2, 1, 3})
                    .input_data(Values::iota(24, 0))
                    .offsets({0, 1, 0, 0, 0, 1, 0, 1})
                    .sizes({1, 1, 1, 2, 1, 1, 1, 2})
                    .strides({1, 1, 1, 1, 1, 1, 1, 1})
                    .expect_output({16, 17, 22, 23})},
      // Bit-exact data movement: NaN payloads, signaling NaNs, -0.0, infinities, subnormals.
      {"float32_nan_payloads_and_negative_zero_copied_bit_exactly",
       SliceTester()
           .input_sizes({1, 1, 2, 3})
           .input_data(Values::bits({0x7FC00001, 0xFF800001, 0x80000000, 0x7F800000, 0x00000001, 0x3F800000}))
           .offsets({0, 0, 0, 0})
           .sizes({1, 1, 2, 3})
           .strides({1, 1, 1, 1})
           .expect_output(
               Values::bits({0x7FC00001, 0xFF800001, 0x80000000, 0x7F800000, 0x00000001, 0x3F800000}))},
      {"float16_nan_payloads_negative_zero_and_subnormals",
       SliceTester()
           .type(F16)
           .input_sizes({1, 1, 2, 3})
           .input_data(Values::bits({0x7E01, 0x7C01, 0x8000, 0x0001, 0x7BFF, 0xFC00}))
           .offsets({0, 0, 0, 1})
           .sizes({1, 1, 2, 2})
           .strides({1, 1, 1, 1})
           .expect_output(Values::bits({0x7C01, 0x8000, 0x7BFF, 0xFC00}))},
      {"float16_values", SliceTester()
                             .type(F16)
                             .input_sizes({1, 1, 1, 4})
                             .input_data({0.5, -1.5, 65504, 5.9604644775390625e-08})
                             .offsets({0, 0, 0, 1})
                             .sizes({1, 1, 1, 3})
                             .strides({1, 1, 1, 1})
                             .expect_output({-1.5, 65504, 5.9604644775390625e-08})},
      {"float64_signaling_nan_and_negative_zero_from_4_1",
       SliceTester()
           .level(FeatureLevel::L4_1)
           .type(F64)
           .input_sizes({1, 1, 1, 3})
           .input_data(Values::bits({0x7FF0000000000001, 0x8000000000000000, 0x3FF0000000000000}))
           .offsets({0, 0, 0, 0})
           .sizes({1, 1, 1, 2})
           .strides({1, 1, 1, 1})
           .expect_output(Values::bits({0x7FF0000000000001, 0x8000000000000000}))},
      {"int64_extremes", SliceTester()
                             .type(I64)
                             .input_sizes({1, 1, 1, 4})
                             .input_data(Values::ints({kMin, 1, kMax, -1}))
                             .offsets({0, 0, 0, 0})
                             .sizes({1, 1, 1, 2})
                             .strides({1, 1, 1, 2})
                             .expect_output(Values::ints({kMin, kMax}))},
      {"uint64_extremes",
       SliceTester()
           .type(U64)
           .input_sizes({1, 1, 1, 4})
           .input_data(Values::uints({0, std::numeric_limits<uint64_t>::max(), 1, uint64_t{1} << 63}))
           .offsets({0, 0, 0, 1})
           .sizes({1, 1, 1, 2})
           .strides({1, 1, 1, 2})
           .expect_output(Values::uints({std::numeric_limits<uint64_t>::max(), uint64_t{1} << 63}))},
      // Strided tensors: the operator works on logical coordinates, whatever the memory layout.
      {"padded_input_rows", SliceTester()
                                .input_sizes({1, 1, 2, 3})
                                .input_strides({8, 8, 4, 1})  // one padding element after each row
                                .input_data(Values::iota(6))
                                .offsets({0, 0, 0, 1})
                                .sizes({1, 1, 2, 2})
                                .strides({1, 1, 1, 1})
                                .expect_output({2, 3, 5, 6})},
      {"permuted_input_strides_column_major",
       SliceTester()
           .input_sizes({1, 1, 2, 3})
           .input_strides({6, 6, 1, 2})
           .input_data(Values::iota(6))  // [[1,2,3],[4,5,6]] stored by columns
           .offsets({0, 0, 1, 0})
           .sizes({1, 1, 1, 3})
           .strides({1, 1, 1, 1})
           .expect_output({4, 5, 6})},
      {"broadcast_input_zero_stride_rows", SliceTester()
                                               .input_sizes({1, 1, 3, 4})
                                               .input_strides({0, 0, 0, 1})  // every row is the same memory
                                               .input_data({1, 2, 3, 4, 1, 2, 3, 4, 1, 2, 3, 4})
                                               .offsets({0, 0, 0, 1})
                                               .sizes({1, 1, 3, 2})
                                               .strides({1, 1, 1, 2})
                                               .expect_output({2, 4, 2, 4, 2, 4})},
      {"padded_output_rows", seed_input()
                                 .offsets({0, 0, 1, 2})
                                 .sizes({1, 1, 3, 2})
                                 .strides({1, 1, 1, 1})
                                 .output_strides({16, 16, 4, 1})
                                 .expect_output({7, 8, 11, 12, 15, 16})},
      {"larger_total_bytes_than_needed", seed_input()
                                             .offsets({0, 0, 3, 3})
                                             .sizes({1, 1, 1, 1})
                                             .strides({1, 1, 1, 1})
                                             .output_total_bytes(64)
                                             .expect_output({16})},
      // Invalid descriptors: rejected, nothing written.
      {"rejects_read_past_input_end", seed_input()
                                          .offsets({0, 0, 2, 0})
                                          .sizes({1, 1, 2, 2})
                                          .strides({1, 1, 2, 1})
                                          .expect_rejected("SLICE.IN_BOUNDS")},
      {"rejects_sizes_not_matching_output", seed_input()
                                                .offsets({0, 0, 0, 0})
                                                .sizes({1, 1, 2, 2})
                                                .strides({1, 1, 1, 1})
                                                .output_sizes({1, 1, 2, 3})
                                                .expect_rejected("SLICE.SIZES_MATCH_OUTPUT")},
      {"rejects_output_type_differing_from_input", seed_input()
                                                       .offsets({0, 0, 0, 0})
                                                       .sizes({1, 1, 2, 2})
                                                       .strides({1, 1, 1, 1})
                                                       .output_type(I32)
                                                       .expect_rejected("SLICE.DTYPE_MATCH")},
      {"rejects_rank3_before_3_0", SliceTester()
                                       .level(FeatureLevel::L2_1)
                                       .input_sizes({1, 4, 4})
                                       .input_data(Values::iota(16))
                                       .offsets({0, 0, 0})
                                       .sizes({1, 2, 2})
                                       .strides({1, 1, 1})
                                       .expect_rejected("SLICE.DIMCOUNT")},
      {"rejects_float64_before_4_1", SliceTester()
                                         .level(FeatureLevel::L3_0)
                                         .type(F64)
                                         .input_sizes({4})
                                         .input_data(Values::iota(4))
                                         .offsets({0})
                                         .sizes({2})
                                         .strides({1})
                                         .expect_rejected("T.DTYPE")},
      {"rejects_total_bytes_below_minimum", seed_input()
                                                .offsets({0, 0, 0, 0})
                                                .sizes({1, 1, 2, 2})
                                                .strides({1, 1, 1, 1})
                                                .output_total_bytes(12)
                                                .expect_rejected("T.TOTAL_BYTES")},
      // Cases that exercise the optimized backend's engines and layouts.
      {"rank1_strided_from_one", SliceTester()
                                     .level(FeatureLevel::L3_0)
                                     .input_sizes({10})
                                     .input_data(Values::iota(10, 0))
                                     .offsets({1})
                                     .sizes({3})
                                     .strides({3})
                                     .expect_output({1, 4, 7})},
      {"padded_output", SliceTester()
                            .input_sizes({3, 4})
                            .input_data(Values::iota(12))
                            .offsets({0, 1})
                            .sizes({2, 3})
                            .strides({2, 1})
                            .output_strides({8, 1})
                            .expect_output({2, 3, 4, 10, 11, 12})},
      {"broadcast_input", SliceTester()
                              .input_sizes({3, 4})
                              .input_strides({0, 1})
                              .input_data({1, 2, 3, 4, 1, 2, 3, 4, 1, 2, 3, 4})
                              .offsets({0, 1})
                              .sizes({3, 2})
                              .strides({1, 2})
                              .expect_output({2, 4, 2, 4, 2, 4})},
  };
}

// What the reference does where docs/semantics.md leaves a choice (class U) or where the harness hands it
// bindings smaller than the descriptors promise.
std::vector<SliceCase> reference_choice_cases() {
  return {
      // SLICE.STRIDE_ZERO: executed with the formula, so row 1 is read three times.
      {"stride_zero_executes_the_formula", seed_input()
                                               .offsets({0, 0, 1, 2})
                                               .sizes({1, 1, 3, 2})
                                               .strides({1, 1, 0, 1})
                                               .expect_output({7, 8, 7, 8, 7, 8})},
      // T.OUTPUT_OVERLAP has no admissible result: rejected, naming the rule.
      {"output_overlap_is_rejected", seed_input()
                                         .offsets({0, 0, 0, 0})
                                         .sizes({1, 1, 2, 2})
                                         .strides({1, 1, 1, 1})
                                         .output_strides({4, 4, 0, 1})
                                         .expect_rejected("T.OUTPUT_OVERLAP")},
      {"output_binding_smaller_than_minimum_is_rejected", seed_input()
                                                              .offsets({0, 0, 0, 0})
                                                              .sizes({1, 1, 2, 2})
                                                              .strides({1, 1, 1, 1})
                                                              .binding_bytes(Role::OUTPUT, 8)
                                                              .expect_rejected("T.TOTAL_BYTES")},
      {"input_binding_smaller_than_minimum_is_rejected", seed_input()
                                                             .offsets({0, 0, 0, 0})
                                                             .sizes({1, 1, 2, 2})
                                                             .strides({1, 1, 1, 1})
                                                             .binding_bytes(Role::INPUT, 60)
                                                             .expect_rejected("T.TOTAL_BYTES")},
  };
}

class ReferenceSlice : public ::testing::TestWithParam<SliceCase> {};

TEST_P(ReferenceSlice, Case) {
  GetParam().tester.run(reference_backend());
}

INSTANTIATE_TEST_SUITE_P(Conformance, ReferenceSlice, ::testing::ValuesIn(slice_conformance_cases()),
                         case_name<SliceTester>);
INSTANTIATE_TEST_SUITE_P(ReferenceChoices, ReferenceSlice, ::testing::ValuesIn(reference_choice_cases()),
                         case_name<SliceTester>);

// reference::admissible_outputs: the reference result, the formula for SLICE.STRIDE_ZERO, and
// nothing for T.OUTPUT_OVERLAP (no admissible result) or an invalid descriptor.
std::vector<AdmissibleCase<SliceTester>> admissible_cases() {
  return {
      {"valid_case_has_the_reference_result",
       seed_input().offsets({0, 0, 1, 2}).sizes({1, 1, 3, 2}).strides({1, 1, 1, 1}),
       {{7, 8, 11, 12, 15, 16}}},
      {"stride_zero_has_the_formula",
       seed_input().offsets({0, 0, 1, 2}).sizes({1, 1, 3, 2}).strides({1, 1, 0, 1}),
       {{7, 8, 7, 8, 7, 8}}},
      {"output_overlap_has_none",
       seed_input()
           .offsets({0, 0, 0, 0})
           .sizes({1, 1, 2, 2})
           .strides({1, 1, 1, 1})
           .output_strides({4, 4, 0, 1}),
       {}},
      {"invalid_has_none", seed_input().offsets({0, 0, 2, 0}).sizes({1, 1, 2, 2}).strides({1, 1, 2, 1}), {}},
  };
}

class ReferenceSliceAdmissible : public ::testing::TestWithParam<AdmissibleCase<SliceTester>> {};

TEST_P(ReferenceSliceAdmissible, Outputs) {
  check_admissible(GetParam());
}

INSTANTIATE_TEST_SUITE_P(Admissible, ReferenceSliceAdmissible, ::testing::ValuesIn(admissible_cases()),
                         admissible_case_name<SliceTester>);

// The same table on the optimized backend. Float reductions may differ from the correctly rounded
// value by an ulp.
class OptimizedSlice : public ::testing::TestWithParam<SliceCase> {};

TEST_P(OptimizedSlice, Case) {
  GetParam().tester.run(optimized_backend(), CheckPolicy{1});
}

INSTANTIATE_TEST_SUITE_P(Conformance, OptimizedSlice, ::testing::ValuesIn(slice_conformance_cases()),
                         case_name<SliceTester>);

}  // namespace
}  // namespace dmlcert::test

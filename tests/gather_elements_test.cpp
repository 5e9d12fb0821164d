// GATHER_ELEMENTS on the reference backend against hand-computed results
// (docs/ops/gather_elements.md): output[c] = input[c with c[axis] replaced by index[c]].
#include <cstdint>
#include <limits>

#include "op_tester.h"

namespace dmlcert::test {

// GATHER_ELEMENTS: the axis; Output.Sizes defaults to Indices.Sizes; indices default to UINT32.
class GatherElementsTester : public OpTester<GatherElementsTester> {
 public:
  GatherElementsTester& axis(uint32_t a) { return set(axis_, a); }
  OperatorDesc build() const {
    GatherElementsDesc d;
    d.input = make_tensor(Role::INPUT, data_type());
    d.indices = make_tensor(Role::INDICES, DataType::UINT32);
    d.output = make_tensor(Role::OUTPUT, data_type(), d.indices.sizes);
    d.axis = axis_;
    return d;
  }

 private:
  uint32_t axis_ = 0;
};
using GatherElementsCase = NamedCase<GatherElementsTester>;
namespace {

constexpr auto F16 = DataType::FLOAT16;
constexpr auto F64 = DataType::FLOAT64;
constexpr auto I32 = DataType::INT32;
constexpr auto I64 = DataType::INT64;
constexpr auto U32 = DataType::UINT32;
constexpr auto U64 = DataType::UINT64;

// The seed's example: input [[1,2,3],[4,5,6],[7,8,9]], axis 0, indices [[1,2,0],[2,0,0]]. Its
// OutputTensor is FLOAT32 here (the seed's UINT32 output is an erratum, GATHERELEMENTS.DTYPE_MATCH).
GatherElementsTester seed_example() {
  return GatherElementsTester().input_sizes({3, 3}).input_data(Values::iota(9)).axis(0).indices_sizes({2, 3});
}

std::vector<GatherElementsCase> gather_elements_conformance_cases() {
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min(), kMax = std::numeric_limits<int64_t>::max();
  return {
      {"seed_example_axis0",
       seed_example().indices_data({1, 2, 0, 2, 0, 0}).expect_output({4, 8, 3, 7, 2, 3})},
      {"axis1", GatherElementsTester()
                    .input_sizes({3, 3})
                    .input_data(Values::iota(9))
                    .axis(1)
                    .indices_sizes({3, 2})
                    .indices_data({0, 2, 1, 1, 2, 0})
                    .expect_output({1, 3, 5, 5, 9, 7})},
      // Indices may be longer than the input along the axis (only the other dims must match).
      {"more_indices_than_axis_size", seed_example()
                                          .indices_sizes({4, 3})
                                          .indices_data({2, 2, 2, 0, 1, 2, 1, 1, 1, 0, 0, 0})
                                          .expect_output({7, 8, 9, 1, 5, 9, 4, 5, 6, 1, 2, 3})},
      {"rank1", GatherElementsTester()
                    .level(FeatureLevel::L3_0)
                    .input_sizes({5})
                    .input_data({0, 10, 20, 30, 40})
                    .axis(0)
                    .indices_sizes({3})
                    .indices_data({4, 0, 4})
                    .expect_output({40, 0, 40})},
      {"rank8_last_axis", GatherElementsTester()
                              .level(FeatureLevel::L3_0)
                              .input_sizes({1, 1, 1, 1, 1, 1, 2, 2})
                              .input_data(Values::iota(4))
                              .axis(7)
                              .indices_sizes({1, 1, 1, 1, 1, 1, 2, 2})
                              .indices_data({1, 0, 0, 1})
                              .expect_output({2, 1, 3, 4})},
      {"level_2_1_rank4", GatherElementsTester()
                              .level(FeatureLevel::L2_1)
                              .type(DataType::UINT16)
                              .input_sizes({1, 1, 2, 2})
                              .input_data({1, 2, 65535, 4})
                              .axis(2)
                              .indices_sizes({1, 1, 1, 2})
                              .indices_data({1, 0})
                              .expect_output({65535, 2})},
      // Negative indices: -d..-1 means d + value, from 3_0, for signed index types.
      {"negative_int32_indices_from_3_0", seed_example()
                                              .level(FeatureLevel::L3_0)
                                              .indices_type(I32)
                                              .indices_data({-2, 2, 0, -1, -3, 0})
                                              .expect_output({4, 8, 3, 7, 2, 3})},
      {"negative_int64_indices", seed_example()
                                     .indices_type(I64)
                                     .indices_data({1, -1, -3, 2, 0, -3})
                                     .expect_output({4, 8, 3, 7, 2, 3})},
      {"uint64_indices",
       seed_example().indices_type(U64).indices_data({1, 2, 0, 2, 0, 0}).expect_output({4, 8, 3, 7, 2, 3})},
      // Data moves bit-exactly.
      {"int64_extremes", GatherElementsTester()
                             .type(I64)
                             .input_sizes({1, 3})
                             .input_data(Values::ints({kMin, 0, kMax}))
                             .axis(1)
                             .indices_sizes({1, 3})
                             .indices_data({2, 0, 2})
                             .expect_output(Values::ints({kMax, kMin, kMax}))},
      {"float32_nan_payload_and_negative_zero",
       GatherElementsTester()
           .input_sizes({1, 3})
           .input_data(Values::bits({0x7FC00001, 0x80000000, 0xFF800001}))
           .axis(1)
           .indices_sizes({1, 3})
           .indices_data({2, 1, 0})
           .expect_output(Values::bits({0xFF800001, 0x80000000, 0x7FC00001}))},
      {"float16_bits", GatherElementsTester()
                           .type(F16)
                           .input_sizes({1, 3})
                           .input_data(Values::bits({0x7E01, 0x8000, 0x0001}))
                           .axis(1)
                           .indices_sizes({1, 2})
                           .indices_data({2, 0})
                           .expect_output(Values::bits({0x0001, 0x7E01}))},
      {"float64_from_4_1", GatherElementsTester()
                               .level(FeatureLevel::L4_1)
                               .type(F64)
                               .input_sizes({2})
                               .input_data(Values::bits({0x7FF0000000000001, 0x8000000000000000}))
                               .axis(0)
                               .indices_sizes({2})
                               .indices_data({1, 0})
                               .expect_output(Values::bits({0x8000000000000000, 0x7FF0000000000001}))},
      // Strided tensors.
      {"padded_input_rows", seed_example()
                                .input_strides({4, 1})
                                .indices_data({1, 2, 0, 2, 0, 0})
                                .expect_output({4, 8, 3, 7, 2, 3})},
      {"permuted_indices_strides", seed_example()
                                       .indices_strides({1, 2})
                                       .indices_data({1, 2, 0, 2, 0, 0})
                                       .expect_output({4, 8, 3, 7, 2, 3})},
      {"broadcast_indices_zero_stride", seed_example()
                                            .indices_strides({0, 1})
                                            .indices_data({2, 1, 0, 2, 1, 0})
                                            .expect_output({7, 5, 3, 7, 5, 3})},
      {"padded_output_rows", seed_example()
                                 .output_strides({5, 1})
                                 .indices_data({1, 2, 0, 2, 0, 0})
                                 .expect_output({4, 8, 3, 7, 2, 3})},
      // Invalid descriptors.
      {"rejects_axis_out_of_range", seed_example()
                                        .axis(2)
                                        .indices_sizes({3, 3})
                                        .indices_data(Values::iota(9, 0))
                                        .expect_rejected("GATHERELEMENTS.AXIS_RANGE")},
      {"rejects_indices_shape_off_axis", seed_example()
                                             .indices_sizes({2, 2})
                                             .indices_data({0, 0, 0, 0})
                                             .expect_rejected("GATHERELEMENTS.INDICES_SHAPE")},
      {"rejects_output_shape_differing_from_indices", seed_example()
                                                          .indices_data({1, 2, 0, 2, 0, 0})
                                                          .output_sizes({3, 3})
                                                          .expect_rejected("GATHERELEMENTS.OUTPUT_SHAPE")},
      // The seed's example lists a UINT32 output for a FLOAT32 input.
      {"rejects_seed_uint32_output_for_float_input", seed_example()
                                                         .indices_data({1, 2, 0, 2, 0, 0})
                                                         .output_type(U32)
                                                         .expect_rejected("GATHERELEMENTS.DTYPE_MATCH")},
      {"rejects_ranks_differing", seed_example()
                                      .indices_sizes({6})
                                      .indices_data({1, 2, 0, 2, 0, 0})
                                      .expect_rejected("GATHERELEMENTS.DIMCOUNT")},
      {"rejects_float_indices", seed_example()
                                    .indices_type(DataType::FLOAT32)
                                    .indices_data({1, 2, 0, 2, 0, 0})
                                    .expect_rejected("T.DTYPE")},
      {"rejects_level_before_2_1", GatherElementsTester()
                                       .level(FeatureLevel::L2_0)
                                       .input_sizes({1, 1, 1, 2})
                                       .input_data({1, 2})
                                       .axis(3)
                                       .indices_sizes({1, 1, 1, 2})
                                       .indices_data({1, 0})
                                       .expect_rejected("OP.FEATURE_LEVEL")},
      // Cases that exercise the optimized backend's engines and layouts.
      {"negative_indices", GatherElementsTester()
                               .input_sizes({3})
                               .input_data({10, 20, 30})
                               .indices_type(I32)
                               .indices_sizes({3})
                               .indices_data({-1, 0, -3})
                               .axis(0)
                               .expect_output({30, 10, 10})},
      {"axis1_rank2", GatherElementsTester()
                          .input_sizes({2, 3})
                          .input_data(Values::iota(6))
                          .indices_sizes({2, 2})
                          .indices_data({2, 0, 1, 1})
                          .axis(1)
                          .expect_output({3, 1, 5, 5})},
      {"index_out_of_range_rejected", GatherElementsTester()
                                          .input_sizes({3})
                                          .input_data({1, 2, 3})
                                          .indices_sizes({2})
                                          .indices_data({0, 3})
                                          .expect_rejected("GATHERELEMENTS.INDEX_RANGE")},
  };
}

// GATHERELEMENTS.INDEX_RANGE has no admissible result: the reference rejects before writing.
std::vector<GatherElementsCase> reference_choice_cases() {
  return {
      {"index_past_end_is_rejected",
       seed_example().indices_data({1, 2, 0, 2, 3, 0}).expect_rejected("GATHERELEMENTS.INDEX_RANGE")},
      {"negative_index_below_minus_d_is_rejected", seed_example()
                                                       .indices_type(I32)
                                                       .indices_data({1, 2, 0, 2, -4, 0})
                                                       .expect_rejected("GATHERELEMENTS.INDEX_RANGE")},
      {"unsigned_all_ones_is_not_minus_1", seed_example()
                                               .indices_data({1, 2, 0, 2, 0xFFFFFFFF, 0})
                                               .expect_rejected("GATHERELEMENTS.INDEX_RANGE")},
      {"int64_min_index_is_rejected",
       seed_example()
           .indices_type(I64)
           .indices_data(Values::ints({1, 2, 0, 2, std::numeric_limits<int64_t>::min(), 0}))
           .expect_rejected("GATHERELEMENTS.INDEX_RANGE")},
  };
}

class ReferenceGatherElements : public ::testing::TestWithParam<GatherElementsCase> {};

TEST_P(ReferenceGatherElements, Case) {
  GetParam().tester.run(reference_backend());
}

INSTANTIATE_TEST_SUITE_P(Conformance, ReferenceGatherElements,
                         ::testing::ValuesIn(gather_elements_conformance_cases()),
                         case_name<GatherElementsTester>);
INSTANTIATE_TEST_SUITE_P(ReferenceChoices, ReferenceGatherElements,
                         ::testing::ValuesIn(reference_choice_cases()), case_name<GatherElementsTester>);

// reference::admissible_outputs: the reference result, or none for out-of-range indices.
std::vector<AdmissibleCase<GatherElementsTester>> admissible_cases() {
  return {
      {"valid_case_has_the_reference_result",
       seed_example().indices_data({1, 2, 0, 2, 0, 0}),
       {{4, 8, 3, 7, 2, 3}}},
      {"index_out_of_range_has_none", seed_example().indices_data({1, 2, 0, 2, 3, 0}), {}},
  };
}

class ReferenceGatherElementsAdmissible
    : public ::testing::TestWithParam<AdmissibleCase<GatherElementsTester>> {};

TEST_P(ReferenceGatherElementsAdmissible, Outputs) {
  check_admissible(GetParam());
}

INSTANTIATE_TEST_SUITE_P(Admissible, ReferenceGatherElementsAdmissible,
                         ::testing::ValuesIn(admissible_cases()), admissible_case_name<GatherElementsTester>);

// The same table on the optimized backend. Float reductions may differ from the correctly rounded
// value by an ulp.
class OptimizedGatherElements : public ::testing::TestWithParam<GatherElementsCase> {};

TEST_P(OptimizedGatherElements, Case) {
  GetParam().tester.run(optimized_backend(), CheckPolicy{1});
}

INSTANTIATE_TEST_SUITE_P(Conformance, OptimizedGatherElements,
                         ::testing::ValuesIn(gather_elements_conformance_cases()),
                         case_name<GatherElementsTester>);

// Along the last axis, outputs from 4 MiB up take the optimized backend's streaming stores
// (gather_elements.cpp, kStreamingStoreBytes), and each row's gather prefetches the next row. Rows of
// odd length start the runs at every alignment; every second index is negative. Built in the test
// body: a million-element table entry would be built at every start of the test binary.
struct LargeGather {
  const char* name;
  uint32_t rows, row;
};

void PrintTo(const LargeGather& g, std::ostream* os) {
  *os << g.name << " (" << g.rows << " rows of " << g.row << ")";
}

class OptimizedGatherElementsLarge : public ::testing::TestWithParam<LargeGather> {};

TEST_P(OptimizedGatherElementsLarge, Case) {
  const auto [name, rows, row] = GetParam();
  std::vector<double> indices, expected;
  for (uint32_t r = 0; r < rows; ++r)
    for (uint32_t j = 0; j < row; ++j) {
      const uint32_t k = (7 * j + 3 * r) % row;
      indices.push_back(j % 2 ? static_cast<double>(k) - row : k);
      expected.push_back(static_cast<double>(r) * row + k);
    }
  GatherElementsTester()
      .input_sizes({rows, row})
      .input_data(Values::iota(rows * row, 0))
      .axis(1)
      .indices_type(I32)
      .indices_sizes({rows, row})
      .indices_data(indices)
      .expect_output(expected)
      .run(optimized_backend());
}

INSTANTIATE_TEST_SUITE_P(LastAxis, OptimizedGatherElementsLarge,
                         ::testing::Values(LargeGather{"just_under_4_mib_of_output", 1023, 1024},
                                           LargeGather{"just_over_4_mib_of_output", 1025, 1027}),
                         [](const auto& row) { return std::string(row.param.name); });

}  // namespace
}  // namespace dmlcert::test

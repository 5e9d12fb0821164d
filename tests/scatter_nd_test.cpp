// SCATTER_ND on the reference backend against hand-computed results (docs/ops/scatter_nd.md):
// output = input, then output[indices[...]] = updates[...], with leading dimensions stripped and
// k = Indices.Sizes[last] the tuple length.
#include <cstdint>
#include <limits>

#include "op_tester.h"

namespace dmlcert::test {

// SCATTER_ND: InputDimensionCount and IndicesDimensionCount default to the full ranks; Output
// defaults to Input's sizes; indices default to UINT32.
class ScatterNdTester : public OpTester<ScatterNdTester> {
 public:
  ScatterNdTester& input_dimension_count(uint32_t n) { return set(input_dimension_count_, n); }
  ScatterNdTester& indices_dimension_count(uint32_t n) { return set(indices_dimension_count_, n); }
  OperatorDesc build() const {
    ScatterNdDesc d;
    d.input = make_tensor(Role::INPUT, data_type());
    d.indices = make_tensor(Role::INDICES, DataType::UINT32);
    d.updates = make_tensor(Role::UPDATES, data_type());
    d.output = make_tensor(Role::OUTPUT, data_type(), d.input.sizes);
    d.input_dimension_count = input_dimension_count_.value_or(d.input.rank());
    d.indices_dimension_count = indices_dimension_count_.value_or(d.indices.rank());
    return d;
  }

 private:
  std::optional<uint32_t> input_dimension_count_, indices_dimension_count_;
};
using ScatterNdCase = NamedCase<ScatterNdTester>;
namespace {

constexpr auto F16 = DataType::FLOAT16;
constexpr auto I32 = DataType::INT32;
constexpr auto I64 = DataType::INT64;
constexpr auto U64 = DataType::UINT64;

// The seed's example, written conformantly (docs/semantics.md errata): Input {1,8} with InputDimensionCount
// 1, Indices {4,1} with IndicesDimensionCount 2, Updates {1,4}. Expected [1, 11, 3, 10, 9, 6, 7, 12].
ScatterNdTester seed_example() {
  return ScatterNdTester()
      .input_sizes({1, 8})
      .input_data(Values::iota(8))
      .input_dimension_count(1)
      .indices_sizes({4, 1})
      .indices_dimension_count(2)
      .updates_sizes({1, 4})
      .updates_data({9, 10, 11, 12});
}

// The seed's shape example: Input [3,4,5,6,7] (count 5), Indices [1,1,1,2,3] (count 3) holding the
// tuples (2,3,4) and (0,1,2), Updates [1,1,2,6,7]. Each tuple replaces one 6x7 block.
ScatterNdTester seed_shape_example() {
  std::vector<double> expected(3 * 4 * 5 * 6 * 7);
  for (std::size_t i = 0; i < expected.size(); ++i) expected[i] = static_cast<double>(i);
  const uint32_t tuples[2][3] = {{2, 3, 4}, {0, 1, 2}};
  for (int t = 0; t < 2; ++t) {
    const std::size_t block = ((tuples[t][0] * 4 + tuples[t][1]) * 5 + tuples[t][2]) * 42;
    for (std::size_t q = 0; q < 42; ++q) expected[block + q] = static_cast<double>(10000 + t * 42 + q);
  }
  return ScatterNdTester()
      .input_sizes({3, 4, 5, 6, 7})
      .input_data(Values::iota(2520, 0))
      .input_dimension_count(5)
      .indices_sizes({1, 1, 1, 2, 3})
      .indices_dimension_count(3)
      .indices_data({2, 3, 4, 0, 1, 2})
      .updates_sizes({1, 1, 2, 6, 7})
      .updates_data(Values::iota(84, 10000))
      .expect_output(Values(expected));
}

std::vector<ScatterNdCase> scatter_nd_conformance_cases() {
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min(), kMax = std::numeric_limits<int64_t>::max();
  return {
      {"seed_example", seed_example().indices_data({4, 3, 1, 7}).expect_output({1, 11, 3, 10, 9, 6, 7, 12})},
      {"seed_shape_example_blocks", seed_shape_example()},
      // k = 2 of rank 3: the tuple (1,0) addresses the row input[1,0,:].
      {"tuple_addresses_a_row_block", ScatterNdTester()
                                          .type(I32)
                                          .input_sizes({2, 2, 3})
                                          .input_data(Values::iota(12))
                                          .indices_sizes({1, 1, 2})
                                          .indices_dimension_count(1)
                                          .indices_data({1, 0})
                                          .updates_sizes({1, 1, 3})
                                          .updates_data({-1, -2, -3})
                                          .expect_output({1, 2, 3, 4, 5, 6, -1, -2, -3, 10, 11, 12})},
      // Leading dims of both Input ({1,1}) and Indices ({1}) are stripped.
      {"leading_dims_stripped", ScatterNdTester()
                                    .input_sizes({1, 1, 4})
                                    .input_data(Values::iota(4))
                                    .input_dimension_count(1)
                                    .indices_sizes({1, 2, 1})
                                    .indices_dimension_count(2)
                                    .indices_data({3, 0})
                                    .updates_sizes({1, 1, 2})
                                    .updates_data({30, 0.5})
                                    .expect_output({0.5, 2, 3, 30})},
      // k = 3 > InputDimensionCount = 2 (the seed allows k up to Input.DimensionCount): m = 3, the
      // tuple indexes all three dims, one element per tuple.
      {"tuple_longer_than_input_dimension_count", ScatterNdTester()
                                                      .input_sizes({1, 2, 3})
                                                      .input_data(Values::iota(6))
                                                      .input_dimension_count(2)
                                                      .indices_sizes({1, 1, 3})
                                                      .indices_dimension_count(1)
                                                      .indices_data({0, 1, 2})
                                                      .updates_sizes({1, 1, 1})
                                                      .updates_data({99})
                                                      .expect_output({1, 2, 3, 4, 5, 99})},
      {"level_2_1_rank4_uint32_indices", ScatterNdTester()
                                             .level(FeatureLevel::L2_1)
                                             .input_sizes({1, 1, 2, 2})
                                             .input_data(Values::iota(4))
                                             .input_dimension_count(2)
                                             .indices_sizes({1, 1, 1, 1})
                                             .indices_dimension_count(2)
                                             .indices_data({1})
                                             .updates_sizes({1, 1, 1, 2})
                                             .updates_data({7, 8})
                                             .expect_output({1, 2, 7, 8})},
      {"rank1", ScatterNdTester()
                    .level(FeatureLevel::L3_0)
                    .input_sizes({4})
                    .input_data(Values::iota(4))
                    .indices_sizes({1})
                    .indices_data({2})
                    .updates_sizes({1})
                    .updates_data({-5})
                    .expect_output({1, 2, -5, 4})},
      {"rank8", ScatterNdTester()
                    .level(FeatureLevel::L3_0)
                    .input_sizes({1, 1, 1, 1, 1, 1, 2, 2})
                    .input_data(Values::iota(4))
                    .input_dimension_count(2)
                    .indices_sizes({1, 1, 1, 1, 1, 1, 1, 2})
                    .indices_dimension_count(1)
                    .indices_data({1, 0})
                    .updates_sizes({1, 1, 1, 1, 1, 1, 1, 1})
                    .updates_data({9})
                    .expect_output({1, 2, 9, 4})},
      // Negative indices: -d..-1 means d + value, from 3_0, for signed index types.
      {"negative_int32_indices_from_3_0", seed_example()
                                              .level(FeatureLevel::L3_0)
                                              .indices_type(I32)
                                              .indices_data({-4, 3, -7, -1})
                                              .expect_output({1, 11, 3, 10, 9, 6, 7, 12})},
      {"negative_int64_indices", seed_example()
                                     .indices_type(I64)
                                     .indices_data({4, -5, 1, -1})
                                     .expect_output({1, 11, 3, 10, 9, 6, 7, 12})},
      {"uint64_indices", seed_example()
                             .indices_type(U64)
                             .indices_data({4, 3, 1, 7})
                             .expect_output({1, 11, 3, 10, 9, 6, 7, 12})},
      // Data: exact 64-bit integers, NaN payloads, -0.0, FLOAT16.
      {"int64_extremes", ScatterNdTester()
                             .type(I64)
                             .input_sizes({1, 4})
                             .input_data(Values::ints({kMin, 0, kMax, -1}))
                             .input_dimension_count(1)
                             .indices_sizes({2, 1})
                             .indices_data({3, 0})
                             .updates_sizes({1, 2})
                             .updates_data(Values::ints({kMin + 1, kMax - 1}))
                             .expect_output(Values::ints({kMax - 1, 0, kMax, kMin + 1}))},
      {"float32_nan_payloads_and_negative_zero",
       ScatterNdTester()
           .input_sizes({1, 3})
           .input_data(Values::bits({0x7FC00001, 0x3F800000, 0x80000000}))
           .input_dimension_count(1)
           .indices_sizes({1, 1})
           .indices_data({1})
           .updates_sizes({1, 1})
           .updates_data(Values::bits({0xFF800002}))
           .expect_output(Values::bits({0x7FC00001, 0xFF800002, 0x80000000}))},
      {"float16", ScatterNdTester()
                      .type(F16)
                      .input_sizes({1, 3})
                      .input_data(Values::bits({0x7E01, 0x3C00, 0x8000}))
                      .input_dimension_count(1)
                      .indices_sizes({1, 1})
                      .indices_data({1})
                      .updates_sizes({1, 1})
                      .updates_data({-2.5})
                      .expect_output(Values::bits({0x7E01, 0xC100, 0x8000}))},
      // Strided tensors.
      {"padded_input_and_output_rows", ScatterNdTester()
                                           .input_sizes({2, 3})
                                           .input_strides({4, 1})
                                           .input_data(Values::iota(6))
                                           .output_strides({5, 1})
                                           .indices_sizes({1, 1})
                                           .indices_data({1})
                                           .updates_sizes({1, 3})
                                           .updates_data({7, 8, 9})
                                           .expect_output({1, 2, 3, 7, 8, 9})},
      {"broadcast_updates_zero_stride", ScatterNdTester()
                                            .input_sizes({3, 2})
                                            .input_data(Values::iota(6))
                                            .indices_sizes({2, 1})
                                            .indices_data({2, 0})
                                            .updates_sizes({2, 2})
                                            .updates_strides({0, 1})
                                            .updates_data({-1, -2, -1, -2})
                                            .expect_output({-1, -2, 3, 4, -1, -2})},
      {"permuted_indices_strides",
       ScatterNdTester()
           .input_sizes({3, 3})
           .input_data(Values::iota(9))
           .indices_sizes({2, 2})
           .indices_strides({1, 2})  // tuples stored column-major: memory {2, 0, 1, 2}
           .indices_data({2, 1, 0, 2})
           .updates_sizes({1, 2})
           .updates_data({-1, -2})
           .expect_output({1, 2, -2, 4, 5, 6, 7, -1, 9})},
      // SCATTERND.DUPLICATE (class U): either competing update is admissible at element 1.
      {"duplicate_tuples_take_one_of_the_competing_updates",
       ScatterNdTester()
           .input_sizes({1, 4})
           .input_data(Values::iota(4))
           .input_dimension_count(1)
           .indices_sizes({3, 1})
           .indices_data({1, 1, 2})
           .updates_sizes({1, 3})
           .updates_data({10, 20, 30})
           .expect_output_one_of({{1, 10, 30, 4}, {1, 20, 30, 4}})},
      // Invalid descriptors.
      {"rejects_updates_type_differing_from_input",
       seed_example().indices_data({4, 3, 1, 7}).updates_type(I32).expect_rejected("SCATTERND.DTYPE_MATCH")},
      {"rejects_wrong_updates_shape", seed_example()
                                          .indices_data({4, 3, 1, 7})
                                          .updates_sizes({4, 1})
                                          .expect_rejected("SCATTERND.UPDATES_SHAPE")},
      {"rejects_output_shape_differing_from_input", seed_example()
                                                        .indices_data({4, 3, 1, 7})
                                                        .output_sizes({1, 9})
                                                        .expect_rejected("SCATTERND.OUTPUT_SHAPE")},
      {"rejects_tuple_longer_than_input_rank", seed_example()
                                                   .indices_sizes({1, 3})
                                                   .indices_data({0, 0, 0})
                                                   .updates_sizes({1, 1})
                                                   .updates_data({5})
                                                   .expect_rejected("SCATTERND.TUPLE_SIZE")},
      {"rejects_stripped_input_dim_not_1", ScatterNdTester()
                                               .input_sizes({2, 4})
                                               .input_data(Values::iota(8))
                                               .input_dimension_count(1)
                                               .indices_sizes({1, 1})
                                               .indices_data({0})
                                               .updates_sizes({1, 1})
                                               .updates_data({5})
                                               .expect_rejected("SCATTERND.LEADING_DIMS")},
      {"rejects_input_dimension_count_zero", seed_example()
                                                 .indices_data({4, 3, 1, 7})
                                                 .input_dimension_count(0)
                                                 .expect_rejected("SCATTERND.INPUT_DIMCOUNT")},
      {"rejects_indices_dimension_count_above_rank", seed_example()
                                                         .indices_data({4, 3, 1, 7})
                                                         .indices_dimension_count(3)
                                                         .expect_rejected("SCATTERND.INDICES_DIMCOUNT")},
      {"rejects_ranks_differing", seed_example()
                                      .input_sizes({8})
                                      .input_dimension_count(1)
                                      .output_sizes({8})
                                      .indices_data({4, 3, 1, 7})
                                      .expect_rejected("SCATTERND.DIMCOUNT")},
      // The seed's example lists FLOAT32 indices; indices are integer types.
      {"rejects_float_indices",
       seed_example().indices_type(DataType::FLOAT32).indices_data({4, 3, 1, 7}).expect_rejected("T.DTYPE")},
      {"rejects_signed_indices_at_2_1", ScatterNdTester()
                                            .level(FeatureLevel::L2_1)
                                            .input_sizes({1, 1, 1, 4})
                                            .input_data(Values::iota(4))
                                            .input_dimension_count(1)
                                            .indices_type(I32)
                                            .indices_sizes({1, 1, 1, 1})
                                            .indices_dimension_count(2)
                                            .indices_data({-1})
                                            .updates_sizes({1, 1, 1, 1})
                                            .updates_data({9})
                                            .expect_rejected("T.DTYPE")},
      // Cases that exercise the optimized backend's engines and layouts.
      {"negative_row_index", ScatterNdTester()
                                 .input_sizes({3, 2})
                                 .input_data(Values::iota(6))
                                 .indices_type(I64)
                                 .indices_sizes({1, 1})
                                 .indices_data({-1})
                                 .updates_sizes({1, 2})
                                 .updates_data({-7, -8})
                                 .expect_output({1, 2, 3, 4, -7, -8})},
      {"index_out_of_range_rejected", ScatterNdTester()
                                          .input_sizes({1, 4})
                                          .input_dimension_count(1)
                                          .input_data(Values::iota(4))
                                          .indices_sizes({1, 1})
                                          .indices_data({4})
                                          .updates_sizes({1, 1})
                                          .updates_data({9})
                                          .expect_rejected("SCATTERND.INDEX_RANGE")},
  };
}

// What the reference does where docs/semantics.md leaves a choice (class U data).
std::vector<ScatterNdCase> reference_choice_cases() {
  return {
      {"duplicate_tuples_last_write_wins", ScatterNdTester()
                                               .input_sizes({1, 4})
                                               .input_data(Values::iota(4))
                                               .input_dimension_count(1)
                                               .indices_sizes({3, 1})
                                               .indices_data({1, 1, 2})
                                               .updates_sizes({1, 3})
                                               .updates_data({10, 20, 30})
                                               .expect_output({1, 20, 30, 4})},
      // SCATTERND.INDEX_RANGE has no admissible result: rejected before anything is written.
      {"index_past_end_is_rejected",
       seed_example().indices_data({4, 3, 1, 8}).expect_rejected("SCATTERND.INDEX_RANGE")},
      {"negative_index_below_minus_d_is_rejected",
       seed_example().indices_type(I32).indices_data({4, 3, -9, 7}).expect_rejected("SCATTERND.INDEX_RANGE")},
      {"unsigned_all_ones_is_not_minus_1",
       seed_example().indices_data({4, 3, 1, 0xFFFFFFFF}).expect_rejected("SCATTERND.INDEX_RANGE")},
      {"uint64_all_ones_is_not_minus_1", seed_example()
                                             .indices_type(U64)
                                             .indices_data(Values::uints({4, 3, 1, ~uint64_t{0}}))
                                             .expect_rejected("SCATTERND.INDEX_RANGE")},
      {"int64_min_index_is_rejected",
       seed_example()
           .indices_type(I64)
           .indices_data(Values::ints({4, 3, 1, std::numeric_limits<int64_t>::min()}))
           .expect_rejected("SCATTERND.INDEX_RANGE")},
  };
}

class ReferenceScatterNd : public ::testing::TestWithParam<ScatterNdCase> {};

TEST_P(ReferenceScatterNd, Case) {
  GetParam().tester.run(reference_backend());
}

INSTANTIATE_TEST_SUITE_P(Conformance, ReferenceScatterNd, ::testing::ValuesIn(scatter_nd_conformance_cases()),
                         case_name<ScatterNdTester>);
INSTANTIATE_TEST_SUITE_P(ReferenceChoices, ReferenceScatterNd, ::testing::ValuesIn(reference_choice_cases()),
                         case_name<ScatterNdTester>);

// reference::admissible_outputs for SCATTERND.DUPLICATE: per contested element every competing
// update appears in some candidate (candidate j takes the j-th writer, the last when fewer compete;
// the last-write-wins result is one of them). Out-of-range indices have none.
ScatterNdTester duplicates(Values indices, Values updates) {
  const uint32_t n = static_cast<uint32_t>(indices.size());
  return ScatterNdTester()
      .input_sizes({1, 4})
      .input_data(Values::iota(4))
      .input_dimension_count(1)
      .indices_sizes({n, 1})
      .indices_data(std::move(indices))
      .updates_sizes({1, n})
      .updates_data(std::move(updates));
}

std::vector<AdmissibleCase<ScatterNdTester>> admissible_cases() {
  return {
      {"valid_case_has_the_reference_result",
       seed_example().indices_data({4, 3, 1, 7}),
       {{1, 11, 3, 10, 9, 6, 7, 12}}},
      {"two_writers_give_two_candidates",
       duplicates({1, 1, 2}, {10, 20, 30}),
       {{1, 20, 30, 4}, {1, 10, 30, 4}}},
      // Element 1 has writers 10, 20, 30; element 2 has writers 40, 50.
      {"three_and_two_writers_give_three_candidates",
       duplicates({1, 2, 1, 2, 1}, {10, 40, 20, 50, 30}),
       {{1, 30, 50, 4}, {1, 10, 40, 4}, {1, 20, 50, 4}}},
      {"index_out_of_range_has_none", seed_example().indices_data({4, 3, 1, 8}), {}},
  };
}

class ReferenceScatterNdAdmissible : public ::testing::TestWithParam<AdmissibleCase<ScatterNdTester>> {};

TEST_P(ReferenceScatterNdAdmissible, Outputs) {
  check_admissible(GetParam());
}

INSTANTIATE_TEST_SUITE_P(Admissible, ReferenceScatterNdAdmissible, ::testing::ValuesIn(admissible_cases()),
                         admissible_case_name<ScatterNdTester>);

// The same table on the optimized backend. Float reductions may differ from the correctly rounded
// value by an ulp.
class OptimizedScatterNd : public ::testing::TestWithParam<ScatterNdCase> {};

TEST_P(OptimizedScatterNd, Case) {
  GetParam().tester.run(optimized_backend(), CheckPolicy{1});
}

INSTANTIATE_TEST_SUITE_P(Conformance, OptimizedScatterNd, ::testing::ValuesIn(scatter_nd_conformance_cases()),
                         case_name<ScatterNdTester>);

}  // namespace
}  // namespace dmlcert::test

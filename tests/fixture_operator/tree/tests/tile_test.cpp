// TILE on the reference and the optimized backend against hand-computed results
// (docs/ops/tile.md): output[c] = input[c mod Input.Sizes].
#include <cstdint>
#include <limits>

#include "op_tester.h"

namespace dmlcert::test {

// TILE: the repeats; Output.Sizes defaults to Input.Sizes * Repeats (Input.Sizes where the
// lengths differ, for the DIMCOUNT case).
class TileTester : public OpTester<TileTester> {
 public:
  TileTester& repeats(std::vector<uint32_t> r) { return set(repeats_, std::move(r)); }
  OperatorDesc build() const {
    TileDesc d;
    d.input = make_tensor(Role::INPUT, data_type());
    Sizes out = d.input.sizes;
    for (size_t i = 0; out.size() == repeats_.size() && i < out.size(); ++i) out[i] *= repeats_[i];
    d.output = make_tensor(Role::OUTPUT, data_type(), out);
    d.repeats = repeats_;
    return d;
  }

 private:
  std::vector<uint32_t> repeats_;
};
using TileCase = NamedCase<TileTester>;
namespace {

constexpr auto F16 = DataType::FLOAT16;
constexpr auto F64 = DataType::FLOAT64;
constexpr auto I32 = DataType::INT32;
constexpr auto I64 = DataType::INT64;

// docs/ops/tile.md's example: [[1, 2], [3, 4]] repeated twice down and three times across.
TileTester doc_example() {
  return TileTester().input_sizes({2, 2}).input_data(Values::iota(4)).repeats({2, 3});
}

std::vector<TileCase> tile_conformance_cases() {
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min(), kMax = std::numeric_limits<int64_t>::max();
  return {
      {"doc_example", doc_example().expect_output({1, 2, 1, 2, 1, 2,  //
                                                   3, 4, 3, 4, 3, 4,  //
                                                   1, 2, 1, 2, 1, 2,  //
                                                   3, 4, 3, 4, 3, 4})},
      {"rank1", TileTester()
                    .input_sizes({3})
                    .input_data({10, 20, 30})
                    .repeats({2})
                    .expect_output({10, 20, 30, 10, 20, 30})},
      {"every_repeat_1_is_a_copy", doc_example().repeats({1, 1}).expect_output({1, 2, 3, 4})},
      {"middle_dimension_only", TileTester()
                                    .input_sizes({2, 1, 2})
                                    .input_data(Values::iota(4))
                                    .repeats({1, 2, 1})
                                    .expect_output({1, 2, 1, 2, 3, 4, 3, 4})},
      {"rank8", TileTester()
                    .input_sizes({1, 1, 1, 1, 1, 1, 1, 2})
                    .input_data({7, 8})
                    .repeats({1, 1, 1, 1, 1, 1, 2, 1})
                    .expect_output({7, 8, 7, 8})},
      {"level_3_0_int32", TileTester()
                              .level(FeatureLevel::L3_0)
                              .type(I32)
                              .input_sizes({2})
                              .input_data({-1, 2147483647})
                              .repeats({2})
                              .expect_output({-1, 2147483647, -1, 2147483647})},
      // Data moves bit-exactly.
      {"float16_nan_payload_and_negative_zero",
       TileTester()
           .type(F16)
           .input_sizes({2})
           .input_data(Values::bits({0x7E01, 0x8000}))
           .repeats({2})
           .expect_output(Values::bits({0x7E01, 0x8000, 0x7E01, 0x8000}))},
      {"int64_extremes_from_4_1", TileTester()
                                      .level(FeatureLevel::L4_1)
                                      .type(I64)
                                      .input_sizes({2})
                                      .input_data(Values::ints({kMin, kMax}))
                                      .repeats({2})
                                      .expect_output(Values::ints({kMin, kMax, kMin, kMax}))},
      {"float64_from_4_1",
       TileTester()
           .level(FeatureLevel::L4_1)
           .type(F64)
           .input_sizes({1})
           .input_data(Values::bits({0x7FF0000000000001}))
           .repeats({3})
           .expect_output(Values::bits({0x7FF0000000000001, 0x7FF0000000000001, 0x7FF0000000000001}))},
      // Strided tensors (the optimized backend's element-by-element rows).
      {"padded_input_rows",
       doc_example().input_strides({3, 1}).repeats({1, 2}).expect_output({1, 2, 1, 2, 3, 4, 3, 4})},
      {"broadcast_input_zero_stride", TileTester()
                                          .input_sizes({2, 2})
                                          .input_strides({0, 1})
                                          .input_data({5, 6, 5, 6})
                                          .repeats({2, 1})
                                          .expect_output({5, 6, 5, 6, 5, 6, 5, 6})},
      {"padded_output_rows",
       doc_example().repeats({1, 2}).output_strides({5, 1}).expect_output({1, 2, 1, 2, 3, 4, 3, 4})},
      {"column_major_output", TileTester()
                                  .input_sizes({1, 2})
                                  .input_data({1, 2})
                                  .repeats({2, 1})
                                  .output_strides({1, 2})
                                  .expect_output({1, 2, 1, 2})},
      // Invalid descriptors.
      {"rejects_zero_repeat",
       doc_example().repeats({0, 1}).output_sizes({2, 2}).expect_rejected("TILE.REPEATS_NONZERO")},
      {"rejects_output_shape",
       doc_example().repeats({2, 1}).output_sizes({4, 3}).expect_rejected("TILE.OUTPUT_SHAPE")},
      {"rejects_output_type", doc_example().output_type(I32).expect_rejected("TILE.DTYPE_MATCH")},
      {"rejects_repeats_of_another_length", doc_example().repeats({2}).expect_rejected("TILE.DIMCOUNT")},
      {"rejects_level_before_3_0",
       doc_example().level(FeatureLevel::L2_1).expect_rejected("OP.FEATURE_LEVEL")},
  };
}

class ReferenceTile : public ::testing::TestWithParam<TileCase> {};

TEST_P(ReferenceTile, Case) {
  GetParam().tester.run(reference_backend());
}

INSTANTIATE_TEST_SUITE_P(Conformance, ReferenceTile, ::testing::ValuesIn(tile_conformance_cases()),
                         case_name<TileTester>);

class OptimizedTile : public ::testing::TestWithParam<TileCase> {};

TEST_P(OptimizedTile, Case) {
  GetParam().tester.run(optimized_backend());
}

INSTANTIATE_TEST_SUITE_P(Conformance, OptimizedTile, ::testing::ValuesIn(tile_conformance_cases()),
                         case_name<TileTester>);

}  // namespace
}  // namespace dmlcert::test

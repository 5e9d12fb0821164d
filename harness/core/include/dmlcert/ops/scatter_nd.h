// SCATTER_ND (DML_SCATTER_ND_OPERATOR_DESC): output = input, then output[indices[...]] =
// updates[...] (docs/ops/scatter_nd.md).
#pragma once

#include <optional>

#include "dmlcert/operator_schema.h"

namespace dmlcert {

// Where the index tuples of a SCATTER_ND land in its tensors (docs/ops/scatter_nd.md,
// and SCATTERND.TUPLE_SIZE: with m = max(InputDimensionCount, k) the meaningful input rank, a
// tuple indexes input dimensions [rank-m, rank-m+k) and addresses the block of dimensions
// [rank-m+k, rank)).
struct ScatterGeometry {
  uint32_t k = 0;              // the tuple length, Indices.Sizes[last]
  uint32_t first_indexed = 0;  // the first input dimension a tuple indexes
  uint32_t first_block = 0;    // the first input dimension of the block
  Sizes batch_sizes;           // the indices' meaningful sizes without the last: tuple positions
  Sizes block_sizes;           // input sizes from first_block on
  Sizes expected_updates;      // batch ++ block, right-aligned, left-padded to Updates' rank
};

struct ScatterNdDesc {
  TensorDesc input, indices, updates, output;
  uint32_t input_dimension_count = 0;
  uint32_t indices_dimension_count = 0;
  bool operator==(const ScatterNdDesc&) const = default;

  // The geometry, or nullopt when the counts and k do not define one (the validator names why).
  std::optional<ScatterGeometry> geometry() const;

  // The declaration generic code derives from.
  using Abi = dmlcert_scatter_nd_operator_desc;
  static constexpr OperatorInfo kInfo = {
      "SCATTER_ND",        "scatter_nd", "SCATTERND", FeatureLevel::L2_1, DMLCERT_OPERATOR_SCATTER_ND,
      "SCATTERND.DIMCOUNT"};
  static constexpr auto tensors() {
    using F = TensorField<ScatterNdDesc, Abi>;
    return std::tuple{F{Role::INPUT, &ScatterNdDesc::input, &Abi::input_tensor},
                      F{Role::INDICES, &ScatterNdDesc::indices, &Abi::indices_tensor, TypeSource::Index},
                      F{Role::UPDATES, &ScatterNdDesc::updates, &Abi::updates_tensor},
                      F{Role::OUTPUT, &ScatterNdDesc::output, &Abi::output_tensor}};
  }
  static constexpr auto params() {
    return std::tuple{scalar("input_dimension_count", ParamKind::Count, &ScatterNdDesc::input_dimension_count,
                             &Abi::input_dimension_count),
                      scalar("indices_dimension_count", ParamKind::Count,
                             &ScatterNdDesc::indices_dimension_count, &Abi::indices_dimension_count)};
  }
  // src/ops/scatter_nd.cpp: the rules, the support table and the checks.
  static std::span<const Rule> rules();
  static std::span<const SupportRow> support_rows();
  static void validate(const ScatterNdDesc& d, FeatureLevel level, Findings& f);
  static void check_data(const ScatterNdDesc& d, FeatureLevel level, const InputData& data, Findings& f);
};

}  // namespace dmlcert

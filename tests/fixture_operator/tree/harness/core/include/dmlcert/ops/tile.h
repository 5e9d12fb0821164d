// TILE (DML_TILE_OPERATOR_DESC): output[c] = input[c mod Input.Sizes], the input repeated
// Repeats[i] times along each dimension i (docs/ops/tile.md).
#pragma once

#include "dmlcert/operator_schema.h"

namespace dmlcert {

struct TileDesc {
  TensorDesc input, output;
  std::vector<uint32_t> repeats;
  bool operator==(const TileDesc&) const = default;

  // The declaration generic code derives from. TILE came with ABI version 3.
  using Abi = dmlcert_tile_operator_desc;
  static constexpr OperatorInfo kInfo = {
      "TILE", "tile", "TILE", FeatureLevel::L3_0, DMLCERT_OPERATOR_TILE, "TILE.DIMCOUNT", 3};
  static constexpr auto tensors() {
    return std::tuple{TensorField<TileDesc, Abi>{Role::INPUT, &TileDesc::input, &Abi::input_tensor},
                      TensorField<TileDesc, Abi>{Role::OUTPUT, &TileDesc::output, &Abi::output_tensor}};
  }
  // A repeat of 1 leaves a new leading dimension of size 1 as it is.
  static constexpr auto params() {
    return std::tuple{per_dimension("repeats", &TileDesc::repeats, 1, &Abi::repeats, &Abi::repeats_count)};
  }
  // src/ops/tile.cpp: the rules, the support table and the checks.
  static std::span<const Rule> rules();
  static std::span<const SupportRow> support_rows();
  static void validate(const TileDesc& d, FeatureLevel level, Findings& f);
};

}  // namespace dmlcert

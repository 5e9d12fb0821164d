// SLICE (DML_SLICE_OPERATOR_DESC): Output[c] = Input[Offsets + Strides * c]
// (docs/ops/slice.md).
#pragma once

#include "dmlcert/operator_schema.h"

namespace dmlcert {

struct SliceDesc {
  TensorDesc input, output;
  std::vector<uint32_t> offsets, sizes, strides;
  bool operator==(const SliceDesc&) const = default;

  // The declaration generic code derives from.
  using Abi = dmlcert_slice_operator_desc;
  static constexpr OperatorInfo kInfo = {
      "SLICE", "slice", "SLICE", FeatureLevel::L1_0, DMLCERT_OPERATOR_SLICE, "SLICE.DIMCOUNT"};
  static constexpr auto tensors() {
    return std::tuple{TensorField<SliceDesc, Abi>{Role::INPUT, &SliceDesc::input, &Abi::input_tensor},
                      TensorField<SliceDesc, Abi>{Role::OUTPUT, &SliceDesc::output, &Abi::output_tensor}};
  }
  static constexpr auto params() {
    return std::tuple{per_dimension("offsets", &SliceDesc::offsets, 0, &Abi::offsets, &Abi::dimension_count),
                      per_dimension("sizes", &SliceDesc::sizes, 1, &Abi::sizes, &Abi::dimension_count),
                      per_dimension("strides", &SliceDesc::strides, 1, &Abi::strides, &Abi::dimension_count)};
  }
  // src/ops/slice.cpp: the rules, the support table and the checks.
  static std::span<const Rule> rules();
  static std::span<const SupportRow> support_rows();
  static void validate(const SliceDesc& d, FeatureLevel level, Findings& f);
};

}  // namespace dmlcert

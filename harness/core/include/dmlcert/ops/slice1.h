// SLICE1 (DML_SLICE1_OPERATOR_DESC): a window of the input walked with signed strides
// (docs/ops/slice1.md).
#pragma once

#include "dmlcert/operator_schema.h"

namespace dmlcert {

struct Slice1Desc {
  TensorDesc input, output;
  std::vector<uint32_t> input_window_offsets, input_window_sizes;
  std::vector<int32_t> input_window_strides;
  bool operator==(const Slice1Desc&) const = default;

  // The declaration generic code derives from.
  using Abi = dmlcert_slice1_operator_desc;
  static constexpr OperatorInfo kInfo = {
      "SLICE1", "slice1", "SLICE1", FeatureLevel::L2_1, DMLCERT_OPERATOR_SLICE1, "SLICE1.DIMCOUNT"};
  static constexpr auto tensors() {
    return std::tuple{TensorField<Slice1Desc, Abi>{Role::INPUT, &Slice1Desc::input, &Abi::input_tensor},
                      TensorField<Slice1Desc, Abi>{Role::OUTPUT, &Slice1Desc::output, &Abi::output_tensor}};
  }
  static constexpr auto params() {
    return std::tuple{per_dimension("input_window_offsets", &Slice1Desc::input_window_offsets, 0,
                                    &Abi::input_window_offsets, &Abi::dimension_count),
                      per_dimension("input_window_sizes", &Slice1Desc::input_window_sizes, 1,
                                    &Abi::input_window_sizes, &Abi::dimension_count),
                      per_dimension("input_window_strides", &Slice1Desc::input_window_strides, 1,
                                    &Abi::input_window_strides, &Abi::dimension_count)};
  }
  // src/ops/slice1.cpp: the rules, the support table and the checks.
  static std::span<const Rule> rules();
  static std::span<const SupportRow> support_rows();
  static void validate(const Slice1Desc& d, FeatureLevel level, Findings& f);
};

}  // namespace dmlcert

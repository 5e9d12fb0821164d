// GATHER_ELEMENTS (DML_GATHER_ELEMENTS_OPERATOR_DESC): output[c] = input[c with c[axis] replaced
// by indices[c]] (docs/ops/gather_elements.md).
#pragma once

#include "dmlcert/operator_schema.h"

namespace dmlcert {

struct GatherElementsDesc {
  TensorDesc input, indices, output;
  uint32_t axis = 0;
  bool operator==(const GatherElementsDesc&) const = default;

  // The declaration generic code derives from.
  using Abi = dmlcert_gather_elements_operator_desc;
  static constexpr OperatorInfo kInfo = {"GATHER_ELEMENTS",
                                         "gather_elements",
                                         "GATHERELEMENTS",
                                         FeatureLevel::L2_1,
                                         DMLCERT_OPERATOR_GATHER_ELEMENTS,
                                         "GATHERELEMENTS.DIMCOUNT"};
  static constexpr auto tensors() {
    using F = TensorField<GatherElementsDesc, Abi>;
    return std::tuple{F{Role::INPUT, &GatherElementsDesc::input, &Abi::input_tensor},
                      F{Role::INDICES, &GatherElementsDesc::indices, &Abi::indices_tensor, TypeSource::Index},
                      F{Role::OUTPUT, &GatherElementsDesc::output, &Abi::output_tensor}};
  }
  static constexpr auto params() {
    return std::tuple{scalar("axis", ParamKind::Axis, &GatherElementsDesc::axis, &Abi::axis)};
  }
  // src/ops/gather_elements.cpp: the rules, the support table and the checks.
  static std::span<const Rule> rules();
  static std::span<const SupportRow> support_rows();
  static void validate(const GatherElementsDesc& d, FeatureLevel level, Findings& f);
  static void check_data(const GatherElementsDesc& d, FeatureLevel level, const InputData& data, Findings& f);
};

}  // namespace dmlcert

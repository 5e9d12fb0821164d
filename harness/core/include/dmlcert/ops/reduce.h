// REDUCE (DML_REDUCE_OPERATOR_DESC): each output element applies the function to the input
// elements that share its kept coordinates (docs/ops/reduce.md).
#pragma once

#include "dmlcert/operator_schema.h"

namespace dmlcert {

struct ReduceDesc {
  ReduceFunction function = ReduceFunction::SUM;
  TensorDesc input, output;
  std::vector<uint32_t> axes;
  bool operator==(const ReduceDesc&) const = default;

  // The declaration generic code derives from.
  using Abi = dmlcert_reduce_operator_desc;
  static constexpr OperatorInfo kInfo = {
      "REDUCE", "reduce", "REDUCE", FeatureLevel::L1_0, DMLCERT_OPERATOR_REDUCE, "REDUCE.DIMCOUNT"};
  static constexpr auto tensors() {
    using F = TensorField<ReduceDesc, Abi>;
    return std::tuple{
        F{Role::INPUT, &ReduceDesc::input, &Abi::input_tensor},
        F{Role::OUTPUT, &ReduceDesc::output, &Abi::output_tensor, TypeSource::IndexForArgFunctions}};
  }
  static constexpr auto params() {
    return std::tuple{function_param("function", &ReduceDesc::function, &Abi::function),
                      axis_list("axes", &ReduceDesc::axes, &Abi::axes, &Abi::axis_count)};
  }
  // src/ops/reduce.cpp: the rules, the support table, the checks and the comparison model.
  static std::span<const Rule> rules();
  static std::span<const SupportRow> support_rows();
  static void validate(const ReduceDesc& d, FeatureLevel level, Findings& f);
  static void check_data(const ReduceDesc& d, FeatureLevel level, const InputData& data, Findings& f);
  // Float reductions are judged within an error bound computed from the data (reduce_bounds.h);
  // MIN, MAX and ARG* stay bit-exact.
  static void refine_expectation(const ReduceDesc& d, const InputData& data, AccumulationProfile profile,
                                 Expectation& e);
  // What the oracle works in besides its bindings (case_footprint): the reference and the comparison
  // model list every output's input elements (reduction_groups), one after the other.
  static uint64_t oracle_bytes(const ReduceDesc& d);
};

}  // namespace dmlcert

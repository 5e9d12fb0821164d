// A backend that checks T.ELEMENT_LIMIT dimension by dimension, each (Sizes[i]-1) * Strides[i] in
// 64 bits, but adds the terms up in 32 bits. BUG: terms that each fit add up past 2^32-1 and wrap
// to a small span; the descriptor is executed over memory it does not have.
#include "mutant_util.h"

namespace dmlcert::mutants {
namespace {

// The span as the backend computes it: nullopt when one term alone is over the limit.
std::optional<uint32_t> span_32(const TensorDesc& t) {
  const auto strides = effective_strides(t);
  uint32_t span = 1;
  for (size_t i = 0; i < t.sizes.size(); ++i) {
    const uint64_t term = uint64_t{t.sizes[i] - 1} * strides[i];
    if (term > 0xFFFFFFFFull) return std::nullopt;
    span += static_cast<uint32_t>(term);  // BUG: the sum wraps
  }
  return span;
}

class ElementLimitSummedIn32Bits final : public PatchedReference {
  std::optional<ExecResult> intercept(const OperatorDesc& desc, FeatureLevel level,
                                      const Bindings& b) override {
    if (!only_broken(validate(desc, level), {"T.ELEMENT_LIMIT"})) return std::nullopt;
    for (Role r : roles(op_kind(desc)))
      if (!span_32(*tensor(desc, r))) return std::nullopt;
    return run_kernel(desc, level, b);
  }
};

}  // namespace
}  // namespace dmlcert::mutants

DMLCERT_EXPORT_MUTANT(element_limit_summed_in_32_bits, dmlcert::mutants::ElementLimitSummedIn32Bits)

// FLOAT16 SUM, AVERAGE, L1 and L2 that accumulate in float32 (as allowed) but convert the result
// to FLOAT16 by truncation (toward zero) instead of round-to-nearest-even.
#include "mutant_util.h"

namespace dmlcert::mutants {
namespace {

// float -> half rounding toward zero: round to nearest, then step back when that went up.
half truncate_to_half(float v) {
  half h(v);
  if (std::isfinite(v) && std::fabs(static_cast<float>(h)) > std::fabs(v)) {
    const uint16_t bits = Eigen::numext::bit_cast<uint16_t>(h);
    h = Eigen::numext::bit_cast<half>(static_cast<uint16_t>(bits - 1));  // one ulp toward zero
  }
  return h;
}

class Fp16RoundsTowardZero final : public PatchedReference {
  std::optional<ExecResult> mutated(const OperatorDesc& desc, FeatureLevel, const Bindings& b) override {
    const ReduceDesc* d = reduce_of(
        desc, {ReduceFunction::SUM, ReduceFunction::AVERAGE, ReduceFunction::L1, ReduceFunction::L2});
    if (!d || d->input.type != DataType::FLOAT16) return std::nullopt;
    for_each_group(*d, b, [&](const Elements& xs, std::byte* dst) {
      float acc = 0;
      for (const std::byte* p : xs) {
        const float x = static_cast<float>(load<half>(p));
        switch (d->function) {
          case ReduceFunction::L1: acc += std::fabs(x); break;
          case ReduceFunction::L2: acc += x * x; break;
          default: acc += x; break;
        }
      }
      if (d->function == ReduceFunction::AVERAGE) acc /= static_cast<float>(xs.size());
      if (d->function == ReduceFunction::L2) acc = std::sqrt(acc);
      store<half>(dst, truncate_to_half(acc));  // BUG: toward zero
    });
    return ok();
  }
};

}  // namespace
}  // namespace dmlcert::mutants

DMLCERT_EXPORT_MUTANT(fp16_rounds_toward_zero, dmlcert::mutants::Fp16RoundsTowardZero)

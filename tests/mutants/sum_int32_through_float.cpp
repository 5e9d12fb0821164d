// SUM and L1 on INT32 and UINT32 that accumulate in float: exact only while every partial result
// stays below 2^24.
#include "mutant_util.h"

namespace dmlcert::mutants {
namespace {

class SumInt32ThroughFloat final : public PatchedReference {
  std::optional<ExecResult> mutated(const OperatorDesc& desc, FeatureLevel, const Bindings& b) override {
    const ReduceDesc* d = reduce_of(desc, {ReduceFunction::SUM, ReduceFunction::L1});
    if (!d || (d->input.type != DataType::INT32 && d->input.type != DataType::UINT32)) return std::nullopt;
    const bool l1 = d->function == ReduceFunction::L1;
    for_each_group(*d, b, [&](const Elements& xs, std::byte* dst) {
      float acc = 0;  // BUG: 24 bits of precision for a 32-bit sum
      for (const std::byte* x : xs) {
        const double v = to_double(d->input.type, x);
        acc += static_cast<float>(l1 ? std::fabs(v) : v);
      }
      if (d->output.type == DataType::INT32)
        store<int32_t>(dst, static_cast<int32_t>(std::clamp<double>(acc, INT32_MIN, INT32_MAX)));
      else
        store<uint32_t>(dst, static_cast<uint32_t>(std::clamp<double>(acc, 0, UINT32_MAX)));
    });
    return ok();
  }
};

}  // namespace
}  // namespace dmlcert::mutants

DMLCERT_EXPORT_MUTANT(sum_int32_through_float, dmlcert::mutants::SumInt32ThroughFloat)

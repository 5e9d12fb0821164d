// MULTIPLY on INT64 and UINT64 that multiplies in double: exact only while every partial product
// stays below 2^53.
#include "mutant_util.h"

namespace dmlcert::mutants {
namespace {

class MultiplyInt64ThroughDouble final : public PatchedReference {
  std::optional<ExecResult> mutated(const OperatorDesc& desc, FeatureLevel, const Bindings& b) override {
    const ReduceDesc* d = reduce_of(desc, {ReduceFunction::MULTIPLY});
    if (!d || (d->input.type != DataType::INT64 && d->input.type != DataType::UINT64)) return std::nullopt;
    for_each_group(*d, b, [&](const Elements& xs, std::byte* dst) {
      double acc = 1;  // BUG: 53 bits of precision for a 64-bit product
      for (const std::byte* x : xs) acc *= to_double(d->input.type, x);
      if (d->output.type == DataType::INT64)
        store<int64_t>(dst, acc >= 0x1p63    ? INT64_MAX
                            : acc <= -0x1p63 ? INT64_MIN
                                             : static_cast<int64_t>(acc));
      else
        store<uint64_t>(dst, acc >= 0x1p64 ? UINT64_MAX : acc <= 0 ? 0 : static_cast<uint64_t>(acc));
    });
    return ok();
  }
};

}  // namespace
}  // namespace dmlcert::mutants

DMLCERT_EXPORT_MUTANT(multiply_int64_through_double, dmlcert::mutants::MultiplyInt64ThroughDouble)

// FLOAT16 SUM that accumulates in FLOAT16, rounding every partial sum to half precision (docs/semantics.md
// requires at least float32 under the default profile).
#include "mutant_util.h"

namespace dmlcert::mutants {
namespace {

class SumFp16AccumulatesInFp16 final : public PatchedReference {
  std::optional<ExecResult> mutated(const OperatorDesc& desc, FeatureLevel, const Bindings& b) override {
    const ReduceDesc* d = reduce_of(desc, {ReduceFunction::SUM});
    if (!d || d->input.type != DataType::FLOAT16) return std::nullopt;
    for_each_group(*d, b, [&](const Elements& xs, std::byte* dst) {
      half acc(0.0f);  // BUG: a half accumulator
      for (const std::byte* x : xs) acc = half(static_cast<float>(acc) + static_cast<float>(load<half>(x)));
      store<half>(dst, acc);
    });
    return ok();
  }
};

}  // namespace
}  // namespace dmlcert::mutants

DMLCERT_EXPORT_MUTANT(sum_fp16_accumulates_in_fp16, dmlcert::mutants::SumFp16AccumulatesInFp16)

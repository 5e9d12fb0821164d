// FLOAT16 SUM, AVERAGE, L1, SUM_SQUARE and L2 accumulated in float32 (the least docs/semantics.md's default
// profile allows) instead of the reference's compensated long double.
#include "float_sums.h"
#include "variant_catalog.h"

namespace dmlcert::variants {
namespace {

class Fp16AccumulatesInFloat32 final : public mutants::PatchedReference {
  std::optional<ExecResult> mutated(const OperatorDesc& desc, FeatureLevel, const Bindings& b) override {
    const ReduceDesc* d =
        mutants::reduce_of(desc, {ReduceFunction::SUM, ReduceFunction::AVERAGE, ReduceFunction::L1,
                                  ReduceFunction::SUM_SQUARE, ReduceFunction::L2});
    if (!d || d->input.type != DataType::FLOAT16) return std::nullopt;
    mutants::for_each_group(*d, b, [&](const Elements& xs, std::byte* dst) {
      float sum = 0;
      for (float x : float_terms(d->input.type, d->function, xs)) sum += x;
      store_float(d->output.type, finish(d->function, sum, xs.size()), dst);
    });
    return mutants::ok();
  }
};

}  // namespace
}  // namespace dmlcert::variants

DMLCERT_EXPORT_VARIANT(fp16_accumulates_in_float32, dmlcert::variants::Fp16AccumulatesInFloat32)

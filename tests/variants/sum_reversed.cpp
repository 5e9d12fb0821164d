// Float SUM and SUM_SQUARE accumulated in float32 from the last element to the first.
#include "float_sums.h"
#include "variant_catalog.h"

namespace dmlcert::variants {
namespace {

class SumReversed final : public mutants::PatchedReference {
  std::optional<ExecResult> mutated(const OperatorDesc& desc, FeatureLevel, const Bindings& b) override {
    const ReduceDesc* d = mutants::reduce_of(desc, {ReduceFunction::SUM, ReduceFunction::SUM_SQUARE});
    if (!d || !float32_or_16(d->input.type)) return std::nullopt;
    mutants::for_each_group(*d, b, [&](const Elements& xs, std::byte* dst) {
      const std::vector<float> terms = float_terms(d->input.type, d->function, xs);
      float sum = 0;
      for (std::size_t i = terms.size(); i-- > 0;) sum += terms[i];
      store_float(d->output.type, sum, dst);
    });
    return mutants::ok();
  }
};

}  // namespace
}  // namespace dmlcert::variants

DMLCERT_EXPORT_VARIANT(sum_reversed, dmlcert::variants::SumReversed)

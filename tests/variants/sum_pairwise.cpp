// Float SUM, AVERAGE and L1 by pairwise (tree) summation in float32: a different order and tree
// shape from the reference's, within docs/semantics.md's bound for any order.
#include "float_sums.h"
#include "variant_catalog.h"

namespace dmlcert::variants {
namespace {

float pairwise(const float* x, std::size_t n) {
  if (n == 1) return x[0];
  const std::size_t half_n = n / 2;
  return pairwise(x, half_n) + pairwise(x + half_n, n - half_n);
}

class SumPairwise final : public mutants::PatchedReference {
  std::optional<ExecResult> mutated(const OperatorDesc& desc, FeatureLevel, const Bindings& b) override {
    const ReduceDesc* d =
        mutants::reduce_of(desc, {ReduceFunction::SUM, ReduceFunction::AVERAGE, ReduceFunction::L1});
    if (!d || !float32_or_16(d->input.type)) return std::nullopt;
    mutants::for_each_group(*d, b, [&](const Elements& xs, std::byte* dst) {
      const std::vector<float> terms = float_terms(d->input.type, d->function, xs);
      store_float(d->output.type, finish(d->function, pairwise(terms.data(), terms.size()), terms.size()),
                  dst);
    });
    return mutants::ok();
  }
};

}  // namespace
}  // namespace dmlcert::variants

DMLCERT_EXPORT_VARIANT(sum_pairwise, dmlcert::variants::SumPairwise)

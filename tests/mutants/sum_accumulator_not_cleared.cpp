// Float REDUCE SUM that accumulates in a buffer of one long double per output element, kept
// between calls to save the allocation. BUG: the buffer is zeroed only when it has to grow, so a
// call whose output is no larger than an earlier one's adds to the sums that call left behind.
#include "mutant_util.h"

namespace dmlcert::mutants {
namespace {

class SumAccumulatorNotCleared final : public PatchedReference {
  std::vector<long double> sums_;

  std::optional<ExecResult> mutated(const OperatorDesc& desc, FeatureLevel, const Bindings& b) override {
    const ReduceDesc* d = reduce_of(desc, {ReduceFunction::SUM});
    if (!d || !is_float(d->input.type)) return std::nullopt;
    const uint64_t outputs = element_count(d->output.sizes).value_or(0);
    if (sums_.size() < outputs) sums_.assign(outputs, 0.0L);  // BUG: not cleared otherwise
    size_t g = 0;
    for_each_group(*d, b, [&](const Elements& xs, std::byte* dst) {
      long double& sum = sums_[g++];
      for (const std::byte* x : xs) sum += to_double(d->input.type, x);
      store_rounded(d->output.type, sum, dst);
    });
    return ok();
  }
};

}  // namespace
}  // namespace dmlcert::mutants

DMLCERT_EXPORT_MUTANT(sum_accumulator_not_cleared, dmlcert::mutants::SumAccumulatorNotCleared)

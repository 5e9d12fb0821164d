// AVERAGE that divides the sum by the size of the last reduced axis instead of by N, the product
// of every reduced axis' size.
#include "mutant_util.h"

namespace dmlcert::mutants {
namespace {

class AverageDividesByLastAxis final : public PatchedReference {
  std::optional<ExecResult> mutated(const OperatorDesc& desc, FeatureLevel, const Bindings& b) override {
    const ReduceDesc* d = reduce_of(desc, {ReduceFunction::AVERAGE});
    if (!d) return std::nullopt;
    const auto axes = axis_set(d->axes);
    const long double divisor = axes.empty() ? 1 : d->input.sizes[axes.back()];  // BUG: not N
    for_each_group(*d, b, [&](const Elements& xs, std::byte* dst) {
      long double sum = 0;
      for (const std::byte* x : xs) sum += to_double(d->input.type, x);
      store_rounded(d->output.type, sum / divisor, dst);
    });
    return ok();
  }
};

}  // namespace
}  // namespace dmlcert::mutants

DMLCERT_EXPORT_MUTANT(average_divides_by_last_axis, dmlcert::mutants::AverageDividesByLastAxis)

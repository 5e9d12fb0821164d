// ARGMAX that breaks ties towards the last index (>= instead of >), not the first.
#include "mutant_util.h"

namespace dmlcert::mutants {
namespace {

class ArgmaxLastOnTies final : public PatchedReference {
  std::optional<ExecResult> mutated(const OperatorDesc& desc, FeatureLevel, const Bindings& b) override {
    const ReduceDesc* d = reduce_of(desc, {ReduceFunction::ARGMAX});
    if (!d) return std::nullopt;
    for_each_group(*d, b, [&](const Elements& xs, std::byte* dst) {
      const std::size_t best = dispatch(d->input.type, [&](auto tag) {
        using T = typename decltype(tag)::type;
        for (std::size_t i = 0; i < xs.size(); ++i)
          if (element_is_nan<T>(xs[i])) return i;  // NaN propagates, as in the reference
        std::size_t at = 0;
        for (std::size_t i = 1; i < xs.size(); ++i)
          if (element_value<T>(xs[i]) >= element_value<T>(xs[at])) at = i;  // BUG: >= keeps the last
        return at;
      });
      store_index(d->output.type, best, dst);
    });
    return ok();
  }
};

}  // namespace
}  // namespace dmlcert::mutants

DMLCERT_EXPORT_MUTANT(argmax_last_on_ties, dmlcert::mutants::ArgmaxLastOnTies)

// MAX whose running maximum starts at 0 instead of the group's first element: a group of
// negative values gives 0.
#include "mutant_util.h"

namespace dmlcert::mutants {
namespace {

class MaxStartsAtZero final : public PatchedReference {
  std::optional<ExecResult> mutated(const OperatorDesc& desc, FeatureLevel, const Bindings& b) override {
    const ReduceDesc* d = reduce_of(desc, {ReduceFunction::MAX});
    if (!d) return std::nullopt;
    for_each_group(*d, b, [&](const Elements& xs, std::byte* dst) {
      dispatch(d->input.type, [&](auto tag) {
        using T = typename decltype(tag)::type;
        T best = T(0);  // BUG: the reference starts from the first element
        for (const std::byte* x : xs) {
          if (element_is_nan<T>(x)) {
            best = load<T>(x);
            break;
          }
          if (element_value<T>(x) > static_cast<decltype(element_value<T>(x))>(best)) best = load<T>(x);
        }
        store<T>(dst, best);
      });
    });
    return ok();
  }
};

}  // namespace
}  // namespace dmlcert::mutants

DMLCERT_EXPORT_MUTANT(max_starts_at_zero, dmlcert::mutants::MaxStartsAtZero)

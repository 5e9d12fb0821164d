// MAX on unsigned integer types that compares the elements as the signed type of the same width:
// values with the top bit set lose to small ones.
#include <type_traits>

#include "mutant_util.h"

namespace dmlcert::mutants {
namespace {

class MaxUnsignedComparedSigned final : public PatchedReference {
  std::optional<ExecResult> mutated(const OperatorDesc& desc, FeatureLevel, const Bindings& b) override {
    const ReduceDesc* d = reduce_of(desc, {ReduceFunction::MAX});
    if (!d || !is_integer(d->input.type) || is_signed_integer(d->input.type)) return std::nullopt;
    for_each_group(*d, b, [&](const Elements& xs, std::byte* dst) {
      dispatch(d->input.type, [&](auto tag) {
        using T = typename decltype(tag)::type;
        if constexpr (std::is_integral_v<T>) {
          using S = std::make_signed_t<T>;  // BUG: signed comparison
          T best = load<T>(xs[0]);
          for (const std::byte* x : xs)
            if (static_cast<S>(load<T>(x)) > static_cast<S>(best)) best = load<T>(x);
          store<T>(dst, best);
        }
      });
    });
    return ok();
  }
};

}  // namespace
}  // namespace dmlcert::mutants

DMLCERT_EXPORT_MUTANT(max_unsigned_compared_signed, dmlcert::mutants::MaxUnsignedComparedSigned)

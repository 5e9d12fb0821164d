// MIN whose running minimum starts at a 32-bit sentinel, INT32_MAX converted to the element type:
// -1 for INT8 and INT16, below the data for 64-bit and UINT32 values above 2^31.
#include "mutant_util.h"

namespace dmlcert::mutants {
namespace {

class MinStartsAtInt32Max final : public PatchedReference {
  std::optional<ExecResult> mutated(const OperatorDesc& desc, FeatureLevel, const Bindings& b) override {
    const ReduceDesc* d = reduce_of(desc, {ReduceFunction::MIN});
    if (!d) return std::nullopt;
    for_each_group(*d, b, [&](const Elements& xs, std::byte* dst) {
      dispatch(d->input.type, [&](auto tag) {
        using T = typename decltype(tag)::type;
        T best;
        if constexpr (is_float_v<T>)
          best = T(static_cast<float>(std::numeric_limits<int32_t>::max()));
        else
          best = static_cast<T>(std::numeric_limits<int32_t>::max());  // BUG: a sentinel, not xs[0]
        for (const std::byte* x : xs) {
          if (element_is_nan<T>(x)) {
            best = load<T>(x);
            break;
          }
          if (element_value<T>(x) < static_cast<decltype(element_value<T>(x))>(best)) best = load<T>(x);
        }
        store<T>(dst, best);
      });
    });
    return ok();
  }
};

}  // namespace
}  // namespace dmlcert::mutants

DMLCERT_EXPORT_MUTANT(min_starts_at_int32_max, dmlcert::mutants::MinStartsAtInt32Max)

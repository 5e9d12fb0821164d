// L1 on signed integer types that sums x instead of |x| (the abs() was only written for floats).
#include "mutant_util.h"

namespace dmlcert::mutants {
namespace {

class L1IntegerWithoutAbs final : public PatchedReference {
  std::optional<ExecResult> mutated(const OperatorDesc& desc, FeatureLevel, const Bindings& b) override {
    const ReduceDesc* d = reduce_of(desc, {ReduceFunction::L1});
    if (!d || !is_signed_integer(d->input.type)) return std::nullopt;
    for_each_group(*d, b, [&](const Elements& xs, std::byte* dst) {
      dispatch(d->input.type, [&](auto tag) {
        using T = typename decltype(tag)::type;
        if constexpr (std::is_integral_v<T>) {
          uint64_t acc = 0;  // modulo 2^64, like the reference
          for (const std::byte* x : xs) acc += static_cast<uint64_t>(load<T>(x));  // BUG: no abs
          store<T>(dst, static_cast<T>(acc));
        }
      });
    });
    return ok();
  }
};

}  // namespace
}  // namespace dmlcert::mutants

DMLCERT_EXPORT_MUTANT(l1_integer_without_abs, dmlcert::mutants::L1IntegerWithoutAbs)

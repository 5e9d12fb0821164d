// SUM on INT64 and UINT64 that accumulates in double: exact only while every partial sum stays
// below 2^53.
#include "mutant_util.h"

namespace dmlcert::mutants {
namespace {

class SumInt64ThroughDouble final : public PatchedReference {
  std::optional<ExecResult> mutated(const OperatorDesc& desc, FeatureLevel, const Bindings& b) override {
    const ReduceDesc* d = reduce_of(desc, {ReduceFunction::SUM});
    if (!d || (d->input.type != DataType::INT64 && d->input.type != DataType::UINT64)) return std::nullopt;
    for_each_group(*d, b, [&](const Elements& xs, std::byte* dst) {
      double acc = 0;  // BUG: 53 bits of precision for a 64-bit sum
      for (const std::byte* x : xs) acc += to_double(d->input.type, x);
      dispatch(d->output.type, [&](auto tag) {
        using T = typename decltype(tag)::type;
        if constexpr (std::is_integral_v<T>) {
          const double lo = static_cast<double>(std::numeric_limits<T>::min());
          const double hi = static_cast<double>(std::numeric_limits<T>::max());
          store<T>(dst, acc <= lo ? std::numeric_limits<T>::min()
                                  : (acc >= hi ? std::numeric_limits<T>::max() : static_cast<T>(acc)));
        }
      });
    });
    return ok();
  }
};

}  // namespace
}  // namespace dmlcert::mutants

DMLCERT_EXPORT_MUTANT(sum_int64_through_double, dmlcert::mutants::SumInt64ThroughDouble)

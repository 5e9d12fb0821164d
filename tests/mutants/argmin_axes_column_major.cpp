// ARGMIN over several axes that flattens the winner's coordinates with the first reduced axis
// fastest (column-major) instead of row-major in increasing axis order.
#include "mutant_util.h"

namespace dmlcert::mutants {
namespace {

class ArgminAxesColumnMajor final : public PatchedReference {
  std::optional<ExecResult> mutated(const OperatorDesc& desc, FeatureLevel, const Bindings& b) override {
    const ReduceDesc* d = reduce_of(desc, {ReduceFunction::ARGMIN});
    if (!d) return std::nullopt;
    Sizes reduced;  // the reduced axes' sizes, in increasing axis order
    for (uint32_t a : axis_set(d->axes)) reduced.push_back(d->input.sizes[a]);
    for_each_group(*d, b, [&](const Elements& xs, std::byte* dst) {
      const std::size_t best = dispatch(d->input.type, [&](auto tag) {
        using T = typename decltype(tag)::type;
        for (std::size_t i = 0; i < xs.size(); ++i)
          if (element_is_nan<T>(xs[i])) return i;
        std::size_t at = 0;
        for (std::size_t i = 1; i < xs.size(); ++i)
          if (element_value<T>(xs[i]) < element_value<T>(xs[at])) at = i;
        return at;
      });
      // BUG: re-flatten the row-major position with the first axis fastest.
      const Coord c = unravel(best, reduced);
      uint64_t index = 0, scale = 1;
      for (std::size_t i = 0; i < c.size(); ++i) index += c[i] * scale, scale *= reduced[i];
      store_index(d->output.type, index, dst);
    });
    return ok();
  }
};

}  // namespace
}  // namespace dmlcert::mutants

DMLCERT_EXPORT_MUTANT(argmin_axes_column_major, dmlcert::mutants::ArgminAxesColumnMajor)

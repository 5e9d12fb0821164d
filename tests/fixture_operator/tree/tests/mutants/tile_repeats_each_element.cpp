// TILE that repeats each element Repeats[i] times in place ([1, 2] -> [1, 1, 2, 2]) instead of
// the whole input ([1, 2] -> [1, 2, 1, 2]): from = c / Repeats where the reference reads
// c mod Input.Sizes.
#include "mutant_util.h"

namespace dmlcert::mutants {
namespace {

class TileRepeatsEachElement final : public PatchedReference {
  std::optional<ExecResult> mutated(const OperatorDesc& desc, FeatureLevel, const Bindings& b) override {
    const auto* d = std::get_if<TileDesc>(&desc);
    if (!d) return std::nullopt;
    const InputTensor input(d->input, b.input.data);
    const OutputTensor output(d->output, b.output.data);
    for_each_coord(d->output.sizes, [&](const Coord& c) {
      Coord from(c.size());
      for (std::size_t i = 0; i < c.size(); ++i) from[i] = c[i] / d->repeats[i];  // BUG: c mod Input.Sizes
      copy_element(output.at(c), input.at(from), output.element_bytes());
    });
    return ok();
  }
};

}  // namespace
}  // namespace dmlcert::mutants

DMLCERT_EXPORT_MUTANT(tile_repeats_each_element, dmlcert::mutants::TileRepeatsEachElement)

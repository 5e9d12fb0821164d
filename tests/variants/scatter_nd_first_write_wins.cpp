// SCATTER_ND that resolves duplicate tuples (class U, SCATTERND.DUPLICATE) first-write-wins: the
// reference's writes in reverse order. Every choice of one competing update is admissible.
#include "mutant_util.h"
#include "variant_catalog.h"

namespace dmlcert::variants {
namespace {

class ScatterNdFirstWriteWins final : public mutants::PatchedReference {
  std::optional<ExecResult> mutated(const OperatorDesc& desc, FeatureLevel level,
                                    const Bindings& b) override {
    const auto* d = std::get_if<ScatterNdDesc>(&desc);
    if (!d) return std::nullopt;
    const auto plan = mutants::plan_scatter_nd(*d, level, b.indices);
    if (plan.error) return mutants::rejected("SCATTERND.INDEX_RANGE: " + plan.error->message);
    const mutants::InputTensor input(d->input, b.input.data);
    const mutants::InputTensor updates(d->updates, b.updates.data);
    const mutants::OutputTensor output(d->output, b.output.data);
    const std::size_t es = output.element_bytes();
    for_each_coord(d->output.sizes,
                   [&](const Coord& c) { mutants::copy_element(output.at(c), input.at(c), es); });
    for (auto w = plan.writes.rbegin(); w != plan.writes.rend(); ++w)
      mutants::copy_element(output.at(w->output), updates.at(w->update), es);
    return mutants::ok();
  }
};

}  // namespace
}  // namespace dmlcert::variants

DMLCERT_EXPORT_VARIANT(scatter_nd_first_write_wins, dmlcert::variants::ScatterNdFirstWriteWins)

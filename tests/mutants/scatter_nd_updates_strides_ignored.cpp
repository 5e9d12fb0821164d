// SCATTER_ND that reads Updates as packed row-major, whatever Updates.Strides says.
#include "mutant_util.h"

namespace dmlcert::mutants {
namespace {

class ScatterNdUpdatesStridesIgnored final : public PatchedReference {
  std::optional<ExecResult> mutated(const OperatorDesc& desc, FeatureLevel level,
                                    const Bindings& b) override {
    const auto* d = std::get_if<ScatterNdDesc>(&desc);
    if (!d) return std::nullopt;
    const auto plan = mutants::plan_scatter_nd(*d, level, b.indices);
    if (plan.error) return rejected("SCATTERND.INDEX_RANGE: " + plan.error->message);
    TensorDesc packed_updates = d->updates;
    packed_updates.strides.reset();  // BUG: Updates.Strides dropped
    const InputTensor input(d->input, b.input.data);
    const InputTensor updates(packed_updates, b.updates.data);
    const OutputTensor output(d->output, b.output.data);
    const std::size_t es = output.element_bytes();
    for_each_coord(d->output.sizes, [&](const Coord& c) { copy_element(output.at(c), input.at(c), es); });
    for (const auto& w : plan.writes) {
      // Reads the packed layout puts past the binding (a broadcast Updates) come back as zeros.
      if (static_cast<uint64_t>(updates.at(w.update) - b.updates.data) + es <= b.updates.size)
        copy_element(output.at(w.output), updates.at(w.update), es);
      else
        std::memset(output.at(w.output), 0, es);
    }
    return ok();
  }
};

}  // namespace
}  // namespace dmlcert::mutants

DMLCERT_EXPORT_MUTANT(scatter_nd_updates_strides_ignored, dmlcert::mutants::ScatterNdUpdatesStridesIgnored)

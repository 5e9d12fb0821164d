// SCATTER_ND that forgets "output = input": only the scattered elements are written.
#include "mutant_util.h"

namespace dmlcert::mutants {
namespace {

class ScatterNdOutputNotInitialized final : public PatchedReference {
  std::optional<ExecResult> mutated(const OperatorDesc& desc, FeatureLevel level,
                                    const Bindings& b) override {
    const auto* d = std::get_if<ScatterNdDesc>(&desc);
    if (!d) return std::nullopt;
    const auto plan = mutants::plan_scatter_nd(*d, level, b.indices);
    if (plan.error) return rejected("SCATTERND.INDEX_RANGE: " + plan.error->message);
    const InputTensor updates(d->updates, b.updates.data);
    const OutputTensor output(d->output, b.output.data);
    // BUG: the reference first copies every input element to the output.
    for (const auto& w : plan.writes)
      copy_element(output.at(w.output), updates.at(w.update), output.element_bytes());
    return ok();
  }
};

}  // namespace
}  // namespace dmlcert::mutants

DMLCERT_EXPORT_MUTANT(scatter_nd_output_not_initialized, dmlcert::mutants::ScatterNdOutputNotInitialized)

// SCATTER_ND that copies Input to Output first and checks each index tuple as it scatters it.
// BUG: an index out of range (class U data) is rejected after the output has been written.
#include "mutant_util.h"

namespace dmlcert::mutants {
namespace {

class ScatterNdPartialWriteThenReject final : public PatchedReference {
  std::optional<ExecResult> intercept(const OperatorDesc& desc, FeatureLevel level,
                                      const Bindings& b) override {
    const auto* d = std::get_if<ScatterNdDesc>(&desc);
    if (!d || !validate(desc, level).invalid.empty() || !binding_violations(desc, b).empty())
      return std::nullopt;
    const InputTensor input(d->input, b.input.data);
    const OutputTensor output(d->output, b.output.data);
    for_each_coord(d->output.sizes,
                   [&](const Coord& c) { copy_element(output.at(c), input.at(c), output.element_bytes()); });
    const auto plan = plan_scatter_nd(*d, level, b.indices);
    if (plan.error) return rejected("SCATTERND.INDEX_RANGE: " + plan.error->message);  // BUG: written
    const InputTensor updates(d->updates, b.updates.data);
    for (const auto& w : plan.writes)
      copy_element(output.at(w.output), updates.at(w.update), output.element_bytes());
    return ok();
  }
};

}  // namespace
}  // namespace dmlcert::mutants

DMLCERT_EXPORT_MUTANT(scatter_nd_partial_write_then_reject, dmlcert::mutants::ScatterNdPartialWriteThenReject)

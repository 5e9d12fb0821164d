// SCATTER_ND whose copy of the input into an output of 1 MiB or more moves 64-byte blocks of the
// output's elements in row-major order and forgets the last partial block: the output elements
// past the last whole block keep whatever they held, unless an update lands there.
#include "mutant_util.h"

namespace dmlcert::mutants {
namespace {

constexpr uint64_t kStreamingBytes = uint64_t{1} << 20, kBlockBytes = 64;

class ScatterNdCopyTailDroppedAbove1m final : public PatchedReference {
  std::optional<ExecResult> mutated(const OperatorDesc& desc, FeatureLevel level,
                                    const Bindings& b) override {
    const auto* d = std::get_if<ScatterNdDesc>(&desc);
    if (!d) return std::nullopt;
    const size_t es = element_size(d->output.type);
    const uint64_t count = element_count(d->output.sizes).value_or(0);
    if (count * es < kStreamingBytes) return std::nullopt;
    const auto plan = mutants::plan_scatter_nd(*d, level, b.indices);
    if (plan.error) return rejected("SCATTERND.INDEX_RANGE: " + plan.error->message);
    const InputTensor input(d->input, b.input.data);
    const InputTensor updates(d->updates, b.updates.data);
    const OutputTensor output(d->output, b.output.data);
    const uint64_t copied = count * es / kBlockBytes * kBlockBytes / es;  // BUG: the tail is not copied
    uint64_t i = 0;
    for_each_coord(d->output.sizes, [&](const Coord& c) {
      if (i++ < copied) copy_element(output.at(c), input.at(c), es);
    });
    for (const auto& w : plan.writes) copy_element(output.at(w.output), updates.at(w.update), es);
    return ok();
  }
};

}  // namespace
}  // namespace dmlcert::mutants

DMLCERT_EXPORT_MUTANT(scatter_nd_copy_tail_dropped_above_1m,
                      dmlcert::mutants::ScatterNdCopyTailDroppedAbove1m)

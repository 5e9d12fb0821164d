// SCATTER_ND that moves the updates of INT64 and UINT64 tensors through double (a kernel written
// for float data): an update past 2^53 loses its low bits.
#include "mutant_util.h"

namespace dmlcert::mutants {
namespace {

void copy_through_double(DataType t, std::byte* dst, const std::byte* src) {
  if (t == DataType::INT64) {
    const double v = static_cast<double>(load<int64_t>(src));  // BUG
    store<int64_t>(dst, v >= 0x1p63 ? INT64_MAX : static_cast<int64_t>(v));
  } else if (t == DataType::UINT64) {
    const double v = static_cast<double>(load<uint64_t>(src));  // BUG
    store<uint64_t>(dst, v >= 0x1p64 ? UINT64_MAX : static_cast<uint64_t>(v));
  } else
    copy_element(dst, src, element_size(t));
}

class ScatterNdInt64ThroughDouble final : public PatchedReference {
  std::optional<ExecResult> mutated(const OperatorDesc& desc, FeatureLevel level,
                                    const Bindings& b) override {
    const auto* d = std::get_if<ScatterNdDesc>(&desc);
    if (!d) return std::nullopt;
    const auto plan = mutants::plan_scatter_nd(*d, level, b.indices);
    if (plan.error) return rejected("SCATTERND.INDEX_RANGE: " + plan.error->message);
    const InputTensor input(d->input, b.input.data);
    const InputTensor updates(d->updates, b.updates.data);
    const OutputTensor output(d->output, b.output.data);
    const size_t es = output.element_bytes();
    for_each_coord(d->output.sizes, [&](const Coord& c) { copy_element(output.at(c), input.at(c), es); });
    for (const auto& w : plan.writes)
      copy_through_double(d->updates.type, output.at(w.output), updates.at(w.update));
    return ok();
  }
};

}  // namespace
}  // namespace dmlcert::mutants

DMLCERT_EXPORT_MUTANT(scatter_nd_int64_through_double, dmlcert::mutants::ScatterNdInt64ThroughDouble)

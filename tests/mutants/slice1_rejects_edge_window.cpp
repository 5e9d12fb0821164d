// SLICE1 whose SLICE1.WINDOW_BOUNDS check is off by one (offset + size < Input.Sizes instead of
// <=): valid windows that end at the input's last element are rejected.
#include "mutant_util.h"

namespace dmlcert::mutants {
namespace {

class Slice1RejectsEdgeWindow final : public PatchedReference {
  std::optional<ExecResult> intercept(const OperatorDesc& desc, FeatureLevel, const Bindings&) override {
    const auto* d = std::get_if<Slice1Desc>(&desc);
    if (!d || d->input_window_offsets.size() != d->input.sizes.size() ||
        d->input_window_sizes.size() != d->input.sizes.size())
      return std::nullopt;
    for (std::size_t i = 0; i < d->input.sizes.size(); ++i)
      if (!(uint64_t{d->input_window_offsets[i]} + d->input_window_sizes[i] < d->input.sizes[i]))  // BUG: <
        return rejected("SLICE1.WINDOW_BOUNDS: window " + std::to_string(i) + " leaves the input");
    return std::nullopt;
  }
};

}  // namespace
}  // namespace dmlcert::mutants

DMLCERT_EXPORT_MUTANT(slice1_rejects_edge_window, dmlcert::mutants::Slice1RejectsEdgeWindow)

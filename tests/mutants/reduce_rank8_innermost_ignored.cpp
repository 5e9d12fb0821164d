// REDUCE whose rank-8 path drops the innermost dimension: it reduces the input as if that
// dimension had size 1 and writes only the outputs at innermost coordinate 0. BUG: at rank 8 the
// innermost input dimension is ignored.
#include "mutant_util.h"

namespace dmlcert::mutants {
namespace {

// The tensor with its innermost dimension cut to one element, its memory layout kept.
TensorDesc first_innermost(const TensorDesc& t) {
  TensorDesc cut = t;
  const auto strides = effective_strides(t);
  cut.strides = std::vector<uint32_t>(strides.begin(), strides.end());
  cut.sizes.back() = 1;
  return cut;
}

class ReduceRank8InnermostIgnored final : public PatchedReference {
  std::optional<ExecResult> mutated(const OperatorDesc& desc, FeatureLevel level,
                                    const Bindings& b) override {
    const ReduceDesc* d = reduce_of(desc);
    if (!d || d->input.rank() != 8) return std::nullopt;
    ReduceDesc walked = *d;
    walked.input = first_innermost(d->input);  // BUG
    walked.output = first_innermost(d->output);
    return run_kernel(walked, level, b);
  }
};

}  // namespace
}  // namespace dmlcert::mutants

DMLCERT_EXPORT_MUTANT(reduce_rank8_innermost_ignored, dmlcert::mutants::ReduceRank8InnermostIgnored)

// SCATTER_ND that dereferences a null block pointer when the index tuples address single
// elements (k covers every meaningful input dimension, so the block is empty).
#include <algorithm>

#include "mutant_util.h"

namespace dmlcert::mutants {
namespace {

class ScatterNdCrashesOnEmptyBlock final : public PatchedReference {
  std::optional<ExecResult> mutated(const OperatorDesc& desc, FeatureLevel, const Bindings&) override {
    const auto* d = std::get_if<ScatterNdDesc>(&desc);
    if (!d) return std::nullopt;
    const uint32_t k = d->indices.sizes.back();
    if (k >= d->input_dimension_count) std::raise(SIGSEGV);  // BUG: the empty block's null pointer
    return std::nullopt;
  }
};

}  // namespace
}  // namespace dmlcert::mutants

DMLCERT_EXPORT_MUTANT(scatter_nd_crashes_on_empty_block, dmlcert::mutants::ScatterNdCrashesOnEmptyBlock)

// SCATTER_ND that first clears its output with 16-byte vector stores, rounding the size up to a
// whole vector: up to 12 bytes past TotalTensorSizeInBytes are written.
#include "mutant_util.h"

namespace dmlcert::mutants {
namespace {

class ScatterNdClearsOutputIn16ByteBlocks final : public PatchedReference {
  std::optional<ExecResult> mutated(const OperatorDesc& desc, FeatureLevel level,
                                    const Bindings& b) override {
    if (!std::holds_alternative<ScatterNdDesc>(desc)) return std::nullopt;
    const uint64_t rounded = (b.output.size + 15) / 16 * 16;  // BUG: past the binding's end
    auto* out = reinterpret_cast<volatile unsigned char*>(b.output.data);
    for (uint64_t i = 0; i < rounded; ++i) out[i] = 0;
    return reference().execute(desc, level, b);
  }
};

}  // namespace
}  // namespace dmlcert::mutants

DMLCERT_EXPORT_MUTANT(scatter_nd_clears_output_in_16_byte_blocks,
                      dmlcert::mutants::ScatterNdClearsOutputIn16ByteBlocks)

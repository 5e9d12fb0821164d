// SLICE1 that zeroes the output's padding (every byte of the output binding no logical element
// occupies) before anything else, so that the output buffer compares equal as a whole. BUG: it
// does so before validating, and a rejected call has written the padding.
#include "mutant_util.h"

namespace dmlcert::mutants {
namespace {

class Slice1ClearsOutputPaddingFirst final : public PatchedReference {
  std::optional<ExecResult> intercept(const OperatorDesc& desc, FeatureLevel, const Bindings& b) override {
    const auto* d = std::get_if<Slice1Desc>(&desc);
    if (!d || !b.output.data) return std::nullopt;
    const std::vector<bool> logical = logical_bytes(d->output, b.output.size);
    for (size_t i = 0; i < logical.size(); ++i)
      if (!logical[i]) b.output.data[i] = std::byte{0};  // BUG: before the checks below
    return std::nullopt;
  }
};

}  // namespace
}  // namespace dmlcert::mutants

DMLCERT_EXPORT_MUTANT(slice1_clears_output_padding_first, dmlcert::mutants::Slice1ClearsOutputPaddingFirst)

// A backend that, after executing a call, fills the output's padding (every byte of the binding
// inside TotalTensorSizeInBytes that no logical element occupies) with zeros, as a vectorized
// kernel writing whole rows might. docs/semantics.md lets an output be written anywhere inside
// TotalTensorSizeInBytes when the call succeeds.
#include "mutant_util.h"
#include "variant_catalog.h"

namespace dmlcert::variants {
namespace {

class OutputPaddingWritten final : public mutants::PatchedReference {
  std::optional<ExecResult> mutated(const OperatorDesc& desc, FeatureLevel level,
                                    const Bindings& b) override {
    ExecResult r = reference().execute(desc, level, b);
    if (r.status != Status::Ok) return r;
    const std::vector<bool> logical = mutants::logical_bytes(*tensor(desc, Role::OUTPUT), b.output.size);
    for (size_t i = 0; i < logical.size(); ++i)
      if (!logical[i]) b.output.data[i] = std::byte{0};
    return r;
  }
};

}  // namespace
}  // namespace dmlcert::variants

DMLCERT_EXPORT_VARIANT(output_padding_written, dmlcert::variants::OutputPaddingWritten)

// REDUCE that uses its input buffer as scratch space: it writes the first input element (with
// the value it already holds) before reducing. Inputs are read-only.
#include "mutant_util.h"

namespace dmlcert::mutants {
namespace {

class ReduceWritesInput final : public PatchedReference {
  std::optional<ExecResult> mutated(const OperatorDesc& desc, FeatureLevel level,
                                    const Bindings& b) override {
    if (!reduce_of(desc)) return std::nullopt;
    auto* scratch = const_cast<volatile std::byte*>(b.input.data);  // BUG: an input is not scratch
    *scratch = *scratch;
    return reference().execute(desc, level, b);
  }
};

}  // namespace
}  // namespace dmlcert::mutants

DMLCERT_EXPORT_MUTANT(reduce_writes_input, dmlcert::mutants::ReduceWritesInput)

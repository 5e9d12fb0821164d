// Rejects every class U case: descriptors with an unspecified finding and data that breaks a
// data rule (index ranges, duplicates, overflow, non-finite reduction input). docs/semantics.md lets a
// backend reject anything class U.
#include <span>

#include "mutant_util.h"
#include "variant_catalog.h"

namespace dmlcert::variants {
namespace {

class RejectsUnspecified final : public mutants::PatchedReference {
  std::optional<ExecResult> intercept(const OperatorDesc& desc, FeatureLevel level,
                                      const Bindings& b) override {
    const Validation v = validate(desc, level);
    if (!v.invalid.empty()) return std::nullopt;  // the reference rejects it
    if (!v.unspecified.empty())
      return mutants::rejected("unspecified descriptor: " + v.unspecified.front().rule);
    if (!mutants::reference_executes(desc, level, b)) return std::nullopt;
    InputData data;
    for (Role role : roles(op_kind(desc))) {
      if (!is_input_role(role)) continue;
      const ConstBuffer buffer = b.of(role);
      Bytes logical = from_memory(*tensor(desc, role), std::span<const std::byte>(buffer.data, buffer.size));
      (role == Role::INPUT     ? data.input
       : role == Role::INDICES ? data.indices
                               : data.updates) = std::move(logical);
    }
    const auto findings = check_data(desc, level, data);
    if (!findings.empty()) return mutants::rejected("unspecified data: " + findings.front().rule);
    return std::nullopt;
  }
};

}  // namespace
}  // namespace dmlcert::variants

DMLCERT_EXPORT_VARIANT(rejects_unspecified, dmlcert::variants::RejectsUnspecified)

// GATHER_ELEMENTS that reads signed index types as the unsigned type of the same width, so a
// legal negative index (from 3_0) looks huge and the valid case is rejected.
#include "mutant_util.h"

namespace dmlcert::mutants {
namespace {

// The index element read as unsigned: INT32 -1 becomes 4294967295.
uint64_t index_as_unsigned(DataType t, const std::byte* p) {
  switch (t) {
    case DataType::INT64:
    case DataType::UINT64: return load<uint64_t>(p);
    default: return load<uint32_t>(p);  // BUG for INT64/INT32 negatives: no sign
  }
}

class GatherElementsNegativeIndexUnsigned final : public PatchedReference {
  std::optional<ExecResult> mutated(const OperatorDesc& desc, FeatureLevel, const Bindings& b) override {
    const auto* d = std::get_if<GatherElementsDesc>(&desc);
    if (!d) return std::nullopt;
    const uint32_t axis_size = d->input.sizes[d->axis];
    return gather_elements_with(*d, b, [&](const std::byte* p) -> std::optional<uint32_t> {
      const uint64_t v = index_as_unsigned(d->indices.type, p);
      if (v >= axis_size) return std::nullopt;
      return static_cast<uint32_t>(v);
    });
  }
};

}  // namespace
}  // namespace dmlcert::mutants

DMLCERT_EXPORT_MUTANT(gather_elements_negative_index_unsigned,
                      dmlcert::mutants::GatherElementsNegativeIndexUnsigned)

// GATHER_ELEMENTS that keeps the size of the gathered axis in 16 bits for its range check and for
// normalizing negative indices: along an axis of 65536 elements or more, legal indices are
// rejected as out of range (or read from the wrong place).
#include "mutant_util.h"

namespace dmlcert::mutants {
namespace {

class GatherElementsAxisSizeIn16Bits final : public PatchedReference {
  std::optional<ExecResult> mutated(const OperatorDesc& desc, FeatureLevel level,
                                    const Bindings& b) override {
    const auto* d = std::get_if<GatherElementsDesc>(&desc);
    if (!d) return std::nullopt;
    const uint16_t extent = static_cast<uint16_t>(d->input.sizes[d->axis]);  // BUG: 16 bits
    return gather_elements_with(
        *d, b, [&](const std::byte* p) { return mutants::resolve_index(d->indices.type, p, extent, level); });
  }
};

}  // namespace
}  // namespace dmlcert::mutants

DMLCERT_EXPORT_MUTANT(gather_elements_axis_size_in_16_bits, dmlcert::mutants::GatherElementsAxisSizeIn16Bits)

// SCATTER_ND and GATHER_ELEMENTS that clamp out-of-range index data into the dimension (negative
// beyond -d to 0, too large to d-1) instead of rejecting it. Out-of-range data is class U with no
// admissible result, so any in-bounds execution is conformant.
#include <algorithm>

#include "mutant_util.h"
#include "variant_catalog.h"

namespace dmlcert::variants {
namespace {

void clamp_index(DataType t, std::byte* p, uint32_t d, FeatureLevel level) {
  if (d == 0 || mutants::resolve_index(t, p, d, level)) return;  // in range: untouched
  dispatch(t, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_integral_v<T>) {
      const bool negative = std::is_signed_v<T> && load<T>(p) < 0;
      store<T>(p, negative ? T(0) : static_cast<T>(d - 1));
    }
  });
}

class ClampsIndices final : public mutants::PatchedReference {
  std::optional<ExecResult> mutated(const OperatorDesc& desc, FeatureLevel level,
                                    const Bindings& b) override {
    const TensorDesc* indices = tensor(desc, Role::INDICES);
    if (!indices) return std::nullopt;
    // The dimension each index element addresses.
    std::function<uint32_t(const Coord&)> dim_of;
    if (const auto* g = std::get_if<GatherElementsDesc>(&desc)) {
      dim_of = [g](const Coord&) { return g->input.sizes[g->axis]; };
    } else {
      const auto& s = std::get<ScatterNdDesc>(desc);
      const uint32_t rank = s.input.rank(), k = s.indices.sizes.back();
      const uint32_t first = rank - std::max(s.input_dimension_count, k);
      dim_of = [&s, rank, first](const Coord& c) { return s.input.sizes[first + c[rank - 1]]; };
    }
    Bytes clamped(b.indices.data, b.indices.data + b.indices.size);
    const auto strides = effective_strides(*indices);
    const std::size_t es = element_size(indices->type);
    for_each_coord(indices->sizes, [&](const Coord& c) {
      clamp_index(indices->type, clamped.data() + element_offset(c, strides) * es, dim_of(c), level);
    });
    Bindings with_clamped = b;
    with_clamped.indices = ConstBuffer{clamped.data(), clamped.size()};
    return reference().execute(desc, level, with_clamped);
  }
};

}  // namespace
}  // namespace dmlcert::variants

DMLCERT_EXPORT_VARIANT(clamps_indices, dmlcert::variants::ClampsIndices)

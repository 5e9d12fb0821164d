// GATHER_ELEMENTS that copies float elements by value in a thread that flushes subnormals to zero
// (a kernel built with fast-math, or FTZ/DAZ set): a subnormal comes out as a zero of its sign.
#include "mutant_util.h"

namespace dmlcert::mutants {
namespace {

void copy_flushed(DataType t, std::byte* dst, const std::byte* src) {
  dispatch(t, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T v = load<T>(src);
    if constexpr (is_float_v<T>) {
      const double x = to_double(t, src);
      const double smallest_normal = t == DataType::FLOAT16   ? 0x1p-14
                                     : t == DataType::FLOAT32 ? 0x1p-126
                                                              : 0x1p-1022;
      if (x != 0 && std::fabs(x) < smallest_normal)
        v = static_cast<T>(std::signbit(x) ? -0.0f : 0.0f);  // BUG: the subnormal is flushed
    }
    store<T>(dst, v);
  });
}

class GatherElementsSubnormalsFlushed final : public PatchedReference {
  std::optional<ExecResult> mutated(const OperatorDesc& desc, FeatureLevel level,
                                    const Bindings& b) override {
    const auto* d = std::get_if<GatherElementsDesc>(&desc);
    if (!d) return std::nullopt;
    const uint32_t extent = d->input.sizes[d->axis];
    const InputTensor input(d->input, b.input.data);
    const InputTensor indices(d->indices, b.indices.data);
    const OutputTensor output(d->output, b.output.data);
    // The indices are resolved and range-checked first, as the reference does.
    std::vector<uint32_t> at;
    bool out_of_range = false;
    for_each_coord(d->indices.sizes, [&](const Coord& c) {
      const auto k = mutants::resolve_index(d->indices.type, indices.at(c), extent, level);
      out_of_range = out_of_range || !k;
      at.push_back(k.value_or(0));
    });
    if (out_of_range) return rejected("GATHERELEMENTS.INDEX_RANGE: index data out of range");
    std::size_t next = 0;
    for_each_coord(d->output.sizes, [&](const Coord& c) {
      Coord from = c;
      from[d->axis] = at[next++];
      copy_flushed(d->input.type, output.at(c), input.at(from));
    });
    return ok();
  }
};

}  // namespace
}  // namespace dmlcert::mutants

DMLCERT_EXPORT_MUTANT(gather_elements_subnormals_flushed, dmlcert::mutants::GatherElementsSubnormalsFlushed)

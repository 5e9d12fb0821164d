// SLICE that copies float elements by value through a float register path which writes every
// NaN as the type's default quiet NaN, losing payloads (data movement is bit-exact).
#include "mutant_util.h"

namespace dmlcert::mutants {
namespace {

// The element's bits, with any NaN replaced by the default quiet NaN of its type.
void copy_by_value(DataType t, std::byte* dst, const std::byte* src) {
  dispatch(t, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T v = load<T>(src);
    if constexpr (is_float_v<T>) {
      if (element_is_nan<T>(src)) v = std::numeric_limits<T>::quiet_NaN();  // BUG: payload lost
    }
    store<T>(dst, v);
  });
}

class SliceNanPayloadCanonicalized final : public PatchedReference {
  std::optional<ExecResult> mutated(const OperatorDesc& desc, FeatureLevel, const Bindings& b) override {
    const auto* d = std::get_if<SliceDesc>(&desc);
    if (!d) return std::nullopt;
    const InputTensor input(d->input, b.input.data);
    const OutputTensor output(d->output, b.output.data);
    for_each_coord(d->output.sizes, [&](const Coord& c) {
      Coord from(c.size());
      for (std::size_t i = 0; i < c.size(); ++i)
        from[i] = static_cast<uint32_t>(uint64_t{d->offsets[i]} + uint64_t{d->strides[i]} * c[i]);
      copy_by_value(d->input.type, output.at(c), input.at(from));
    });
    return ok();
  }
};

}  // namespace
}  // namespace dmlcert::mutants

DMLCERT_EXPORT_MUTANT(slice_nan_payload_canonicalized, dmlcert::mutants::SliceNanPayloadCanonicalized)

// SLICE1 that moves FLOAT32 and FLOAT64 elements through a conversion to the other float type
// and back (as a kernel that widens to double, or narrows a double for a float vector, does): the
// conversion quiets a signalling NaN, setting its quiet bit (data movement is bit-exact).
#include "mutant_util.h"

namespace dmlcert::mutants {
namespace {

// The element's bits after the round trip: a signalling NaN comes back quiet, everything else as
// it was (a float converts to double and back exactly).
void copy_converted(DataType t, std::byte* dst, const std::byte* src) {
  if (t == DataType::FLOAT32) {
    uint32_t bits = load<uint32_t>(src);
    if ((bits & 0x7F800000u) == 0x7F800000u && (bits & 0x007FFFFFu) != 0) bits |= 0x00400000u;  // BUG
    store<uint32_t>(dst, bits);
  } else if (t == DataType::FLOAT64) {
    uint64_t bits = load<uint64_t>(src);
    if ((bits & 0x7FF0000000000000ull) == 0x7FF0000000000000ull && (bits & 0x000FFFFFFFFFFFFFull) != 0)
      bits |= 0x0008000000000000ull;  // BUG
    store<uint64_t>(dst, bits);
  } else {
    copy_element(dst, src, element_size(t));
  }
}

class Slice1SignallingNanQuieted final : public PatchedReference {
  std::optional<ExecResult> mutated(const OperatorDesc& desc, FeatureLevel, const Bindings& b) override {
    const auto* d = std::get_if<Slice1Desc>(&desc);
    if (!d) return std::nullopt;
    const InputTensor input(d->input, b.input.data);
    const OutputTensor output(d->output, b.output.data);
    const size_t rank = d->input_window_offsets.size();
    for_each_coord(d->output.sizes, [&](const Coord& c) {
      Coord from(rank);
      for (size_t i = 0; i < rank; ++i) {
        const int64_t s = d->input_window_strides[i];
        const int64_t start =
            int64_t{d->input_window_offsets[i]} + (s < 0 ? d->input_window_sizes[i] - 1 : 0);
        from[i] = static_cast<uint32_t>(start + s * c[i]);
      }
      copy_converted(d->input.type, output.at(c), input.at(from));
    });
    return ok();
  }
};

}  // namespace
}  // namespace dmlcert::mutants

DMLCERT_EXPORT_MUTANT(slice1_signalling_nan_quieted, dmlcert::mutants::Slice1SignallingNanQuieted)

// DML_SLICE, from the seed's pseudocode:
//   OutputTensor[OutputCoordinates] = InputTensor[Offsets + Strides * OutputCoordinates]
// The descriptor has passed validation, so every read is in bounds (SLICE.IN_BOUNDS) and
// Sizes == Output.Sizes (SLICE.SIZES_MATCH_OUTPUT). A 0 slice stride (SLICE.STRIDE_ZERO, class U)
// needs no special case: the formula above is its admissible result.
#include "reference/internal.h"

namespace dmlcert::reference {

ExecResult compute(const SliceDesc& d, FeatureLevel, const Bindings& b, Reading reading) {
  if (reading.behaviour != Behaviour::Specified) return detail::not_applicable(reading);
  const detail::InputTensor input(d.input, b.input.data);
  const detail::OutputTensor output(d.output, b.output.data);
  for_each_coord(d.output.sizes, [&](const Coord& c) {
    Coord from(c.size());
    for (std::size_t i = 0; i < c.size(); ++i)
      from[i] = static_cast<uint32_t>(uint64_t{d.offsets[i]} + uint64_t{d.strides[i]} * c[i]);
    detail::copy_element(output.at(c), input.at(from), output.element_bytes());
  });
  return detail::ok();
}

}  // namespace dmlcert::reference

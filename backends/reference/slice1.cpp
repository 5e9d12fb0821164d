// DML_SLICE1, from the seed's pseudocode:
//   CopyStart = InputWindowOffsets
//   for dimension i in [0, DimensionCount - 1]:
//     if InputWindowStrides[i] < 0:
//       CopyStart[i] += InputWindowSizes[i] - 1  // start at the end of the window
//   OutputTensor[OutputCoordinates] = InputTensor[CopyStart + InputWindowStrides * OutputCoordinates]
// The descriptor has passed validation (SLICE1.WINDOW_BOUNDS, SLICE1.OUTPUT_SIZE), so every
// computed coordinate lies inside the window.
#include <cstdint>

#include "reference/internal.h"

namespace dmlcert::reference {

ExecResult compute(const Slice1Desc& d, FeatureLevel, const Bindings& b, Reading reading) {
  if (reading.behaviour != Behaviour::Specified) return detail::not_applicable(reading);
  const detail::InputTensor input(d.input, b.input.data);
  const detail::OutputTensor output(d.output, b.output.data);
  const std::size_t rank = d.input_window_offsets.size();
  std::vector<int64_t> copy_start(rank);
  for (std::size_t i = 0; i < rank; ++i) {
    copy_start[i] = d.input_window_offsets[i];
    if (d.input_window_strides[i] < 0) copy_start[i] += int64_t{d.input_window_sizes[i]} - 1;
  }
  for_each_coord(d.output.sizes, [&](const Coord& c) {
    Coord from(rank);
    for (std::size_t i = 0; i < rank; ++i)
      from[i] = static_cast<uint32_t>(copy_start[i] + int64_t{d.input_window_strides[i]} * c[i]);
    detail::copy_element(output.at(c), input.at(from), output.element_bytes());
  });
  return detail::ok();
}

}  // namespace dmlcert::reference

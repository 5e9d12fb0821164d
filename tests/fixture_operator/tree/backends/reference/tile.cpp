// DML_TILE, as docs/ops/tile.md states it:
//   OutputTensor[c] = InputTensor[c mod Input.Sizes]
// The descriptor has passed validation, so Output.Sizes[i] == Input.Sizes[i] * Repeats[i]
// (TILE.OUTPUT_SHAPE) and every input dimension has at least one element.
#include "reference/internal.h"

namespace dmlcert::reference {

ExecResult compute(const TileDesc& d, FeatureLevel, const Bindings& b, Reading reading) {
  if (reading.behaviour != Behaviour::Specified) return detail::not_applicable(reading);
  const detail::InputTensor input(d.input, b.input.data);
  const detail::OutputTensor output(d.output, b.output.data);
  for_each_coord(d.output.sizes, [&](const Coord& c) {
    Coord from(c.size());
    for (std::size_t i = 0; i < c.size(); ++i) from[i] = c[i] % d.input.sizes[i];
    detail::copy_element(output.at(c), input.at(from), output.element_bytes());
  });
  return detail::ok();
}

}  // namespace dmlcert::reference

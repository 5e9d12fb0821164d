// DML_GATHER_ELEMENTS, from the seed's pseudocode:
//   output[i, j, k, ...] = input[index[i, j, k, ...], j, k, ...]  // if axis == 0
//   output[i, j, k, ...] = input[i, index[i, j, k, ...], k, ...]  // if axis == 1 ...
// that is, output[c] = input[c with c[axis] replaced by index[c]].
// Index data is resolved by GATHERELEMENTS.INDEX_RANGE (negative values count from the end from
// 3_0, signed index types only). Every index is checked before the first output byte is written,
// so a rejected case leaves the output untouched.
#include <string>

#include "dmlcert/indices.h"
#include "reference/internal.h"

namespace dmlcert::reference {

ExecResult compute(const GatherElementsDesc& d, FeatureLevel level, const Bindings& b, Reading reading) {
  // IndexClamped and IndexWrapped describe what a backend did with out-of-range indices (the
  // behaviour profile); they apply only when some index is out of range.
  const bool placing =
      reading.behaviour == Behaviour::IndexClamped || reading.behaviour == Behaviour::IndexWrapped;
  if (reading.behaviour != Behaviour::Specified && !placing) return detail::not_applicable(reading);
  const detail::InputTensor input(d.input, b.input.data);
  const detail::InputTensor indices(d.indices, b.indices.data);
  const detail::OutputTensor output(d.output, b.output.data);
  const uint32_t axis_size = d.input.sizes[d.axis];
  const bool negative = negative_indices_allowed(d.indices.type, level);

  // Pass 1: resolve every index (row-major over Output.Sizes == Indices.Sizes).
  std::vector<uint32_t> resolved;
  std::optional<Violation> out_of_range;
  bool placed = false;  // an out-of-range index placed by the reading
  for_each_coord(d.indices.sizes, [&](const Coord& c) {
    if (out_of_range) return;
    const auto value = integer_value(d.indices.type, indices.at(c));
    placed |= value && !resolve_index(*value, axis_size, negative);
    const auto index =
        value ? resolve_index_as(*value, axis_size, negative, reading.behaviour) : std::nullopt;
    if (!index) {
      out_of_range =
          Violation{"GATHERELEMENTS.INDEX_RANGE",
                    "indices element " + std::to_string(flat_index(c, d.indices.sizes)) + " is " +
                        (value ? to_string(*value) : std::string("?")) + ", outside the range of axis " +
                        std::to_string(d.axis) + " (size " + std::to_string(axis_size) + ")"};
      return;
    }
    resolved.push_back(*index);
  });
  if (out_of_range)
    return detail::rejected({*out_of_range}, "index data out of range: " + out_of_range->message);
  if (placing && !placed) return detail::not_applicable(reading);

  // Pass 2: output[c] = input[c with c[axis] = index[c]].
  std::size_t next = 0;
  for_each_coord(d.output.sizes, [&](const Coord& c) {
    Coord from = c;
    from[d.axis] = resolved[next++];
    detail::copy_element(output.at(c), input.at(from), output.element_bytes());
  });
  return detail::ok();
}

}  // namespace dmlcert::reference

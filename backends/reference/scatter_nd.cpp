// DML_SCATTER_ND, from the seed's pseudocode:
//   output = input
//   output[indices[...]] = updates[...]
// with the geometry of docs/semantics.md ("SCATTER_ND"; ScatterNdDesc::geometry): each index
// tuple addresses a block of the input. Every index is resolved (SCATTERND.INDEX_RANGE) before
// the first output byte is written.
// Duplicate tuples (SCATTERND.DUPLICATE, class U) admit any one competing update per element.
// The reference's own reading writes in row-major tuple order, so the last write wins; the
// reading NthWriteWins(n) takes, at each contested element, the n-th competing update (the last
// one where fewer compete), and stops applying once no element has more than n.
#include <algorithm>
#include <map>
#include <string>

#include "dmlcert/indices.h"
#include "reference/internal.h"

namespace dmlcert::reference {
namespace detail {

std::variant<std::vector<ScatterWrite>, Violation> plan_scatter_nd(const ScatterNdDesc& d,
                                                                   const ScatterGeometry& g,
                                                                   FeatureLevel level,
                                                                   const InputTensor& indices,
                                                                   Behaviour index_reading, bool* placed) {
  const uint32_t rank = d.input.rank();
  const bool negative = negative_indices_allowed(d.indices.type, level);
  // Updates.Sizes is batch ++ block, right-aligned.
  const uint32_t updates_first = rank - static_cast<uint32_t>(g.batch_sizes.size() + g.block_sizes.size());
  std::vector<ScatterWrite> writes;
  std::optional<Violation> error;
  for_each_coord(g.batch_sizes, [&](const Coord& batch) {
    if (error) return;
    // The tuple at this position: Indices[0.., batch, j] for j in [0, k).
    Coord tuple(g.k);
    for (uint32_t j = 0; j < g.k; ++j) {
      Coord at(rank, 0);
      std::copy(batch.begin(), batch.end(), at.begin() + (rank - d.indices_dimension_count));
      at[rank - 1] = j;
      const uint32_t dim = d.input.sizes[g.first_indexed + j];
      const auto value = integer_value(d.indices.type, indices.at(at));
      if (placed && value && !resolve_index(*value, dim, negative)) *placed = true;
      const auto index = value ? resolve_index_as(*value, dim, negative, index_reading) : std::nullopt;
      if (!index) {
        error = Violation{"SCATTERND.INDEX_RANGE",
                          "indices element " + std::to_string(flat_index(at, d.indices.sizes)) + " is " +
                              (value ? to_string(*value) : std::string("?")) +
                              ", outside the range of input dim " + std::to_string(g.first_indexed + j) +
                              " (size " + std::to_string(dim) + ")"};
        return;
      }
      tuple[j] = *index;
    }
    for_each_coord(g.block_sizes, [&](const Coord& block) {
      ScatterWrite w{Coord(rank, 0), Coord(rank, 0)};
      std::copy(tuple.begin(), tuple.end(), w.output.begin() + g.first_indexed);
      std::copy(block.begin(), block.end(), w.output.begin() + g.first_block);
      std::copy(batch.begin(), batch.end(), w.update.begin() + updates_first);
      std::copy(block.begin(), block.end(), w.update.begin() + updates_first + batch.size());
      writes.push_back(std::move(w));
    });
  });
  if (error) return *error;
  return writes;
}

}  // namespace detail

namespace {

using detail::ScatterWrite;

// For NthWriteWins(n): keeps, per contested output element, only its n-th write (the last where
// fewer compete). nullopt when no element has more than n competing writes.
std::optional<std::vector<ScatterWrite>> nth_writes(std::vector<ScatterWrite> writes,
                                                    const Sizes& output_sizes, uint32_t n) {
  std::map<uint64_t, std::vector<size_t>> by_element;  // output flat index -> writes, in order
  for (size_t i = 0; i < writes.size(); ++i)
    by_element[flat_index(writes[i].output, output_sizes)].push_back(i);
  size_t most = 1;
  for (const auto& [at, ws] : by_element) most = std::max(most, ws.size());
  if (n >= most) return std::nullopt;
  std::vector<ScatterWrite> kept;
  for (const auto& [at, ws] : by_element)
    kept.push_back(std::move(writes[ws[std::min<size_t>(n, ws.size() - 1)]]));
  return kept;
}

}  // namespace

ExecResult compute(const ScatterNdDesc& d, FeatureLevel level, const Bindings& b, Reading reading) {
  const bool placing =
      reading.behaviour == Behaviour::IndexClamped || reading.behaviour == Behaviour::IndexWrapped;
  if (reading.behaviour != Behaviour::Specified && reading.behaviour != Behaviour::NthWriteWins && !placing)
    return detail::not_applicable(reading);
  const auto geometry = d.geometry();
  if (!geometry) return detail::rejected({}, "SCATTER_ND without a geometry");  // not reached: validated
  const detail::InputTensor indices(d.indices, b.indices.data);
  bool placed = false;
  auto planned = detail::plan_scatter_nd(d, *geometry, level, indices, reading.behaviour, &placed);
  if (auto* error = std::get_if<Violation>(&planned))
    return detail::rejected({*error}, "index data out of range: " + error->message);
  if (placing && !placed) return detail::not_applicable(reading);
  std::vector<ScatterWrite> writes = std::move(std::get<std::vector<ScatterWrite>>(planned));
  if (reading.behaviour == Behaviour::NthWriteWins) {
    auto kept = nth_writes(std::move(writes), d.output.sizes, reading.nth);
    if (!kept) return detail::not_applicable(reading);
    writes = std::move(*kept);
  }

  const detail::InputTensor input(d.input, b.input.data);
  const detail::InputTensor updates(d.updates, b.updates.data);
  const detail::OutputTensor output(d.output, b.output.data);
  // output = input (a logical copy: the two may have different strides).
  for_each_coord(d.output.sizes, [&](const Coord& c) {
    detail::copy_element(output.at(c), input.at(c), output.element_bytes());
  });
  // output[indices[...]] = updates[...], in row-major tuple order: the last write wins.
  for (const ScatterWrite& w : writes)
    detail::copy_element(output.at(w.output), updates.at(w.update), output.element_bytes());
  return detail::ok();
}

}  // namespace dmlcert::reference

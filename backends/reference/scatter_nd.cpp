// DML_SCATTER_ND, from the seed's pseudocode:
//   output = input
//   output[indices[...]] = updates[...]
// with the shapes of SPEC.md ("SCATTER_ND"): strip leading dimensions, k = Indices.Sizes[last] is
// the index-tuple length, and each tuple addresses a block of the input. Following the seed
// (SCATTERND.TUPLE_SIZE: k <= Input.DimensionCount), k may exceed InputDimensionCount; the
// meaningful input rank is then m = max(InputDimensionCount, k). A tuple indexes input dims
// [rank-m, rank-m+k) and the block is input dims [rank-m+k, rank).
// Duplicate tuples (SCATTERND.DUPLICATE, class U) are executed last-write-wins in row-major tuple
// order. Every index is resolved (SCATTERND.INDEX_RANGE) before the first output byte is written.
#include <algorithm>
#include <string>

#include "reference/internal.h"
#include "reference/reference.h"

namespace dmlcert::reference {
namespace detail {

ScatterPlan plan_scatter_nd(const ScatterNdDesc& d, FeatureLevel level, ConstBuffer indices_buffer) {
  const InputTensor indices(d.indices, indices_buffer.data);
  const uint32_t rank = d.input.rank();
  const uint32_t k = d.indices.sizes[rank - 1];
  const uint32_t m = std::max(d.input_dimension_count, k);
  const uint32_t first_indexed = rank - m;  // input dims [rank-m, rank-m+k) are indexed
  const uint32_t first_block = rank - m + k;

  // Tuple positions: the indices' meaningful sizes without the last (the tuple itself).
  const Sizes batch_sizes(d.indices.sizes.begin() + (rank - d.indices_dimension_count),
                          d.indices.sizes.end() - 1);
  // The block each tuple addresses: the input sizes after the indexed dims.
  const Sizes block_sizes(d.input.sizes.begin() + first_block, d.input.sizes.end());
  // Updates.Sizes is batch_sizes ++ block_sizes, right-aligned and left-padded with 1s.
  const uint32_t updates_first = rank - static_cast<uint32_t>(batch_sizes.size() + block_sizes.size());

  ScatterPlan plan;
  for_each_coord(batch_sizes, [&](const Coord& batch) {
    if (plan.error) return;
    // The tuple at this position: Indices[0.., batch, j] for j in [0, k).
    Coord tuple(k);
    for (uint32_t j = 0; j < k; ++j) {
      Coord at(rank, 0);
      std::copy(batch.begin(), batch.end(), at.begin() + (rank - d.indices_dimension_count));
      at[rank - 1] = j;
      const uint32_t dim = d.input.sizes[first_indexed + j];
      const auto index = resolve_index(d.indices.type, indices.at(at), dim, level);
      if (!index) {
        plan.error =
            Violation{"SCATTERND.INDEX_RANGE",
                      "indices element " + std::to_string(flat_index(at, d.indices.sizes)) + " is " +
                          index_text(d.indices.type, indices.at(at)) + ", outside the range of input dim " +
                          std::to_string(first_indexed + j) + " (size " + std::to_string(dim) + ")"};
        return;
      }
      tuple[j] = *index;
    }
    for_each_coord(block_sizes, [&](const Coord& block) {
      ScatterWrite w{Coord(rank, 0), Coord(rank, 0)};
      std::copy(tuple.begin(), tuple.end(), w.output.begin() + first_indexed);
      std::copy(block.begin(), block.end(), w.output.begin() + first_block);
      std::copy(batch.begin(), batch.end(), w.update.begin() + updates_first);
      std::copy(block.begin(), block.end(), w.update.begin() + updates_first + batch.size());
      plan.writes.push_back(std::move(w));
    });
  });
  if (plan.error) plan.writes.clear();
  return plan;
}

}  // namespace detail

ExecResult scatter_nd(const ScatterNdDesc& d, FeatureLevel level, const Bindings& b) {
  const detail::ScatterPlan plan = detail::plan_scatter_nd(d, level, b.indices);
  if (plan.error) return detail::rejected({*plan.error}, "index data out of range: " + plan.error->message);

  const detail::InputTensor input(d.input, b.input.data);
  const detail::InputTensor updates(d.updates, b.updates.data);
  const detail::OutputTensor output(d.output, b.output.data);
  // output = input (a logical copy: the two may have different strides).
  for_each_coord(d.output.sizes, [&](const Coord& c) {
    detail::copy_element(output.at(c), input.at(c), output.element_bytes());
  });
  // output[indices[...]] = updates[...], in row-major tuple order: the last write wins.
  for (const detail::ScatterWrite& w : plan.writes)
    detail::copy_element(output.at(w.output), updates.at(w.update), output.element_bytes());
  return detail::ok();
}

}  // namespace dmlcert::reference

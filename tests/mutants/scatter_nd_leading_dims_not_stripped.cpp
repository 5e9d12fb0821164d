// SCATTER_ND that forgets to strip the leading dimensions of the input: each index tuple
// addresses (and is range-checked against) the first k dimensions of the full-rank input instead
// of the k dimensions where the meaningful shape starts. Right whenever rank == m.
#include <algorithm>

#include "mutant_util.h"

namespace dmlcert::mutants {
namespace {

class ScatterNdLeadingDimsNotStripped final : public PatchedReference {
  std::optional<ExecResult> mutated(const OperatorDesc& desc, FeatureLevel level,
                                    const Bindings& b) override {
    const auto* d = std::get_if<ScatterNdDesc>(&desc);
    if (!d) return std::nullopt;
    const InputTensor indices(d->indices, b.indices.data);
    const uint32_t rank = d->input.rank();
    const uint32_t k = d->indices.sizes[rank - 1];
    const uint32_t m = std::max(d->input_dimension_count, k);
    const uint32_t first_indexed = 0;  // BUG: the reference uses rank - m
    const uint32_t first_block = rank - m + k;
    const Sizes batch_sizes(d->indices.sizes.begin() + (rank - d->indices_dimension_count),
                            d->indices.sizes.end() - 1);
    const Sizes block_sizes(d->input.sizes.begin() + first_block, d->input.sizes.end());
    const auto updates_first = static_cast<uint32_t>(rank - batch_sizes.size() - block_sizes.size());

    std::vector<std::pair<Coord, Coord>> writes;  // (update, output)
    bool out_of_range = false;
    for_each_coord(batch_sizes, [&](const Coord& batch) {
      Coord tuple(k);
      for (uint32_t j = 0; j < k && !out_of_range; ++j) {
        Coord at(rank, 0);
        std::copy(batch.begin(), batch.end(), at.begin() + (rank - d->indices_dimension_count));
        at[rank - 1] = j;
        const auto index =
            resolve_index(d->indices.type, indices.at(at), d->input.sizes[first_indexed + j], level);
        if (!index)
          out_of_range = true;
        else
          tuple[j] = *index;
      }
      if (out_of_range) return;
      for_each_coord(block_sizes, [&](const Coord& block) {
        Coord out(rank, 0), upd(rank, 0);
        std::copy(tuple.begin(), tuple.end(), out.begin() + first_indexed);
        std::copy(block.begin(), block.end(), out.begin() + first_block);
        std::copy(batch.begin(), batch.end(), upd.begin() + updates_first);
        std::copy(block.begin(), block.end(), upd.begin() + updates_first + batch.size());
        writes.emplace_back(upd, out);
      });
    });
    if (out_of_range) return rejected("SCATTERND.INDEX_RANGE: index data out of range");

    const InputTensor input(d->input, b.input.data);
    const InputTensor updates(d->updates, b.updates.data);
    const OutputTensor output(d->output, b.output.data);
    for_each_coord(d->output.sizes,
                   [&](const Coord& c) { copy_element(output.at(c), input.at(c), output.element_bytes()); });
    for (const auto& [upd, out] : writes)
      copy_element(output.at(out), updates.at(upd), output.element_bytes());
    return ok();
  }
};

}  // namespace
}  // namespace dmlcert::mutants

DMLCERT_EXPORT_MUTANT(scatter_nd_leading_dims_not_stripped, dmlcert::mutants::ScatterNdLeadingDimsNotStripped)

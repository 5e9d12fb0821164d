// Float SUM over more than 8192 elements per output, blocked: it sums blocks of 4096 elements and
// adds up the block sums, but forgets the last block when it is partial.
#include "mutant_util.h"

namespace dmlcert::mutants {
namespace {

constexpr size_t kBlockedAbove = 8192, kBlock = 4096;

class SumBlocksDropLastPartial final : public PatchedReference {
  std::optional<ExecResult> mutated(const OperatorDesc& desc, FeatureLevel, const Bindings& b) override {
    const ReduceDesc* d = reduce_of(desc, {ReduceFunction::SUM});
    if (!d || !is_float(d->input.type)) return std::nullopt;
    for_each_group(*d, b, [&](const Elements& xs, std::byte* dst) {
      long double sum = 0;
      const size_t summed = xs.size() > kBlockedAbove ? xs.size() / kBlock * kBlock : xs.size();
      for (size_t i = 0; i < summed; ++i) sum += to_double(d->input.type, xs[i]);  // BUG: the partial block
      store_rounded(d->output.type, sum, dst);
    });
    return ok();
  }
};

}  // namespace
}  // namespace dmlcert::mutants

DMLCERT_EXPORT_MUTANT(sum_blocks_drop_last_partial, dmlcert::mutants::SumBlocksDropLastPartial)

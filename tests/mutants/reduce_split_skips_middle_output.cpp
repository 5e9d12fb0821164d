// REDUCE that splits its outputs between two threads once the input reaches 64 KiB, the first
// taking [0, n/2) and the second [n/2 + 1, n): output element n/2 is never written.
#include "mutant_util.h"

namespace dmlcert::mutants {
namespace {

constexpr uint64_t kThreadedBytes = uint64_t{64} << 10;

class ReduceSplitSkipsMiddleOutput final : public PatchedReference {
  std::optional<ExecResult> mutated(const OperatorDesc& desc, FeatureLevel level,
                                    const Bindings& b) override {
    const ReduceDesc* d = reduce_of(desc);
    if (!d) return std::nullopt;
    const uint64_t outputs = element_count(d->output.sizes).value_or(0);
    if (outputs < 2 ||
        element_count(d->input.sizes).value_or(0) * element_size(d->input.type) < kThreadedBytes)
      return std::nullopt;
    // The reference computes every output into a copy; the split then stores all but one.
    Bytes computed(b.output.size);
    Bindings into = b;
    into.output = {computed.data(), computed.size()};
    const ExecResult r = reference().execute(desc, level, into);
    if (r.status != Status::Ok) return r;
    const OutputTensor from(d->output, computed.data()), to(d->output, b.output.data);
    const uint64_t skipped = outputs / 2;  // BUG: the second share starts one past the first's end
    uint64_t i = 0;
    for_each_coord(d->output.sizes, [&](const Coord& c) {
      if (i++ != skipped) copy_element(to.at(c), from.at(c), to.element_bytes());
    });
    return ok();
  }
};

}  // namespace
}  // namespace dmlcert::mutants

DMLCERT_EXPORT_MUTANT(reduce_split_skips_middle_output, dmlcert::mutants::ReduceSplitSkipsMiddleOutput)

// ARGMAX and ARGMIN whose FLOAT16 kernel (a half-precision fast path of its own) keeps the running
// index in 16 bits, as the half values beside it: over more than 65536 elements per output, an
// extreme at index 65536 or later is reported modulo 2^16. Every other type is right.
#include "mutant_util.h"

namespace dmlcert::mutants {
namespace {

class ArgmaxFloat16IndexIn16Bits final : public PatchedReference {
  std::optional<ExecResult> mutated(const OperatorDesc& desc, FeatureLevel level,
                                    const Bindings& b) override {
    const ReduceDesc* d = reduce_of(desc, {ReduceFunction::ARGMAX, ReduceFunction::ARGMIN});
    if (!d || d->input.type != DataType::FLOAT16) return std::nullopt;
    const ExecResult r = reference().execute(desc, level, b);
    if (r.status != Status::Ok) return r;
    const OutputTensor output(d->output, b.output.data);
    for_each_coord(d->output.sizes, [&](const Coord& c) {
      std::byte* p = output.at(c);
      const auto index = integer_value(d->output.type, p);
      if (index) store_index(d->output.type, static_cast<uint16_t>(*index), p);  // BUG: 16 bits
    });
    return ok();
  }
};

}  // namespace
}  // namespace dmlcert::mutants

DMLCERT_EXPORT_MUTANT(argmax_float16_index_in_16_bits, dmlcert::mutants::ArgmaxFloat16IndexIn16Bits)

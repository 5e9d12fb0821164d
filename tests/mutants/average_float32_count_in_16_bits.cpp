// AVERAGE whose FLOAT32 kernel keeps the count it divides by in 16 bits: over 65536 elements or
// more per output it divides by N modulo 2^16 (by zero at 65536). Every other type is right.
#include "mutant_util.h"

namespace dmlcert::mutants {
namespace {

class AverageFloat32CountIn16Bits final : public PatchedReference {
  std::optional<ExecResult> mutated(const OperatorDesc& desc, FeatureLevel, const Bindings& b) override {
    const ReduceDesc* d = reduce_of(desc, {ReduceFunction::AVERAGE});
    if (!d || d->input.type != DataType::FLOAT32) return std::nullopt;
    uint64_t n = 1;
    for (uint32_t a : axis_set(d->axes)) n *= d->input.sizes[a];
    const uint16_t count = static_cast<uint16_t>(n);  // BUG: 16 bits
    for_each_group(*d, b, [&](const Elements& xs, std::byte* dst) {
      long double sum = 0;
      for (const std::byte* x : xs) sum += to_double(d->input.type, x);
      store_rounded(d->output.type, sum / static_cast<float>(count), dst);
    });
    return ok();
  }
};

}  // namespace
}  // namespace dmlcert::mutants

DMLCERT_EXPORT_MUTANT(average_float32_count_in_16_bits, dmlcert::mutants::AverageFloat32CountIn16Bits)

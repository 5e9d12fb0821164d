// A backend that computes each tensor's minimum implied size, (span * element size) rounded up to
// 4 bytes, in 32-bit arithmetic. BUG: a span of more than 4 GiB wraps to a few bytes, so a
// TotalTensorSizeInBytes far too small passes T.TOTAL_BYTES.
#include "mutant_util.h"

namespace dmlcert::mutants {
namespace {

uint32_t min_bytes_32(const TensorDesc& t) {
  const auto strides = effective_strides(t);
  uint64_t span = 1;
  for (size_t i = 0; i < t.sizes.size(); ++i) span += uint64_t{t.sizes[i] - 1} * strides[i];
  const uint32_t bytes = static_cast<uint32_t>(span) * static_cast<uint32_t>(element_size(t.type));  // BUG
  return (bytes + 3u) & ~3u;
}

class TotalBytesIn32Bits final : public PatchedReference {
  std::optional<ExecResult> intercept(const OperatorDesc& desc, FeatureLevel level,
                                      const Bindings& b) override {
    if (!only_broken(validate(desc, level), {"T.TOTAL_BYTES"})) return std::nullopt;
    for (Role r : roles(op_kind(desc))) {
      const TensorDesc& t = *tensor(desc, r);
      if (t.total_bytes % 4 != 0 || t.total_bytes < min_bytes_32(t)) return std::nullopt;
    }
    return run_kernel(desc, level, b);
  }
};

}  // namespace
}  // namespace dmlcert::mutants

DMLCERT_EXPORT_MUTANT(total_bytes_in_32_bits, dmlcert::mutants::TotalBytesIn32Bits)

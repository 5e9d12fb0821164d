// REDUCE that reads each axis into 8 bits before it checks it (REDUCE.AXIS_RANGE): an axis of
// 256 + a is taken for axis a, and the invalid case is executed.
#include "mutant_util.h"

namespace dmlcert::mutants {
namespace {

class ReduceAxesIn8Bits final : public PatchedReference {
  std::optional<ExecResult> intercept(const OperatorDesc& desc, FeatureLevel level,
                                      const Bindings& b) override {
    const ReduceDesc* d = reduce_of(desc);
    if (!d) return std::nullopt;
    ReduceDesc narrow = *d;
    for (uint32_t& axis : narrow.axes) axis = static_cast<uint8_t>(axis);  // BUG: 8 bits
    if (narrow == *d) return std::nullopt;
    return reference().execute(narrow, level, b);
  }
};

}  // namespace
}  // namespace dmlcert::mutants

DMLCERT_EXPORT_MUTANT(reduce_axes_in_8_bits, dmlcert::mutants::ReduceAxesIn8Bits)

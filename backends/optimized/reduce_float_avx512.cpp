// REDUCE on float (FLOAT32, FLOAT16) data with the AVX-512 kernels (see reduce_engine.h), which
// reduce_width.h chooses for every call on a CPU that runs them at full width, and elsewhere for
// the two that compute more than they stream: LOG_SUM_EXP, whose exp ran a quarter faster than
// with AVX2 on a CPU that executes 512-bit operations in two halves, and ARGMAX / ARGMIN, whose
// mask-register selects take half the AVX2 kernel's instructions per element (kernels.inc,
// better16), which takes ARGMAX from memory close to the read roofline.
#include "optimized/reduce_engine.h"

namespace dmlcert::optimized::reduce_detail {

bool run_float_avx512(const Plan& p, ReduceFunction f, const Bindings& b) {
  return run_float<isa_avx512::Kernels>(p, f, b);
}

}  // namespace dmlcert::optimized::reduce_detail

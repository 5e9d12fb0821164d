// REDUCE on float (FLOAT32, FLOAT16) data with the AVX-512 kernels (see reduce_engine.h).
#include "optimized/reduce_engine.h"

namespace dmlcert::optimized::reduce_detail {

bool run_float_avx512(const Plan& p, ReduceFunction f, const Bindings& b) {
  return run_float<isa_avx512::Kernels>(p, f, b);
}

}  // namespace dmlcert::optimized::reduce_detail

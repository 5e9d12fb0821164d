// REDUCE on integer data with the AVX-512 kernels (see reduce_engine.h; reduce_width.h says when).
#include "optimized/reduce_engine.h"

namespace dmlcert::optimized::reduce_detail {

bool run_integer_avx512(const Plan& p, ReduceFunction f, const Bindings& b) {
  return run_integer_any<isa_avx512::Kernels>(p, f, b);
}

}  // namespace dmlcert::optimized::reduce_detail

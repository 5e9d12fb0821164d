// REDUCE on integer data with the baseline x86-64 kernels (see reduce_engine.h).
#include "optimized/reduce_engine.h"

namespace dmlcert::optimized::reduce_detail {

bool run_integer_baseline(const Plan& p, ReduceFunction f, const Bindings& b) {
  return run_integer_any<isa_baseline::Kernels>(p, f, b);
}

}  // namespace dmlcert::optimized::reduce_detail

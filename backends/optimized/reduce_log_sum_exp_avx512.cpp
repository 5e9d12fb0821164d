// REDUCE LOG_SUM_EXP with the AVX-512 kernels (see reduce_engine.h). LOG_SUM_EXP, whose exp is
// bound by arithmetic, ran a quarter faster than with AVX2 on a CPU that executes 512-bit
// operations in two halves. The sums, bound by bandwidth, gained nothing; ARG* has a file of its
// own (reduce_arg_avx512.cpp).
#include "optimized/reduce_engine.h"

namespace dmlcert::optimized::reduce_detail {

void run_log_sum_exp_avx512(const Plan& p, const Bindings& b) {
  run_log_sum_exp<isa_avx512::Kernels>(p, b);
}

}  // namespace dmlcert::optimized::reduce_detail

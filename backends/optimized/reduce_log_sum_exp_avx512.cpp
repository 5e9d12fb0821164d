// REDUCE LOG_SUM_EXP with the AVX-512 kernels (see reduce_engine.h). Only LOG_SUM_EXP, whose exp
// is bound by arithmetic, gains from them: it ran a quarter faster than with AVX2 on a CPU that
// executes 512-bit operations in two halves, while the bandwidth-bound functions gained nothing
// and GCC's 512-bit code for the ARGMAX selects ran many times slower than the AVX2 code.
#include "optimized/reduce_engine.h"

namespace dmlcert::optimized::reduce_detail {

void run_log_sum_exp_avx512(const Plan& p, const Bindings& b) {
  run_log_sum_exp<isa_avx512::Kernels>(p, b);
}

}  // namespace dmlcert::optimized::reduce_detail

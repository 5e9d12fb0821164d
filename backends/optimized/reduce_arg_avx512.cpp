// REDUCE ARGMAX and ARGMIN on 4-byte data (FLOAT32, INT32, UINT32) with the AVX-512 kernels (see
// reduce_engine.h): with a mask register per comparison they run at half the AVX2 kernel's
// instructions per element (kernels.inc, better16), which takes ARGMAX from memory close to the
// read roofline.
#include "optimized/reduce_engine.h"

namespace dmlcert::optimized::reduce_detail {

bool run_arg_avx512(const Plan& p, ReduceFunction f, const Bindings& b) {
  using K = isa_avx512::Kernels;
  if (!is_arg_function(f)) return false;
  return dispatch(p.in_type, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (sizeof(T) == 4 && (std::is_same_v<T, float> || std::is_integral_v<T>)) {
      f == ReduceFunction::ARGMAX ? run_arg<K, T, ops::Greater>(p, b) : run_arg<K, T, ops::Less>(p, b);
      return true;
    } else {
      return false;
    }
  });
}

}  // namespace dmlcert::optimized::reduce_detail

// REDUCE ARGMAX and ARGMIN on 4-byte data (FLOAT32, INT32, UINT32) with the AVX-512 kernels (see
// reduce_engine.h): with a mask register per comparison they run at half the AVX2 kernel's
// instructions per element (kernels.inc, better16), which takes ARGMAX from memory close to the
// read roofline.
#include "optimized/reduce_engine.h"

namespace dmlcert::optimized::reduce_detail {

bool run_arg_avx512(const Plan& p, ReduceFunction f, const Bindings& b) {
  using K = isa_avx512::Kernels;
  if (!is_arg_function(f)) return false;
  const bool max = f == ReduceFunction::ARGMAX;
  switch (p.in_type) {
    case DataType::FLOAT32:
      max ? run_arg<K, float, ops::Greater>(p, b) : run_arg<K, float, ops::Less>(p, b);
      return true;
    case DataType::INT32:
      max ? run_arg<K, int32_t, ops::Greater>(p, b) : run_arg<K, int32_t, ops::Less>(p, b);
      return true;
    case DataType::UINT32:
      max ? run_arg<K, uint32_t, ops::Greater>(p, b) : run_arg<K, uint32_t, ops::Less>(p, b);
      return true;
    default: return false;
  }
}

}  // namespace dmlcert::optimized::reduce_detail

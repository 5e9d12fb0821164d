// REDUCE: plans the call (reduce_engine.h explains the engines) and runs the kernels for the
// instruction set this CPU has.
#include "optimized/reduce_engine.h"

namespace dmlcert::optimized {

using namespace reduce_detail;

ExecResult execute(const ReduceDesc& d, FeatureLevel, const Bindings& b) {
  const Plan plan = make_plan(d);
  ExecResult r;
  // ARG* indices are kept in 32 bits; only a broadcast input can have 2^32 elements per output.
  if (is_arg_function(d.function) && plan.n >= kNoIndex) {
    r.status = Status::Unsupported;
    r.message = "ARGMAX/ARGMIN over 2^32 or more elements per output";
    return r;
  }
  const bool avx2 = cpu_has_avx2_f16c(), avx512 = cpu_has_avx512_kernels();
  bool ok = false;
  if (plan.in_type == DataType::FLOAT64)  // REDUCE never takes FLOAT64 (T.DTYPE)
    ok = false;
  else if (is_float(plan.in_type) && d.function == ReduceFunction::LOG_SUM_EXP && avx512) {
    run_log_sum_exp_avx512(plan, b);
    ok = true;
  } else if (avx512 && is_arg_function(d.function) && run_arg_avx512(plan, d.function, b))
    ok = true;
  else if (is_float(plan.in_type))
    ok = avx2 ? run_float_avx2(plan, d.function, b) : run_float_baseline(plan, d.function, b);
  else
    ok = avx2 ? run_integer_avx2(plan, d.function, b) : run_integer_baseline(plan, d.function, b);
  if (!ok) {
    r.status = Status::Unsupported;
    r.message =
        "REDUCE " + name(d.function) + " on " + std::string(name(d.input.type)) + " is not implemented";
  }
  return r;
}

}  // namespace dmlcert::optimized

// REDUCE: plans the call (reduce_engine.h explains the engines) and runs the kernels for the
// instruction set this CPU has, or the 16-byte ones where they stream faster (reduce_width.h).
#include "optimized/cpu.h"
#include "optimized/reduce_engine.h"
#include "optimized/reduce_width.h"

namespace dmlcert::optimized {

using namespace reduce_detail;

bool narrow_kernels_stream_faster(DataType input, ReduceFunction f, bool columns, uint64_t input_bytes,
                                  uint64_t last_level_cache_bytes) {
  const bool function = f == ReduceFunction::SUM || f == ReduceFunction::MAX || f == ReduceFunction::MIN;
  const bool type = input == DataType::FLOAT32 || (is_integer(input) && element_size(input) <= 4);
  return function && type && !columns && input_bytes > last_level_cache_bytes;
}

bool stream_prefetch_pays(bool cpu_wants_software_prefetch, uint64_t input_bytes,
                          uint64_t last_level_cache_bytes) {
  return cpu_wants_software_prefetch && input_bytes > last_level_cache_bytes;
}

ExecResult compute(const ReduceDesc& d, FeatureLevel, const Bindings& b) {
  Plan plan = make_plan(d);
  const uint64_t input_bytes = plan.n * plan.outputs * plan.in_bytes;
  plan.prefetch = stream_prefetch_pays(software_prefetch(), input_bytes, last_level_cache_bytes());
  ExecResult r;
  // ARG* indices are kept in 32 bits; only a broadcast input can have 2^32 elements per output.
  if (is_arg_function(d.function) && plan.n >= kNoIndex) {
    r.status = Status::Unsupported;
    r.message = "ARGMAX/ARGMIN over 2^32 or more elements per output";
    return r;
  }
  const bool avx512 = cpu_has_avx512_kernels();
  const bool avx2 =
      cpu_has_avx2_f16c() && !narrow_kernels_stream_faster(plan.in_type, d.function, plan.column, input_bytes,
                                                           last_level_cache_bytes());
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

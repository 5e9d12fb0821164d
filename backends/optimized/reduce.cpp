// REDUCE: plans the call (reduce_engine.h explains the engines) and runs it with the kernel set
// reduce_width.h chooses for this CPU and call.
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

KernelSet reduce_kernel_set(const KernelCpu& cpu, DataType input, ReduceFunction f, bool columns,
                            uint64_t input_bytes, uint64_t last_level_cache_bytes) {
  const bool computes = (f == ReduceFunction::LOG_SUM_EXP && is_float(input)) ||
                        (is_arg_function(f) && element_size(input) == 4);
  if (cpu.avx512 && (computes || cpu.avx512_full_width)) return KernelSet::Avx512;
  if (cpu.avx2 && !narrow_kernels_stream_faster(input, f, columns, input_bytes, last_level_cache_bytes))
    return KernelSet::Avx2;
  return KernelSet::Baseline;
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
  const KernelCpu cpu{cpu_has_avx2_f16c(), cpu_has_avx512_kernels(), cpu_avx512_full_width()};
  const bool is_float_data = is_float(plan.in_type);
  bool ok = false;
  if (plan.in_type == DataType::FLOAT64) {  // REDUCE never takes FLOAT64 (T.DTYPE)
    ok = false;
  } else {
    switch (reduce_kernel_set(cpu, plan.in_type, d.function, plan.column, input_bytes,
                              last_level_cache_bytes())) {
      case KernelSet::Avx512:
        ok = is_float_data ? run_float_avx512(plan, d.function, b) : run_integer_avx512(plan, d.function, b);
        break;
      case KernelSet::Avx2:
        ok = is_float_data ? run_float_avx2(plan, d.function, b) : run_integer_avx2(plan, d.function, b);
        break;
      case KernelSet::Baseline:
        ok = is_float_data ? run_float_baseline(plan, d.function, b)
                           : run_integer_baseline(plan, d.function, b);
        break;
    }
  }
  if (!ok) {
    r.status = Status::Unsupported;
    r.message =
        "REDUCE " + name(d.function) + " on " + std::string(name(d.input.type)) + " is not implemented";
  }
  return r;
}

}  // namespace dmlcert::optimized

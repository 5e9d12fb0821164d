// SLICE: Output[c] = Input[Offsets + Strides * c], one strided copy.
#include "optimized/copy.h"
#include "optimized/optimized.h"

namespace dmlcert::optimized {

ExecResult compute(const SliceDesc& d, FeatureLevel, const Bindings& b) {
  const auto in_strides = effective_strides(d.input);
  const auto out_strides = effective_strides(d.output);
  LoopNest nest;
  nest.streams = 2;
  for (size_t i = 0; i < d.output.sizes.size(); ++i) {
    nest.base[1] += static_cast<int64_t>(d.offsets[i]) * static_cast<int64_t>(in_strides[i]);
    // A dimension of one element never takes its step: a tensor stride and a step near 2^32 would
    // overflow int64 there. Where the step is taken, the input's bounds (T.TOTAL_BYTES) keep the
    // product small.
    const int64_t step =
        d.output.sizes[i] == 1 ? 0 : static_cast<int64_t>(in_strides[i]) * static_cast<int64_t>(d.strides[i]);
    nest.dims.push_back(Dim{d.output.sizes[i], {static_cast<int64_t>(out_strides[i]), step, 0}});
  }
  canonicalize_for_copy(nest, 0);
  strided_copy(nest, element_size(d.input.type), b.output.data, b.input.data);
  return {};
}

}  // namespace dmlcert::optimized

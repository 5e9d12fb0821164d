// SLICE1: Output[c] = Input[CopyStart + InputWindowStrides * c], where a negative stride starts
// at the window's far end (docs/semantics.md, SLICE1). One strided copy; canonicalization folds the
// negative strides into the base offset.
#include "optimized/copy.h"
#include "optimized/optimized.h"

namespace dmlcert::optimized {

ExecResult compute(const Slice1Desc& d, FeatureLevel, const Bindings& b) {
  const auto in_strides = effective_strides(d.input);
  const auto out_strides = effective_strides(d.output);
  LoopNest nest;
  nest.streams = 2;
  for (size_t i = 0; i < d.output.sizes.size(); ++i) {
    const int64_t step = d.input_window_strides[i];
    const int64_t start = static_cast<int64_t>(d.input_window_offsets[i]) +
                          (step < 0 ? static_cast<int64_t>(d.input_window_sizes[i]) - 1 : 0);
    nest.base[1] += start * static_cast<int64_t>(in_strides[i]);
    nest.dims.push_back(
        Dim{d.output.sizes[i],
            {static_cast<int64_t>(out_strides[i]), static_cast<int64_t>(in_strides[i]) * step, 0}});
  }
  canonicalize_for_copy(nest, 0);
  strided_copy(nest, element_size(d.input.type), b.output.data, b.input.data);
  return {};
}

}  // namespace dmlcert::optimized

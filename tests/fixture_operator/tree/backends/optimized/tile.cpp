// TILE: output[c] = input[c mod Input.Sizes]. One output row (the innermost dimension) at a time:
// its source row is found once, and where both rows are packed the input row is copied
// Repeats[last] times whole instead of element by element.
#include <cstring>

#include "optimized/optimized.h"

namespace dmlcert::optimized {

ExecResult compute(const TileDesc& d, FeatureLevel, const Bindings& b) {
  if (element_count(d.output.sizes).value_or(0) == 0) return {};
  const std::size_t last = d.output.sizes.size() - 1;
  const uint64_t es = element_size(d.output.type);
  const auto in_strides = effective_strides(d.input);
  const auto out_strides = effective_strides(d.output);
  const uint64_t row_in = d.input.sizes[last], row_out = d.output.sizes[last];
  const bool packed_rows = in_strides[last] == 1 && out_strides[last] == 1;
  Coord c(last + 1, 0);  // the output coordinate of the row's first element
  for (;;) {
    uint64_t in_offset = 0, out_offset = 0;
    for (std::size_t i = 0; i < last; ++i) {
      in_offset += c[i] % d.input.sizes[i] * in_strides[i];
      out_offset += c[i] * out_strides[i];
    }
    const std::byte* src = b.input.data + in_offset * es;
    std::byte* dst = b.output.data + out_offset * es;
    if (packed_rows) {
      for (uint64_t j = 0; j < row_out; j += row_in) std::memcpy(dst + j * es, src, row_in * es);
    } else {
      for (uint64_t j = 0; j < row_out; ++j)
        std::memcpy(dst + j * out_strides[last] * es, src + j % row_in * in_strides[last] * es, es);
    }
    // The next row: the odometer over every dimension but the innermost.
    std::size_t i = last;
    for (;;) {
      if (i == 0) return {};
      --i;
      if (++c[i] < d.output.sizes[i]) break;
      c[i] = 0;
    }
  }
}

}  // namespace dmlcert::optimized

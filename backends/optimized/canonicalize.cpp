#include "optimized/canonicalize.h"

#include <algorithm>
#include <cstdlib>

namespace dmlcert::optimized {

uint64_t LoopNest::count() const {
  uint64_t n = 1;
  for (const Dim& d : dims) n *= d.size;
  return n;
}

uint64_t LoopNest::outer_count() const {
  uint64_t n = 1;
  for (size_t i = 0; i + 1 < dims.size(); ++i) n *= dims[i].size;
  return n;
}

void simplify(LoopNest& nest) {
  std::vector<Dim> kept;
  for (const Dim& d : nest.dims)
    if (d.size != 1) kept.push_back(d);
  std::vector<Dim> merged;
  for (const Dim& d : kept) {
    if (!merged.empty()) {
      Dim& outer = merged.back();
      bool contiguous = outer.kind == d.kind;
      for (int s = 0; s < nest.streams; ++s)
        contiguous = contiguous && outer.stride[s] == d.stride[s] * static_cast<int64_t>(d.size);
      if (contiguous) {
        outer.size *= d.size;
        outer.stride = d.stride;
        continue;
      }
    }
    merged.push_back(d);
  }
  if (merged.empty()) merged.push_back(Dim{});
  nest.dims = std::move(merged);
}

void canonicalize_for_copy(LoopNest& nest, int stream) {
  for (Dim& d : nest.dims) {
    if (d.stride[stream] >= 0) continue;
    for (int s = 0; s < nest.streams; ++s) {
      nest.base[s] += static_cast<int64_t>(d.size - 1) * d.stride[s];
      d.stride[s] = -d.stride[s];
    }
  }
  std::stable_sort(nest.dims.begin(), nest.dims.end(), [&](const Dim& a, const Dim& b) {
    return std::llabs(a.stride[stream]) > std::llabs(b.stride[stream]);
  });
  simplify(nest);
}

}  // namespace dmlcert::optimized

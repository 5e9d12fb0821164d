#include "dmlcert/strided_dims.h"

#include <algorithm>

namespace dmlcert {

std::vector<StridedDim> interleaved_dims(const Sizes& sizes, const std::vector<uint64_t>& strides) {
  std::vector<StridedDim> dims;
  for (size_t i = 0; i < sizes.size() && i < strides.size(); ++i)
    if (sizes[i] > 1) dims.push_back({i, sizes[i], strides[i]});
  std::sort(dims.begin(), dims.end(), [](const StridedDim& a, const StridedDim& b) {
    return a.stride != b.stride ? a.stride < b.stride : a.index < b.index;
  });
  // rest = the largest offset the dimensions below the top one reach together, kept as a running
  // sum so that peeling stays linear.
  using u128 = unsigned __int128;
  u128 rest = 0;
  for (size_t j = 0; j + 1 < dims.size(); ++j) rest += static_cast<u128>(dims[j].size - 1) * dims[j].stride;
  while (!dims.empty() && dims.back().stride > rest) {
    dims.pop_back();
    if (!dims.empty()) rest -= static_cast<u128>(dims.back().size - 1) * dims.back().stride;
  }
  return dims;
}

}  // namespace dmlcert

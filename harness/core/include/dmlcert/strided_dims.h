// Which dimensions of a strided layout can make two coordinates meet (T.OUTPUT_OVERLAP in
// docs/rules.md), for the validator and for the case reader's check of aliased input data.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "dmlcert/tensor.h"

namespace dmlcert {

struct StridedDim {
  size_t index;  // in sizes
  uint64_t size, stride;
};

// Dimensions of size 1 dropped, then, from the largest stride down, each one whose stride exceeds
// the largest offset all the others left reach together (coordinates that differ there cannot
// meet). Empty when the strides provably keep distinct coordinates apart, as packed and padded
// layouts in any order do; what is left, sorted by stride, otherwise. Linear after the sort.
std::vector<StridedDim> interleaved_dims(const Sizes& sizes, const std::vector<uint64_t>& strides);

// Two logical elements (row-major indices) that share one element of memory through the strides
// but hold different values. No binding can hold such data: the backend would be given the value
// of one of them only, so a case with it is not the case it says it is.
struct SharedElementConflict {
  uint64_t first, second;  // logical indices, first < second
  uint64_t offset;         // the element offset both map to
};
// The first such pair of `logical` (the tensor's data in row-major order), or nullopt. Strides that
// provably keep elements apart (packed, padded, permuted) need no look at the data; otherwise the
// first element at each offset is kept in a table (flat when the offsets are dense).
std::optional<SharedElementConflict> shared_element_conflict(const TensorDesc& t,
                                                             std::span<const std::byte> logical);

}  // namespace dmlcert

// Which dimensions of a strided layout can make two coordinates meet (T.OUTPUT_OVERLAP in
// docs/rules.md), for the validator and for the case reader's check of aliased input data.
#pragma once

#include <cstddef>
#include <cstdint>
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

}  // namespace dmlcert

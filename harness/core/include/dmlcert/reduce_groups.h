// Which input elements each REDUCE output element reduces. Shared by the reference backend (to
// compute results) and the comparison model (to compute per-element error bounds from data).
#pragma once

#include <cstdint>
#include <vector>

#include "dmlcert/tensor.h"

namespace dmlcert {

// Sorted, duplicate-free axes (REDUCE.AXES_DUPLICATE's admissible reading treats axes as a set).
std::vector<uint32_t> axis_set(const std::vector<uint32_t>& axes);

// For each output element (row-major over the output sizes), the row-major flat indices of the
// input elements it reduces, in increasing order of the row-major flattened index over the
// reduced axes taken in increasing axis order. Position j in a group is therefore the ARGMAX /
// ARGMIN index j (docs/ops/reduce.md, "ARGMAX and ARGMIN"). Empty `axes` gives groups of one (N = 1).
std::vector<std::vector<uint64_t>> reduction_groups(const Sizes& input_sizes,
                                                    const std::vector<uint32_t>& axes);

}  // namespace dmlcert

#include "dmlcert/reduce_groups.h"

#include <algorithm>

namespace dmlcert {

std::vector<uint32_t> axis_set(const std::vector<uint32_t>& axes) {
  std::vector<uint32_t> s = axes;
  std::sort(s.begin(), s.end());
  s.erase(std::unique(s.begin(), s.end()), s.end());
  return s;
}

std::vector<std::vector<uint64_t>> reduction_groups(const Sizes& input_sizes,
                                                    const std::vector<uint32_t>& axes) {
  std::vector<uint32_t> reduced = axis_set(axes);
  reduced.erase(
      std::remove_if(reduced.begin(), reduced.end(), [&](uint32_t a) { return a >= input_sizes.size(); }),
      reduced.end());
  // A group is its first element's row-major index plus fixed offsets: the reduced axes' part of
  // the index, which is the same for every group.
  const std::vector<uint64_t> strides = packed_strides(input_sizes);
  Sizes out_sizes = input_sizes;
  Sizes group_sizes;                    // sizes of the reduced axes, in increasing axis order
  std::vector<uint64_t> group_strides;  // and their strides in the input
  for (uint32_t a : reduced) {
    out_sizes[a] = 1;
    group_sizes.push_back(input_sizes[a]);
    group_strides.push_back(strides[a]);
  }
  std::vector<uint64_t> offsets;
  for_each_offset(group_sizes, group_strides, [&](uint64_t off) { offsets.push_back(off); });
  std::vector<std::vector<uint64_t>> groups;
  for_each_coord(out_sizes, [&](const Coord& kept) {
    const uint64_t first = element_offset(kept, strides);
    std::vector<uint64_t>& group = groups.emplace_back(offsets);
    for (uint64_t& i : group) i += first;
  });
  return groups;
}

}  // namespace dmlcert

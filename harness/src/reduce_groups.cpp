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
  const auto reduced = axis_set(axes);
  auto is_reduced = [&](size_t i) { return std::binary_search(reduced.begin(), reduced.end(), i); };
  Sizes out_sizes = input_sizes;
  Sizes group_sizes;  // sizes of the reduced axes, in increasing axis order
  for (size_t i = 0; i < input_sizes.size(); ++i) {
    if (is_reduced(i)) {
      out_sizes[i] = 1;
      group_sizes.push_back(input_sizes[i]);
    }
  }
  std::vector<std::vector<uint64_t>> groups;
  for_each_coord(out_sizes, [&](const Coord& kept) {
    std::vector<uint64_t> group;
    for_each_coord(group_sizes, [&](const Coord& r) {
      Coord c = kept;
      size_t j = 0;
      for (size_t i = 0; i < c.size(); ++i)
        if (is_reduced(i)) c[i] = r[j++];
      group.push_back(flat_index(c, input_sizes));
    });
    groups.push_back(std::move(group));
  });
  return groups;
}

}  // namespace dmlcert

#include "dmlcert/code_coverage.h"

namespace dmlcert {

uint32_t CodeCoverage::add(OpKind op, const std::vector<uint32_t>& indices) {
  std::vector<uint8_t>& mine = reached[static_cast<size_t>(op)];
  if (mine.size() != edges.size()) mine.resize(edges.size(), 0);
  uint32_t fresh = 0;
  for (uint32_t i : indices) {
    if (i >= edges.size() || mine[i]) continue;
    if (!any(i)) ++fresh;
    mine[i] = 1;
  }
  return fresh;
}

bool CodeCoverage::any(size_t edge) const {
  if (edge < reached_loading.size() && reached_loading[edge]) return true;
  for (const auto& op : reached)
    if (edge < op.size() && op[edge]) return true;
  return false;
}

}  // namespace dmlcert

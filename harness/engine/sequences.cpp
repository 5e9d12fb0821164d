#include "sequences.h"

#include <algorithm>

namespace dmlcert::engine {
namespace {

// The sizes a family grows through: an eighth of the case's, then the case's, then twice it (the
// generators' budgets stop growing at 100).
int smaller(int size) {
  return std::max(1, size / 8);
}
int larger(int size) {
  return std::min(100, size * 2);
}

// Other types of the cell's role at the same rank, in the level's table.
std::vector<DataType> other_types(const SupportCell& cell, FeatureLevel level) {
  std::vector<DataType> out;
  const auto s = support(cell.op, cell.function, cell.role, level);
  if (!s || cell.rank < s->min_rank || cell.rank > s->max_rank) return out;
  for (DataType t : s->types)
    if (t != cell.type) out.push_back(t);
  return out;
}

}  // namespace

std::vector<RelatedCase> related_cases(const SupportCell& cell, FeatureLevel level, props::DataMode mode,
                                       int size, uint64_t pick, FeatureLevel max_level) {
  uint64_t state = pick;
  auto next = [&] { return state = props::mix_seed(state, 0x5e9u); };
  auto pick_below = [&](size_t n) { return static_cast<size_t>(next() % n); };
  auto salt = [&] { return next() | 1; };  // nonzero
  const rc::Gen<Case> base = props::valid_case_for_cell(cell, level, mode);
  std::vector<RelatedCase> family;
  family.push_back({"small", base, smaller(size), cell});
  family.push_back({"base", base, size, cell});
  family.push_back({"again", base, size, cell});
  for (int i = 1; i <= 2; ++i)
    family.push_back({"layout-" + std::to_string(i),
                      props::valid_case_for_cell(cell, level, mode, props::Variation{salt(), 0}), size,
                      cell});
  if (const auto types = other_types(cell, level); !types.empty()) {
    SupportCell other = cell;
    other.type = types[pick_below(types.size())];
    family.push_back({"type-" + std::string(name(other.type)), props::valid_case_for_cell(other, level, mode),
                      size, other});
  }
  family.push_back(
      {"data-1", props::valid_case_for_cell(cell, level, mode, props::Variation{0, salt()}), size, cell});
  // One level below the case's table (where its descriptor may be invalid) and one anywhere.
  std::vector<FeatureLevel> below, any;
  for (int l = 0; l < kFeatureLevelCount; ++l) {
    const auto other = static_cast<FeatureLevel>(l);
    if (other > max_level || other == level) continue;
    any.push_back(other);
    if (other < table_level(level)) below.push_back(other);
  }
  for (const std::vector<FeatureLevel>* levels : {&below, &any}) {
    if (levels->empty()) continue;
    const FeatureLevel other = (*levels)[pick_below(levels->size())];
    family.push_back({"at-" + std::string(name(other)), props::at_level(base, other), size, cell});
  }
  family.push_back({"large", base, larger(size), cell});
  return family;
}

}  // namespace dmlcert::engine

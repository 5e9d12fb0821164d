// Valid cases: any operator at a level, one support-table cell, or one coverage target (a shape
// that exercises every role of an (op, function) at once).
#include <algorithm>

#include "build.h"

namespace dmlcert::props {
namespace {

std::vector<OpKind> ops_at(FeatureLevel level, const std::vector<OpKind>& ops) {
  std::vector<OpKind> out;
  for (OpKind op : all_ops())
    if (level >= introduced_at(op) && (ops.empty() || std::find(ops.begin(), ops.end(), op) != ops.end()))
      out.push_back(op);
  return out;
}

}  // namespace

std::string_view name(DataMode m) {
  switch (m) {
    case DataMode::Exact: return "exact";
    case DataMode::Random: return "random";
    case DataMode::Special: return "special";
  }
  return "?";
}

uint32_t edge_exponent(CaseSize size) {
  switch (size) {
    case CaseSize::PastUint8: return 8;
    case CaseSize::PastInt16: return 15;
    case CaseSize::PastUint16: return 16;
    default: return 0;
  }
}

rc::Gen<Case> valid_case(FeatureLevel level, std::vector<OpKind> ops) {
  const auto usable = ops_at(level, ops);
  return rc::gen::mapcat(rc::gen::elementOf(usable), [level](OpKind op) {
    CaseSpec spec;
    spec.level = level;
    spec.op = op;
    return case_for_spec(spec);
  });
}

rc::Gen<Case> valid_case_for_cell(const SupportCell& cell, FeatureLevel level, DataMode mode,
                                  Variation variation, CaseSize size) {
  CaseSpec spec;
  spec.huge = size == CaseSize::Huge || size == CaseSize::HugePacked;
  spec.large = size == CaseSize::LargePacked;
  spec.packed = size == CaseSize::LargePacked || size == CaseSize::HugePacked;
  if (spec.packed) spec.allow_broadcast_inputs = false;
  spec.edge = edge_exponent(size);
  // A width-edge case reads distinct values along every dimension: over a broadcast one, a
  // position read wrapped would read the same value.
  if (spec.edge != 0) spec.allow_broadcast_inputs = false;
  spec.level = level;
  spec.op = cell.op;
  spec.function = cell.function;
  spec.rank = cell.rank;
  spec.mode = mode;
  spec.layout_salt = variation.layout_salt;
  spec.data_salt = variation.data_salt;
  if (typed_separately(cell.op, cell.function, cell.role)) {
    spec.index_type = cell.type;
  } else {
    spec.data_type = cell.type;
    // Only where the table allows it with this cell's type, rank and level.
    for (Role role : roles(cell.op))
      if (variation.index_type && typed_separately(cell.op, cell.function, role)) {
        const std::vector<DataType> allowed = role_types(spec, role);
        if (std::find(allowed.begin(), allowed.end(), *variation.index_type) != allowed.end())
          spec.index_type = variation.index_type;
      }
  }
  return case_for_spec(spec);
}

rc::Gen<Case> at_level(rc::Gen<Case> gen, FeatureLevel level) {
  return rc::gen::map(std::move(gen), [level](Case c) {
    c.level = level;
    const Classification cls = classify(c.op, level, c.data);
    c.expect = cls.case_class;
    c.violates.clear();
    if (cls.case_class != CaseClass::Valid)
      for (const Violation& v : cls.findings) c.violates.push_back(v.rule);
    c.expected_output.reset();
    c.name += "/at-" + std::string(name(level));
    return c;
  });
}

std::vector<SupportCell> huge_cells(FeatureLevel level, const std::vector<OpKind>& ops, int per_operator) {
  // A streaming kernel's head and tail are counted in bytes and words: a bug in them shows with
  // the element sizes whose counts are not already multiples of the word. So the cells go round
  // the element sizes.
  // 8 and 1 first: the widest and the one whose heads and tails take every byte offset. REDUCE
  // reads its input past the caches, where kernels of 4-byte types switch (reduce_width.h in the
  // optimized backend): 4 first.
  constexpr size_t kMovementSizes[] = {8, 1, 4, 2}, kReduceSizes[] = {4, 1, 8, 2};
  // Among cells of one element size, lower first: for REDUCE, SUM, MAX and MIN (the functions
  // that stream) first.
  auto priority = [](const SupportCell& c) {
    if (c.op != OpKind::REDUCE) return 0;
    const bool streams = c.function == ReduceFunction::SUM || c.function == ReduceFunction::MAX ||
                         c.function == ReduceFunction::MIN;
    return streams ? 0 : 1;
  };
  // Rank 2 first: a huge case keeps its input to one row broadcast over a second dimension.
  auto rank_order = [](uint32_t rank) { return rank == 1 ? 9u : rank; };
  std::vector<SupportCell> out;
  for (OpKind op : ops_at(level, ops)) {
    const auto& sizes = op == OpKind::REDUCE ? kReduceSizes : kMovementSizes;
    std::vector<std::vector<SupportCell>> by_size(std::size(sizes));
    for (const SupportCell& c : support_cells(level))
      if (c.op == op && c.role == Role::INPUT)
        for (size_t k = 0; k < std::size(sizes); ++k)
          if (element_size(c.type) == sizes[k]) by_size[k].push_back(c);
    for (auto& cells : by_size)
      std::stable_sort(cells.begin(), cells.end(), [&](const SupportCell& a, const SupportCell& b) {
        return std::pair(priority(a), rank_order(a.rank)) < std::pair(priority(b), rank_order(b.rank));
      });
    // Round the element sizes, the next cell of each in the order above, skipping sizes the
    // operator has no cell of (left).
    std::vector<size_t> next(by_size.size(), 0);
    size_t left = 0;
    for (const auto& cells : by_size) left += cells.size();
    for (size_t k = 0, n = static_cast<size_t>(std::max(per_operator, 0)); n > 0 && left > 0; ++k) {
      const auto& cells = by_size[k % by_size.size()];
      size_t& at = next[k % by_size.size()];
      if (at >= cells.size()) continue;
      out.push_back(cells[at++]);
      --n, --left;
    }
  }
  return out;
}

std::vector<CellTarget> cell_targets(FeatureLevel level, const std::vector<OpKind>& ops) {
  std::vector<CellTarget> targets;
  for (OpKind op : ops_at(level, ops)) {
    for (const auto& f : functions_of(op)) {
      CaseSpec spec;
      spec.level = level;
      spec.op = op;
      spec.function = f;
      const RankRange ranks = rank_range(spec);
      std::vector<Role> data_roles, index_roles;
      for (Role r : roles(op)) (typed_separately(op, f, r) ? index_roles : data_roles).push_back(r);
      const auto data_types = common_types(spec, data_roles);
      const auto index_types =
          index_roles.empty() ? std::vector<DataType>{} : role_types(spec, index_roles[0]);
      if (data_types.empty()) continue;
      // Pair the lists so that both are walked completely at every rank.
      const size_t n = std::max(data_types.size(), index_types.size());
      for (uint32_t rank = ranks.lo; rank <= ranks.hi; ++rank)
        for (size_t j = 0; j < n; ++j) {
          CellTarget t{op, f, data_types[j % data_types.size()], std::nullopt, rank};
          if (!index_types.empty()) t.index_type = index_types[(j + rank) % index_types.size()];
          targets.push_back(t);
        }
    }
  }
  return targets;
}

rc::Gen<Case> valid_case_for_target(const CellTarget& target, FeatureLevel level, DataMode mode) {
  CaseSpec spec;
  spec.level = level;
  spec.op = target.op;
  spec.function = target.function;
  spec.data_type = target.data_type;
  spec.index_type = target.index_type;
  spec.rank = target.rank;
  spec.mode = mode;
  return case_for_spec(spec);
}

std::vector<SupportCell> cells_of(const Case& c) {
  std::vector<SupportCell> cells;
  const OpKind op = op_kind(c.op);
  const auto f = reduce_function(c.op);
  for (Role role : roles(op)) {
    const TensorDesc* t = tensor(c.op, role);
    const auto s = support(op, f, role, c.level);
    if (!t || !s || !s->allows(t->type) || t->rank() < s->min_rank || t->rank() > s->max_rank) continue;
    cells.push_back({op, f, role, t->type, t->rank()});
  }
  return cells;
}

}  // namespace dmlcert::props

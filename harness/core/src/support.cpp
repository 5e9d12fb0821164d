// The generic query over the operators' support rows. A level uses, per (op, function, role),
// the row of the highest table level at or below it, so "(as 1_0)" entries of the tables simply
// have no row of their own.
#include "dmlcert/support.h"

#include <algorithm>
#include <array>

namespace dmlcert {
namespace {

std::span<const SupportRow> rows_of(OpKind op) {
  static const std::array<std::span<const SupportRow>, kOpCount> rows = [] {
    std::array<std::span<const SupportRow>, kOpCount> a{};
    size_t i = 0;
    for_each_operator_type([&](auto tag) { a[i++] = decltype(tag)::type::support_rows(); });
    return a;
  }();
  return rows.at(static_cast<size_t>(op));
}

// `function` is a ReduceFunction value, or -1 for an operator without functions.
bool covers(const SupportRow& row, int64_t function) {
  if (row.functions.empty()) return true;
  return std::any_of(row.functions.begin(), row.functions.end(),
                     [function](ReduceFunction f) { return static_cast<int64_t>(f) == function; });
}

}  // namespace

bool RoleSupport::allows(DataType t) const {
  return std::find(types.begin(), types.end(), t) != types.end();
}

std::vector<std::optional<ReduceFunction>> functions_of(OpKind op) {
  if (!has_function(op)) return {std::nullopt};
  return {std::begin(kAllReduceFunctions), std::end(kAllReduceFunctions)};
}

std::optional<RoleSupport> support(OpKind op, std::optional<ReduceFunction> function, Role role,
                                   FeatureLevel level) {
  if (level < introduced_at(op)) return std::nullopt;
  int64_t fn = -1;
  if (has_function(op)) {
    if (!function || !is_valid(*function)) return std::nullopt;
    fn = static_cast<int64_t>(*function);
  }
  const FeatureLevel table = table_level(level);
  const SupportRow* best = nullptr;
  for (const SupportRow& r : rows_of(op))
    if (r.role == role && r.from <= table && covers(r, fn) && (!best || r.from > best->from)) best = &r;
  if (!best) return std::nullopt;
  return RoleSupport{best->min_rank, best->max_rank, {best->types.begin(), best->types.end()}};
}

std::vector<SupportCell> support_cells(FeatureLevel level) {
  std::vector<SupportCell> cells;
  for (OpKind op : all_ops())
    for (const auto& function : functions_of(op))
      for (Role role : roles(op)) {
        const auto s = support(op, function, role, level);
        if (!s) continue;
        for (DataType type : s->types)
          for (uint32_t rank = s->min_rank; rank <= s->max_rank; ++rank)
            cells.push_back({op, function, role, type, rank});
      }
  return cells;
}

}  // namespace dmlcert

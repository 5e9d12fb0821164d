// Coverage of support-table cells and rule IDs, and its printed table.
#include "coverage.h"

#include <algorithm>
#include <iomanip>
#include <sstream>

#include "dmlcert/rules.h"
#include "generators.h"

using dmlcert::props::cells_of;

namespace dmlcert::engine {

Coverage::Key Coverage::key(const SupportCell& c) {
  return {static_cast<int>(c.op), c.function ? static_cast<int>(*c.function) : -1, static_cast<int>(c.role),
          static_cast<int>(c.type), c.rank};
}

void Coverage::add(const Case& c, CaseClass actual, const std::vector<std::string>& rules_found) {
  for (const std::string& r : rules_found) ++rules_[r];
  if (actual != CaseClass::Valid) return;
  auto& level_cells = cells_[table_level(c.level)];
  for (const SupportCell& cell : cells_of(c)) ++level_cells[key(cell)];
}

void Coverage::merge(const Coverage& other) {
  for (const auto& [level, cells] : other.cells_)
    for (const auto& [k, n] : cells) cells_[level][k] += n;
  for (const auto& [r, n] : other.rules_) rules_[r] += n;
}

uint64_t Coverage::cell_hits(FeatureLevel level, const SupportCell& cell) const {
  const auto l = cells_.find(table_level(level));
  if (l == cells_.end()) return 0;
  const auto it = l->second.find(key(cell));
  return it == l->second.end() ? 0 : it->second;
}

uint64_t Coverage::rule_hits(const std::string& rule) const {
  const auto it = rules_.find(rule);
  return it == rules_.end() ? 0 : it->second;
}

std::vector<SupportCell> Coverage::missing_cells(FeatureLevel level) const {
  std::vector<SupportCell> out;
  for (const SupportCell& c : support_cells(level))
    if (cell_hits(level, c) == 0) out.push_back(c);
  return out;
}

std::vector<std::string> Coverage::missing_rules() const {
  std::vector<std::string> out;
  for (const Rule& r : rule_catalog())
    if (rule_hits(std::string(r.id)) == 0) out.emplace_back(r.id);
  return out;
}

std::string describe(const SupportCell& c) {
  std::string s(name(c.op));
  if (c.function) s += " " + name(*c.function);
  return s + " " + std::string(name(c.role)) + " " + std::string(name(c.type)) + " rank " +
         std::to_string(c.rank);
}

std::string Coverage::table(const std::vector<FeatureLevel>& levels) const {
  std::ostringstream os;
  for (FeatureLevel level : levels) {
    const auto cells = support_cells(level);
    // Rows: op or op+function; columns: data types. An entry is "hit/total" over the roles and
    // ranks of that (row, type), with the fewest hits of any of those cells in brackets.
    struct Entry {
      uint64_t hit = 0, total = 0, min_hits = UINT64_MAX;
    };
    std::map<std::string, std::map<int, Entry>> rows;
    std::vector<std::string> row_order;
    uint64_t hit = 0;
    for (const SupportCell& c : cells) {
      std::string row(name(c.op));
      if (c.function) row += " " + name(*c.function);
      if (!rows.count(row)) row_order.push_back(row);
      Entry& e = rows[row][static_cast<int>(c.type)];
      const uint64_t n = cell_hits(level, c);
      ++e.total;
      e.hit += n > 0;
      e.min_hits = std::min(e.min_hits, n);
      hit += n > 0;
    }
    os << "Coverage at feature level " << name(level) << ": " << hit << "/" << cells.size()
       << " support-table cells hit (entries: cells hit/cells over roles x ranks, [fewest hits])\n";
    os << "  " << std::left << std::setw(22) << "op/function";
    for (DataType t : kAllDataTypes) os << std::setw(12) << name(t);
    os << "\n";
    for (const std::string& row : row_order) {
      os << "  " << std::setw(22) << row;
      for (DataType t : kAllDataTypes) {
        const auto it = rows[row].find(static_cast<int>(t));
        if (it == rows[row].end()) {
          os << std::setw(12) << "-";
          continue;
        }
        const Entry& e = it->second;
        os << std::setw(12)
           << (std::to_string(e.hit) + "/" + std::to_string(e.total) + "[" + std::to_string(e.min_hits) +
               "]");
      }
      os << "\n";
    }
    const auto missing = missing_cells(level);
    for (size_t i = 0; i < missing.size() && i < 50; ++i)
      os << "  MISSING cell: " << describe(missing[i]) << "\n";
    if (missing.size() > 50) os << "  ... and " << missing.size() - 50 << " more MISSING cells\n";
  }
  os << "Rule IDs hit (cases in which the validator reported the rule):\n";
  for (const Rule& r : rule_catalog()) {
    const uint64_t n = rule_hits(std::string(r.id));
    os << "  " << std::left << std::setw(32) << r.id << std::setw(12) << name(r.tag)
       << (n ? std::to_string(n) : std::string("MISSING")) << "\n";
  }
  const auto missing = missing_rules();
  os << (missing.empty() ? "Every rule ID was hit.\n"
                         : std::to_string(missing.size()) + " rule IDs MISSING.\n");
  return os.str();
}

}  // namespace dmlcert::engine

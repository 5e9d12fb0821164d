// What a run of generated cases reached: support-table cells per level (counted from valid
// cases) and rule IDs (counted from what the validator found in each case), with the table that
// `dmlcert fuzz` prints.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "dmlcert/case.h"
#include "dmlcert/support.h"

namespace dmlcert::engine {

class Coverage {
 public:
  // Records one case as the validator classified it, with the rule IDs it found (descriptor
  // and data findings). Valid cases count towards the cells of their level's table.
  void add(const Case& c, CaseClass actual, const std::vector<std::string>& rules_found);
  void merge(const Coverage& other);

  uint64_t cell_hits(FeatureLevel level, const SupportCell& cell) const;
  uint64_t rule_hits(const std::string& rule) const;
  // Cells of support_cells(level) no valid case reached.
  std::vector<SupportCell> missing_cells(FeatureLevel level) const;
  // Catalog rule IDs no case reached.
  std::vector<std::string> missing_rules() const;
  const std::map<std::string, uint64_t>& rules() const { return rules_; }

  // Per level, per op/function x data type: cells hit / cells, with MISSING entries named; then
  // every rule ID with its count, MISSING ones called out.
  std::string table(const std::vector<FeatureLevel>& levels) const;

 private:
  using Key = std::tuple<int, int, int, int, uint32_t>;  // op, function (-1), role, type, rank
  static Key key(const SupportCell& c);
  std::map<FeatureLevel, std::map<Key, uint64_t>> cells_;
  std::map<std::string, uint64_t> rules_;
};

std::string describe(const SupportCell& cell);  // "REDUCE ARGMAX output UINT32 rank 3"

}  // namespace dmlcert::engine

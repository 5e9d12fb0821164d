// Certification results (docs/design.md, "Certification"): counts per support table cell and per
// rule, the failures with their repro files, and the verdict. Written as JSON (complete,
// mergeable across shards), JUnit XML, Markdown, a self-contained HTML page and a terminal
// matrix.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "dmlcert/runner.h"
#include "dmlcert/support.h"
#include "shape_groups.h"

namespace dmlcert::cert {

using Counts = std::array<uint64_t, kOutcomeCount>;  // indexed by Outcome

// A cell's or rule's status: the worst outcome it saw (crash, timeout, oob, failed, mistrusted,
// unimplemented, passed, in that order), or nullopt when nothing ran for it.
std::optional<Outcome> status(const Counts& c);
bool is_pass(const Counts& c);  // ran, and every case passed (skipped cases do not count)
void add(Counts& into, const Counts& from);

struct CellResult {
  SupportCell cell;
  Counts counts{};
  std::vector<std::string> repros;  // case files of failures, as given to the report
};

enum class RuleSection { Invalid, Unspecified, Robustness };
std::string_view name(RuleSection s);  // "invalid", "unspecified", "robustness"

struct RuleResult {
  std::string rule;  // rule ID, or a robustness check name ("GATHERELEMENTS.INDEX_RANGE.extreme")
  RuleSection section = RuleSection::Invalid;
  Counts counts{};
  std::vector<std::string> repros;
};

struct Failure {
  std::string where;  // the cell or rule key, or "corpus"
  std::string case_name;
  Outcome outcome = Outcome::Failed;
  std::string detail;
  std::string repro;         // the case file
  std::string shrunk;        // the shrunk case file, when shrinking found a smaller one
  std::string sequence;      // state-dependent failures: the cases that reproduce it in one process
  std::string confirmation;  // "reproduced alone", "state-dependent", "not reproduced", "unchecked"
  std::string reproduce;     // the command line
  uint64_t seed = 0;
};

struct Shard {
  uint32_t index = 0, count = 1;
  bool operator==(const Shard&) const = default;
};

struct Report {
  int format = 1;
  std::string backend;       // the --backend spec
  std::string backend_name;  // what the backend calls itself
  FeatureLevel level = kDefaultFeatureLevel;
  FeatureLevel backend_max_level = kDefaultFeatureLevel;
  std::string budget;
  std::vector<Shard> shards;  // the shards this report covers (one, or several once merged)
  double seconds = 0;
  std::vector<CellResult> cells;  // every support cell at `level`, in support_cells() order
  std::vector<RuleResult> rules;  // invalid rules, unspecified rules, robustness checks
  Counts corpus{};
  std::vector<Failure> failures;
  engine::ShapeRecurrence recurrence;  // the shapes run more than once (shape_groups.h)
};

Counts totals(const Report& r);
// Every shard 0..n-1 of one sharding is present (an unsharded run is 0/1).
bool complete(const Report& r);
// The cells that keep the backend from certification at r.level: not passing, or not run.
std::vector<const CellResult*> missing_cells(const Report& r);
// Certified: complete, the backend claims the level, every cell passes with nothing
// unimplemented, and no rule check, robustness check or corpus case failed.
bool certified(const Report& r);
// Cases run per cell (every outcome but skipped): the fewest, the median and the most.
struct CellSpread {
  uint64_t min = 0, median = 0, max = 0;
};
CellSpread cases_per_cell(const Report& r);

// A cell's stable key: "REDUCE.SUM/input/FLOAT32/r3", "SLICE/output/INT8/r1".
std::string cell_key(const SupportCell& c);
// The row a cell belongs to in the matrices: the operator (with its function) and, for tensors
// whose type is chosen separately (indices, ARGMAX/ARGMIN outputs), the role.
std::string matrix_row(const SupportCell& c);

std::string to_json(const Report& r);
std::optional<Report> report_from_json(const std::string& text, std::string* error);
// Sums shard reports of one run (same backend, level and budget; disjoint shards).
std::optional<Report> merge(const std::vector<Report>& parts, std::string* error);

// `link_base`: the directory the output file will be written to, so that links to repro files
// are relative to it.
std::string to_junit(const Report& r);
std::string to_markdown(const Report& r, const std::string& link_base);
std::string to_html(const Report& r, const std::string& link_base);
// The terminal summary: the matrix (rows by operator, columns by type) and the verdict.
std::string to_text(const Report& r);

}  // namespace dmlcert::cert

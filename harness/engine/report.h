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

namespace dmlcert::cert {

using Counts = std::array<uint64_t, kOutcomeCount>;  // indexed by Outcome

// A cell's or rule's status: the worst outcome it saw (crash, timeout, oob, failed, mistrusted,
// unimplemented, passed, in that order), or nullopt when nothing ran for it.
std::optional<Outcome> status(const Counts& c);
bool is_pass(const Counts& c);  // ran, and every case passed (skipped cases do not count)
void add(Counts& into, const Counts& from);

// Planned cases that were never run, and why (the first reason that applied): "after a timeout in
// this cell", "after 3 timeouts in GATHER_ELEMENTS", or why the whole run stopped.
struct NotRun {
  uint64_t count = 0;
  std::string reason;
  void add(const std::string& why) {
    if (count++ == 0) reason = why;
  }
};

struct CellResult {
  SupportCell cell;
  Counts counts{};
  std::vector<std::string> repros;  // case files of failures, as given to the report
  NotRun not_run;
};

enum class RuleSection { Invalid, Unspecified, Robustness };
std::string_view name(RuleSection s);  // "invalid", "unspecified", "robustness"

struct RuleResult {
  std::string rule;  // rule ID, or a robustness check name ("GATHERELEMENTS.INDEX_RANGE.extreme")
  RuleSection section = RuleSection::Invalid;
  Counts counts{};
  std::vector<std::string> repros;
  NotRun not_run;
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
  std::string backend_output;           // what the backend printed during the call (capped)
  uint64_t backend_output_dropped = 0;  // bytes it printed beyond the cap
};

// What the backend printed (isolated backends: the child's stdout and stderr, never forwarded to
// dmlcert's own output). Each call keeps the first 64 KiB; the report keeps a few samples.
struct BackendOutput {
  struct Sample {
    std::string where, text;
    uint64_t dropped = 0;
  };
  uint64_t calls = 0;  // calls during which the backend printed anything
  uint64_t bytes = 0;  // everything it printed, kept or not
  std::vector<Sample> samples;
  static constexpr size_t kSamples = 3;
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
  NotRun corpus_not_run;
  std::vector<Failure> failures;
  BackendOutput backend_output;
  // Why the run ended before every planned case ran (interrupted, a time limit, the backend stopped
  // answering or could not be loaded); empty when it ran to the end. Such a report is incomplete
  // and never certifies. A report written while the run goes on says so here too.
  std::string stopped;
};

Counts totals(const Report& r);
// Every shard 0..n-1 of one sharding is present (an unsharded run is 0/1).
bool complete(const Report& r);
// The cells that keep the backend from certification at r.level: not passing, or not run.
std::vector<const CellResult*> missing_cells(const Report& r);
// Certified: complete, not stopped early, the backend claims the level, every cell passes with
// nothing unimplemented, and no rule check, robustness check or corpus case failed.
bool certified(const Report& r);

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

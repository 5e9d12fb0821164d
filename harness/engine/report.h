// Certification results (docs/design.md, "Certification"): counts per support table cell and per
// rule, the failures with their repro files, and the verdict. Written as JSON (complete,
// mergeable across shards), JUnit XML, Markdown, a self-contained HTML page and a terminal
// matrix.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "check_id.h"
#include "dmlcert/code_coverage.h"
#include "dmlcert/runner.h"
#include "dmlcert/support.h"
#include "failure.h"
#include "shape_groups.h"

namespace dmlcert::cert {

using Counts = std::array<uint64_t, kOutcomeCount>;  // indexed by Outcome

// A cell's or rule's status: the worst outcome it saw (crash, timeout, oob, late-write, limit,
// failed, mistrusted, flaky, passed, unimplemented, in that order), or nullopt when nothing ran for
// it. Unimplemented only when every case was: cases outside the scope never hide a pass.
std::optional<Outcome> status(const Counts& c);
// Ran, and every case in the scope passed (skipped cases do not count); a flaky case counts as a
// pass unless `flaky_fails` (certify --flaky-fails).
bool is_pass(const Counts& c, bool flaky_fails = false);
void add(Counts& into, const Counts& from);

// A function of the backend's code, for its code coverage: its edges are [first_edge, first_edge +
// edge_count) of CodeCoverage::edges, the first one its entry. `line` is that entry's.
struct CodeFunction {
  std::string name, file;
  uint32_t line = 0;
  uint32_t first_edge = 0, edge_count = 0;
};

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
  double seconds = 0;  // wall time of its cases: drawing them, their oracle, the calls, the checks
};

struct RuleResult {
  std::string rule;  // rule ID, or a robustness check name ("GATHERELEMENTS.INDEX_RANGE.extreme")
  RuleSection section = RuleSection::Invalid;
  Counts counts{};
  std::vector<std::string> repros;
  NotRun not_run;
  double seconds = 0;
};

// One corpus case (each is a testcase of its own in JUnit); Report::corpus sums them.
struct CorpusCaseResult {
  std::string name;
  Counts counts{};
  double seconds = 0;
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

// The backend's calls and their wall time (isolated backends: from the request to the answer).
struct BackendTime {
  uint64_t calls = 0;
  double seconds = 0;  // all calls together
  double slowest = 0;  // the slowest call
  double per_call() const { return calls ? seconds / static_cast<double>(calls) : 0; }
};

struct Shard {
  uint32_t index = 0, count = 1;
  bool operator==(const Shard&) const = default;
};

// What a certification covers (docs/design.md, "Scope"): the operators asked for (--ops) and, of
// their support-table cells, the (operator, function, type) combinations the backend claims
// through implements(). Cases outside the scope are not failures; every verdict names the scope.
struct Scope {
  std::vector<OpKind> asked;  // --ops; empty: every operator
  struct Claim {
    OpKind op;
    std::optional<ReduceFunction> function;
    DataType type;  // of the operator's main input
    bool claimed = false;
  };
  // Every (operator, function, input type) of the support table at the level, of the operators
  // asked for, and whether the backend claims it.
  std::vector<Claim> claims;
  struct IndexClaim {
    OpKind op;
    DataType type;
    bool claimed = false;
  };
  // Of the operators asked for that have an index tensor, every index type the table allows at the
  // level, and whether the backend takes it (Backend::implements_index_type).
  std::vector<IndexClaim> index_claims;
  // The operators the run checked: those asked for of which the backend claims a cell it can be
  // given a case of. None when the claims were never asked (a run that could not start).
  std::optional<std::vector<OpKind>> checked;
  bool checks(OpKind op) const {
    return !checked || std::find(checked->begin(), checked->end(), op) != checked->end();
  }
};

// What the backend did with the class U cases of one rule (docs/design.md, "Behaviour profile"):
// of `cases`, how many it rejected, and how many executed to a result that fits each reading
// ("clamped", "first write wins", "nan-ignoring", ..., or "other"). A case whose readings agree
// fits several, so the counts may add up to more than `cases`.
struct BehaviourCounts {
  std::string rule;
  uint64_t cases = 0;
  std::map<std::string, uint64_t> by_behaviour;
  // The behaviour every case fits, if one does.
  std::optional<std::string> every_time() const;
  bool consistent() const { return every_time().has_value(); }
};

// A known failure list (--expect) held against the run (docs/design.md, "Expected failures").
struct ExpectationCheck {
  std::string file;
  struct Entry {
    // A failing key as failing_keys() names it, or (`cause`) a cause's name as the reports give it
    // (report_summary.h, Cause::name), `*` matching any run of characters in either.
    std::string pattern, reason, expires;  // expires: YYYY-MM-DD, or empty
    std::vector<std::string> matched;      // the failing keys it covers
    bool expired = false;
    // What the failures it covers may be (expectation_statuses()): "fail", "crash", "flaky" or
    // "either". A known wrong output that starts to crash is a new failure.
    std::string status = "either";
    bool cause = false;
    // Nothing it could cover ran here (an operator outside this run's scope, a check of another
    // level): it neither passes nor fails, and is kept.
    bool not_run = false;
  };
  std::vector<Entry> entries;
  std::vector<std::string> known;       // failing keys some entry covers
  std::vector<std::string> unexpected;  // failing keys no entry covers: these fail the run
  // certify --unexpected-passes-fail: an entry that covers nothing fails the run too, so that a
  // baseline cannot outlive its bugs unnoticed.
  bool unexpected_passes_fail = false;
  // Entries that cover no failing key of a check that ran: what they describe passes now.
  std::vector<const Entry*> unexpected_passes() const;
  // Entries whose checks did not run here.
  std::vector<const Entry*> not_run() const;
  std::vector<const Entry*> expired() const;
  bool holds() const {
    return unexpected.empty() && expired().empty() &&
           (!unexpected_passes_fail || unexpected_passes().empty());
  }
};

struct Report {
  int format = 1;
  std::string backend;       // the --backend spec
  std::string backend_name;  // what the backend calls itself
  FeatureLevel level = kDefaultFeatureLevel;
  FeatureLevel backend_max_level = kDefaultFeatureLevel;
  std::string budget;
  // How FLOAT16 reductions were judged (--fp16-accumulation): the verdict names a relaxed profile.
  AccumulationProfile accumulation = AccumulationProfile::Default;
  std::vector<Shard> shards;  // the shards this report covers (one, or several once merged)
  double seconds = 0;
  std::string started;          // when the run started, UTC, ISO 8601
  std::string dmlcert_version;  // of the dmlcert that ran it
  uint64_t seed = 0;
  Scope scope;
  std::vector<CellResult> cells;  // every support cell at `level`, in support_cells() order
  std::vector<RuleResult> rules;  // invalid rules, unspecified rules, robustness checks
  Counts corpus{};
  NotRun corpus_not_run;
  std::vector<CorpusCaseResult> corpus_cases;  // every corpus case in the scope, in corpus order
  std::vector<Failure> failures;
  BackendOutput backend_output;
  std::vector<BehaviourCounts> profile;  // one per class U rule seen, in rule catalog order
  std::optional<ExpectationCheck> expectations;
  // Why the run ended before every planned case ran (interrupted, a time limit, the backend stopped
  // answering or could not be loaded); empty when it ran to the end. Such a report is incomplete
  // and never certifies. A report written while the run goes on says so here too.
  std::string stopped;
  engine::ShapeRecurrence recurrence;  // the shapes run more than once (shape_groups.h)
  // How the backend's processes were kept apart from dmlcert (backends/plugin/containment.h): what
  // this machine allowed and, when it lacks a namespace, what that leaves open. Empty in-process.
  std::string containment;
  // The run's time bound (0: none), and whether it is the budget's default or --time-limit.
  double time_limit_seconds = 0;
  bool time_limit_is_budgets = false;
  BackendTime backend_time;
  // Why repro files stopped being written (the repro directory ran out of space): the failures
  // found after it have none. Empty when every repro file was written.
  std::string repro_error;
  // certify --flaky-fails: a flaky case (one that passed when run again alone) fails its cell or
  // check, as a failure would. By default it is reported, by name, and does not.
  bool flaky_fails = false;
  // How much of the backend's own code the run reached (docs/coverage.md): the plugin's edges and
  // what each operator's calls reached; nullopt when the backend cannot tell (in-process). The
  // functions and source lines are named after the run (code_symbols.h). Per edge, where it is in
  // the source: its file (an index into code_files) and line, 0 for unknown; what an lcov
  // tracefile's lines are made of, not kept in the JSON report.
  std::optional<CodeCoverage> code_coverage;
  std::vector<CodeFunction> code_functions;
  struct EdgeSource {
    uint32_t file = 0, line = 0;
  };
  std::vector<std::string> code_files;
  std::vector<EdgeSource> edge_sources;
};
// The flaky failures of a report (Outcome::Flaky): what passed when run again alone.
std::vector<const Failure*> flaky_failures(const Report& r);

// A backend is slow when its calls take kSlowCallSeconds or more on average: a certification's
// cases are small, and a backend answers them in micro- to milliseconds; at half a second a call,
// the quick budget's cases alone would take a day.
inline constexpr double kSlowCallSeconds = 0.5;
bool slow(const Report& r);
// "4.02 s per call on average over 16 calls (slowest 4.03 s)"; empty when no call was timed.
std::string speed_text(const Report& r);
// Planned cases that did not run, over every cell, rule check and the corpus.
uint64_t not_run_count(const Report& r);

Counts totals(const Report& r);
// Every shard 0..n-1 of one sharding is present (an unsharded run is 0/1).
bool complete(const Report& r);
// A cell the backend does not claim (Scope), or did not claim for any case that reached it:
// outside the scope.
bool outside_scope(const Report& r, const CellResult& c);
// The cells in the scope that keep the backend from certification at r.level: not passing, or
// not run.
std::vector<const CellResult*> missing_cells(const Report& r);
// Certified for its scope: complete, not stopped early, the backend claims the level and at least
// one cell, every cell in the scope passes, and no rule check, robustness check or corpus case
// failed (a flaky one counts as failed only with Report::flaky_fails).
bool certified(const Report& r);
// What a failing cell, rule check or corpus case is called in expectation files and reports:
// the cell key, "invalid/RULE", "unspecified/RULE", "robustness/CHECK", "corpus/CASE-NAME".
std::vector<std::string> failing_keys(const Report& r);
// The scope in words: "all operators", "SLICE (all 11 types)", "SLICE (FLOAT32, FLOAT16),
// REDUCE (SUM: all 6 types; MAX: FLOAT32)"; "nothing" when the backend claims no cell.
std::string scope_text(const Report& r);
// What lies outside it: "SLICE1, SCATTER_ND, REDUCE, GATHER_ELEMENTS not asked for (--ops)",
// "SLICE on FLOAT64, INT64 not claimed"; empty when nothing does.
std::string outside_text(const Report& r);
// The verdict line every format leads with: "CERTIFIED at 5_0 for SLICE (all 11 types)",
// "CERTIFIED at 5_0 (all operators)", "NOT CERTIFIED at 5_0 for ...: why".
std::string verdict(const Report& r);
// The run's exit status for this report: 0 certified (or, with --expect, every failure known and
// no entry expired), else 1.
int exit_status(const Report& r);
// Cases run per cell (every outcome but skipped): the fewest, the median and the most.
struct CellSpread {
  uint64_t min = 0, median = 0, max = 0;
};
CellSpread cases_per_cell(const Report& r);

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

// `dmlcert certify` on the engine: the corpus, valid cases for every support-table cell, invalid
// cases per rule, unspecified cases per U rule and robustness cases, planned as work items and
// run through the engine, with the results counted per cell and per rule (report.h).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "engine.h"
#include "report.h"

namespace dmlcert::engine {

// How much work a budget buys (cases per cell and data mode, per rule, per robustness check).
struct Budget {
  std::string name;
  int per_cell_mode = 1, per_rule = 4, per_robustness = 4;
  int size = 25;              // rapidcheck size: bounds ranks' extents and data
  double shrink_seconds = 1;  // per failure
  int max_shrinks = 10;       // failures shrunk per run (the first ones found)
  // Families of related cases per cell, run back to back (sequences.h), about ten cases each; a
  // fraction spreads them over the cells (0.25: one family for every fourth cell).
  double families_per_cell = 1;
  // Cases per cell (a fraction spreads them likewise) and per rule at each table level below the
  // certification level.
  double per_lower_cell = 1;
  int per_lower_rule = 1;
  // Cells per operator whose cases are also asked huge (props::huge_cells): tens of MiB, past the
  // caches, where fast kernels switch to streaming stores; the element sizes 8, 1, 4 and 2 in turn
  // (REDUCE: 4, 1, 8 and 2),
  // every other one packed (props::CaseSize::HugePacked).
  int huge_per_operator = 0;
  // Cases per cell at the edge of an integer width (props::CaseSize::PastUint8 ...): one dimension
  // just past 2^8, 2^15 or 2^16, and the positions the answer depends on past it. With one, the
  // edges go round the ranks; with three, every cell meets each.
  int width_edges_per_cell = 0;
  // Large cases per cell (2^7 to 2^18 elements) in the layout fast kernels take their vector paths
  // on (props::CaseSize::LargePacked): every tensor packed with no slack, the count innermost; the
  // data modes in turn.
  int large_packed_per_cell = 0;
  // The wall time a run of this budget may take, however slow or crashy the backend (the default
  // of --time-limit): at the bound it stops, its reports say what did not run and why. Several
  // times what the budget takes on two cores, and for quick under 10 minutes with the time to
  // settle, shut down and write the reports.
  double time_bound_seconds = 0;
};
std::optional<Budget> budget_named(const std::string& name);  // smoke, quick, standard, thorough

struct CertifyOptions {
  std::string backend;  // the --backend spec, for the report
  FeatureLevel level = kDefaultFeatureLevel;
  Budget budget;
  cert::Shard shard;
  // Workers that split the run (or this shard of it) between them, each with a backend process
  // of its own, their reports merged: the same cases and counts as one worker, in about 1/jobs
  // of the time on as many cores. A state-dependent failure may show in another worker's order.
  // With stop_after_failures, one worker runs.
  unsigned jobs = 1;
  std::vector<OpKind> ops;  // empty: all
  uint64_t seed = 0;
  // Stop after this many failures (0: run everything). The report then covers only the cases
  // run so far; its totals count the cases up to and including the last failure.
  int stop_after_failures = 0;
  std::vector<Case> corpus;  // replayed first (cases above the level or outside ops are left out)
  EngineOptions engine;      // its on_progress counts tasks done and planned
  std::string containment;   // how the backend's processes are contained, for the report

  // Hangs cost seconds, not hours (docs/design.md, "Isolation"). After a timeout (or a memory or
  // CPU limit, as costly) the rest of that cell or rule check is not run; after
  // timeouts_per_operator of them in one operator, the rest of that operator; after max_timeouts
  // in the run, the run stops calling the backend.
  int timeouts_per_operator = 3;
  int max_timeouts = 10;
  // A flaky case (a timeout that passed when run again alone with a longer deadline, or a wrong
  // result that never came back) fails its cell or check, as a failure would (--flaky-fails). By
  // default it is reported by name and does not.
  bool flaky_fails = false;
  // Stop, with the report marked incomplete, after this long (0: no limit). The run's time bound
  // (interrupt.h) ends a call, a confirmation or a shrink in progress at the same moment.
  double time_limit_seconds = 0;
  bool time_limit_is_budgets = false;  // the budget's default bound, not --time-limit
  // Called with the report so far, marked as still running, every checkpoint_seconds: a run that
  // is killed from outside (a CI time limit) has already written a report.
  std::function<void(const cert::Report&)> on_checkpoint;
  double checkpoint_seconds = 10;
};

// Certifies the backend `open` gives (a fresh one for every confirmation), judged by `oracle`.
// Returns nullopt and says why when the repro directory cannot be made. A backend that cannot be
// opened gives a report in which nothing ran (stopped_report).
std::optional<cert::Report> run_certification(const CertifyOptions& options, const BackendFactory& open,
                                              Oracle& oracle, std::string* error);

// Now, UTC, ISO 8601: when a report's run started.
std::string now_utc();

// The report of a certification that could not start: every planned cell and rule check is
// marked not run, for `why` (a backend that crashed while loading, say).
cert::Report stopped_report(const CertifyOptions& options, const std::string& backend_name,
                            const std::string& why);

// The corpus directory certify replays: DMLCERT_CORPUS, then share/dmlcert/corpora next to the
// installed executable, then the source tree's corpora/ (when built from one). Empty when none
// exists.
std::string find_corpus(const std::string& source_corpus = {});

}  // namespace dmlcert::engine

// `dmlcert fuzz` on the engine: a deterministic sequence of generated cases (mostly valid,
// walking every support-table cell; invalid round-robin over the rules; unspecified round-robin
// over the U rules), run against the backend under test with an oracle. Case `index` depends
// only on (seed, index), so shards and parallel workers take disjoint indices and any split
// gives the same cases, failures and report.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "coverage.h"
#include "engine.h"
#include "generators.h"
#include "shape_groups.h"

namespace dmlcert::engine {

struct FuzzOptions {
  uint64_t seed = 1;
  uint64_t cases = 1000;                   // across all shards; ignored when duration is set
  std::optional<double> duration_seconds;  // run until this much time has passed
  std::vector<OpKind> ops;                 // empty: all
  std::optional<FeatureLevel> level;       // unset: cycle through kFuzzLevels
  uint32_t shard_index = 0, shard_count = 1;
  unsigned jobs = 1;  // parallel workers, each with its own backend
  double shrink_seconds = 20;
  int max_size = 50;     // rapidcheck size range 0..max_size, spread over the cases
  EngineOptions engine;  // its on_progress counts cases done and planned
  // Coverage-guided (--coverage-guided; docs/coverage.md): a case whose call reached edges of the
  // plugin's code that no earlier call had joins the worker's corpus, and every other case is a
  // mutation of a corpus entry instead of a fresh plan. Needs a plugin compiled with
  // SanitizerCoverage; the run then depends on what the calls reached, not on (seed, index) alone.
  bool guided = false;
  // Where the corpus's cases are written as case files (empty: nowhere), and read from at the
  // start: they run first, and those that reach new edges seed the corpus.
  std::string corpus_dir;
};

// The levels a run without --level cycles through (the tables that change after 1_0).
inline constexpr FeatureLevel kFuzzLevels[] = {FeatureLevel::L2_1, FeatureLevel::L3_0, FeatureLevel::L4_1,
                                               FeatureLevel::L5_0};

// What case `index` of a run is: derived from (seed, index) alone.
struct FuzzPlan {
  uint64_t index = 0;
  FeatureLevel level = kDefaultFeatureLevel;
  CaseClass case_class = CaseClass::Valid;
  std::string rule;                         // invalid and unspecified plans
  std::optional<props::CellTarget> target;  // valid plans
  props::DataMode mode = props::DataMode::Exact;
  uint64_t case_seed = 0;
  int size = 0;
};

class FuzzPlanner {
 public:
  explicit FuzzPlanner(const FuzzOptions& options);
  FuzzPlan plan(uint64_t index) const;
  // A plan near `parent`, as libFuzzer mutates an input, but on the generator's choices, so that
  // every mutant is a well-formed case of the same class: a fresh seed for the same generator, a
  // larger or smaller size, another data mode, or (valid plans) a neighbouring cell of the same
  // operator (another type or rank). `choice` picks which, deterministically.
  FuzzPlan mutate(const FuzzPlan& parent, uint64_t index, uint64_t choice) const;
  // Why this run cannot use `plan` (one read from a corpus): its level, cell or rule is not among
  // this run's (--ops, --level), or the rule cannot be broken there; empty when it can.
  std::string refuses(const FuzzPlan& plan) const;
  rc::Gen<Case> generator(const FuzzPlan& plan) const;
  const std::vector<FeatureLevel>& levels() const { return levels_; }

 private:
  std::optional<FeatureLevel> level_for_rule(const std::string& rule, FeatureLevel preferred,
                                             bool invalid) const;
  FuzzOptions options_;
  std::vector<FeatureLevel> levels_;
  std::map<FeatureLevel, std::vector<props::CellTarget>> targets_;
  std::vector<std::string> invalid_rules_, unspecified_rules_;
};

struct FuzzFailure {
  uint64_t index = 0;
  cert::Failure failure;
};

struct ClassStats {
  uint64_t cases = 0;
  double seconds = 0;  // generation + run
  double rate() const { return seconds > 0 ? static_cast<double>(cases) / seconds : 0; }
};

// Sizes of the output's dimensions, by position, at one rank: how often each dimension is
// larger than 1 (a generator that spends its size budget on outer dimensions shows here).
struct DimensionStats {
  uint64_t cases = 0;
  std::array<uint64_t, 8> above_one{};
};

struct FuzzResult {
  uint64_t cases = 0, generation_failures = 0;
  double seconds = 0;
  std::map<std::string, uint64_t> outcomes;   // "passed" -> n
  std::map<std::string, ClassStats> classes;  // "valid" -> n, time (as the validator classified)
  std::map<std::string, uint64_t> ranks, types, ops, modes;  // distribution of generated cases
  std::map<uint32_t, DimensionStats> dimensions;             // valid cases, by output rank
  ShapeRecurrence shapes;  // shapes a worker's backend was asked for more than once
  Coverage coverage;
  std::vector<FuzzFailure> failures;  // in index order
  // Guided runs: corpus entries kept (cases that reached new edges), cases that were mutations,
  // and the plugin's edges reached and in all (0 of 0: the plugin has no counters).
  uint64_t corpus = 0, mutated = 0, corpus_loaded = 0;
  uint64_t edges_reached = 0, edges_total = 0;
  std::string corpus_error;                 // why corpus files stopped being written
  std::vector<std::string> corpus_skipped;  // corpus files not run, each with why
  std::vector<FeatureLevel> levels;
  bool interrupted = false;  // SIGINT or SIGTERM stopped the run before its end
  void merge(FuzzResult&& other);
};

// `make_backend` gives each worker its backend under test (and confirmation a fresh one).
FuzzResult run_fuzz(const BackendFactory& make_backend, Oracle& oracle, const FuzzOptions& options);

// Human summary: counts, throughput, distributions and the coverage table.
std::string fuzz_summary(const FuzzResult& r);
// The --report JSON: counts per outcome and class, coverage, failures with seeds and paths,
// distributions; throughput and the shapes each worker was asked more than once unless `timings`
// is false (the rest is the same for any --jobs).
std::string fuzz_report_json(const FuzzResult& r, const FuzzOptions& options, bool timings = true);

}  // namespace dmlcert::engine

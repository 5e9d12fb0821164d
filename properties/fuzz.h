// The differential fuzz engine behind `dmlcert fuzz`: a deterministic sequence of generated
// cases (mostly valid, walking every support-table cell; invalid round-robin over the rules;
// unspecified round-robin over the U rules), each run against the backend under test with the
// reference as the oracle. Failures are saved before the backend runs, shrunk (time-capped) and
// saved again.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "coverage.h"
#include "dmlcert/runner.h"
#include "generators.h"

namespace dmlcert::props {

struct FuzzOptions {
  uint64_t seed = 1;
  uint64_t cases = 1000;                   // across all shards; ignored when duration is set
  std::optional<double> duration_seconds;  // run until this much time has passed
  std::vector<OpKind> ops;                 // empty: all
  std::optional<FeatureLevel> level;       // unset: cycle through kFuzzLevels
  uint32_t shard_index = 0, shard_count = 1;
  std::string repro_dir = "dmlcert-repros";
  std::string backend_spec = "optimized";  // for the printed `dmlcert replay` line
  bool save_cases = true;                  // write each case before running it (and keep failures)
  double shrink_seconds = 20;
  int max_size = 50;  // rapidcheck size range 0..max_size, spread over the cases
  // Generated valid cases are small; the cap only bounds what invalid descriptors declaring huge
  // TotalTensorSizeInBytes (T.ELEMENT_LIMIT) make the runner allocate.
  RunOptions run_options = {AccumulationProfile::Default, uint64_t{8} << 20};
  std::ostream* log = nullptr;  // failure lines
  // Called after every case with the progress so far.
  std::function<void(uint64_t done, uint64_t failures, double elapsed_seconds)> on_progress;
};

// The levels a run without --level cycles through (the tables that change after 1_0).
inline constexpr FeatureLevel kFuzzLevels[] = {FeatureLevel::L2_1, FeatureLevel::L3_0, FeatureLevel::L4_1,
                                               FeatureLevel::L5_0};

// What case `index` of a run is: derived from (seed, index) alone, so the same seed gives the
// same run and shards can take disjoint indices.
struct FuzzPlan {
  uint64_t index = 0;
  FeatureLevel level = kDefaultFeatureLevel;
  CaseClass case_class = CaseClass::Valid;
  std::string rule;                  // invalid and unspecified plans
  std::optional<CellTarget> target;  // valid plans
  DataMode mode = DataMode::Exact;
  uint64_t case_seed = 0;
  int size = 0;
};

class FuzzPlanner {
 public:
  explicit FuzzPlanner(const FuzzOptions& options);
  FuzzPlan plan(uint64_t index) const;
  rc::Gen<Case> generator(const FuzzPlan& plan) const;
  const std::vector<FeatureLevel>& levels() const { return levels_; }

 private:
  std::optional<FeatureLevel> level_for_rule(const std::string& rule, FeatureLevel preferred,
                                             bool invalid) const;
  FuzzOptions options_;
  std::vector<FeatureLevel> levels_;
  std::map<FeatureLevel, std::vector<CellTarget>> targets_;
  std::vector<std::string> invalid_rules_, unspecified_rules_;
};

struct FuzzFailure {
  uint64_t index = 0, case_seed = 0;
  std::string outcome, detail;
  std::string path, shrunk_path;  // saved case files (empty when not saved)
  Case shrunk;
};

struct ClassStats {
  uint64_t cases = 0;
  double seconds = 0;  // generation + run
  double rate() const { return seconds > 0 ? cases / seconds : 0; }
};

struct FuzzResult {
  uint64_t cases = 0, generation_failures = 0;
  double seconds = 0;
  std::map<std::string, uint64_t> outcomes;   // "passed" -> n
  std::map<std::string, ClassStats> classes;  // "valid" -> n, time (as the validator classified)
  std::map<std::string, uint64_t> ranks, types, ops, modes;  // distribution of generated cases
  Coverage coverage;
  std::vector<FuzzFailure> failures;
  std::vector<FeatureLevel> levels;
};

bool is_failure(Outcome o);  // Failed, Mistrusted, Crash, Timeout, Oob

FuzzResult run_fuzz(Backend& under_test, Backend& reference, const FuzzOptions& options);

// Human summary: counts, throughput, distributions and the coverage table.
std::string fuzz_summary(const FuzzResult& r);
// The --report JSON: counts per outcome and class, coverage, failures with seeds and paths,
// throughput, distributions.
std::string fuzz_report_json(const FuzzResult& r, const FuzzOptions& options);

}  // namespace dmlcert::props

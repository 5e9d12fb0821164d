// Which rounds a workload runs (RoundPlan) and what the reporter records and drops
// (RoundReporter), on made-up rates: nothing here is timed.
#include "rounds.h"

#include <gtest/gtest.h>

#include <ostream>
#include <string>
#include <vector>

namespace dmlcert::bench {
namespace {

// Records opt/control = ratio for `workload` in round r (the optimized backend at 30 GB/s).
void record_control(RoundPlan& plan, int round, double ratio, const std::string& workload = "reduce_x") {
  plan.record(workload, "optimized", round, 30e9);
  plan.record(workload, "control", round, 30e9 / ratio);
}

struct PlanCase {
  const char* name;
  int rounds, max_rounds;
  std::vector<double> control;  // opt/control in rounds 0, 1, ...: each recorded before the next is asked
  std::vector<bool> runs;       // whether rounds 0, 1, ... run
};

void PrintTo(const PlanCase& c, std::ostream* os) {
  *os << c.name;
}

class Plan : public testing::TestWithParam<PlanCase> {};

TEST_P(Plan, RunsTheRoundsItShould) {
  const PlanCase& c = GetParam();
  RoundPlan plan(c.rounds, c.max_rounds);
  std::vector<bool> runs;
  for (int r = 0; r < static_cast<int>(c.runs.size()); ++r) {
    runs.push_back(plan.runs("reduce_x", r));
    if (runs.back() && r < static_cast<int>(c.control.size())) record_control(plan, r, c.control[r]);
  }
  EXPECT_EQ(runs, c.runs);
}

INSTANTIATE_TEST_SUITE_P(
    RoundPlan, Plan,
    testing::Values(
        // No control measured (a filter left it out): nothing to settle, no round added.
        PlanCase{"the_first_rounds_run_without_a_control", 2, 4, {}, {true, true, false, false}},
        PlanCase{"a_control_within_5_percent_adds_no_round", 2, 4, {1.04, 1.05}, {true, true, false, false}},
        PlanCase{"a_control_0_95_away_adds_no_round", 2, 4, {0.953, 0.953}, {true, true, false, false}},
        // 1.10 in every round: rounds are added up to the cap of 4, and round 4 was never registered.
        PlanCase{"a_stray_control_adds_rounds_up_to_the_cap",
                 2,
                 4,
                 {1.1, 1.1, 1.1, 1.1},
                 {true, true, true, true, false}},
        PlanCase{"a_control_0_94_away_adds_a_round", 2, 3, {0.94, 0.94, 0.94}, {true, true, true}},
        // The medians after rounds 0, 1 and 2: 1.2, 1.1 (of 1.2 and 1.0) and 1.0 (of 1.2, 1.0, 1.0).
        PlanCase{"rounds_stop_once_the_control_settles",
                 1,
                 6,
                 {1.2, 1.0, 1.0, 1.2},
                 {true, true, true, false, false}},
        // The median of 1.0, 1.3 and 1.0 is 1.0 (their mean, 1.1, would add a round), as in
        // bench/ratios.py.
        PlanCase{"one_stray_round_does_not_keep_the_control_open",
                 3,
                 4,
                 {1.0, 1.3, 1.0},
                 {true, true, true, false}}),
    [](const testing::TestParamInfo<PlanCase>& row) { return std::string(row.param.name); });

TEST(RoundPlan, ARoundIsDecidedOnceSoThatAllItsImplementationsRun) {
  RoundPlan plan(1, 3);
  record_control(plan, 0, 1.2);
  ASSERT_TRUE(plan.runs("reduce_x", 1));  // the first benchmark of round 1 asks
  record_control(plan, 1, 0.8);           // its median is now 1.0: settled
  EXPECT_TRUE(plan.runs("reduce_x", 1));  // the rest of round 1 still runs
  EXPECT_FALSE(plan.runs("reduce_x", 2));
}

TEST(RoundPlan, EachWorkloadHasItsOwnControl) {
  RoundPlan plan(1, 2);
  record_control(plan, 0, 1.2, "slice_x");
  record_control(plan, 0, 1.0, "reduce_x");
  EXPECT_TRUE(plan.runs("slice_x", 1));
  EXPECT_FALSE(plan.runs("reduce_x", 1));
}

// Collects what the RoundReporter passes on.
class Collect : public benchmark::BenchmarkReporter {
 public:
  explicit Collect(std::vector<std::string>* names) : names_(names) {}
  bool ReportContext(const Context&) override { return true; }
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& r : runs) names_->push_back(r.benchmark_name());
  }

 private:
  std::vector<std::string>* names_;
};

benchmark::BenchmarkReporter::Run timed(const std::string& name, int round, double bytes_per_second) {
  benchmark::BenchmarkReporter::Run run;
  run.run_name.function_name = name;
  run.run_name.time_type = "real_time";
  run.counters["round"] = round;
  run.counters["bytes_per_second"] = bytes_per_second;
  return run;
}

TEST(RoundReporter, RecordsEachRunsRateAndDropsTheRoundsNotNeeded) {
  std::vector<std::string> passed;
  RoundPlan plan(1, 2);
  RoundReporter reporter(std::make_unique<Collect>(&passed), &plan);
  benchmark::BenchmarkReporter::Run skipped = timed("reduce_y/optimized", 1, 0);
  skipped.error_occurred = true;
  skipped.error_message = kRoundNotNeeded;
  benchmark::BenchmarkReporter::Run failed = timed("reduce_y/torch", 0, 0);
  failed.error_occurred = true;
  failed.error_message = "execute failed";
  reporter.ReportRuns(
      {timed("reduce_x/optimized", 0, 36e9), skipped, failed, timed("reduce_x/control", 0, 30e9)});
  EXPECT_EQ(passed, (std::vector<std::string>{"reduce_x/optimized/real_time", "reduce_y/torch/real_time",
                                              "reduce_x/control/real_time"}));
  EXPECT_EQ(plan.control_ratios("reduce_x"), std::vector<double>{1.2});
  EXPECT_TRUE(plan.control_ratios("reduce_y").empty());
}

}  // namespace
}  // namespace dmlcert::bench

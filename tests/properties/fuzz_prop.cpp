// The fuzz engine: one run reaches every support-table cell at 2_1, 3_0, 4_1 and 5_0 and every
// rule ID (reference against itself, so any failure is a generator or oracle bug), and the same
// seed gives the same run.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "reference/reference.h"
#include "scratch_dir.h"
#include "testing/prop_util.h"
#include "testing/slice1_off_by_one_backend.h"

namespace dmlcert::props {
namespace {

using namespace engine;

// A fuzz run of the reference against itself, in process.
FuzzResult reference_run(FuzzOptions o) {
  std::unique_ptr<Oracle> oracle = reference::make_oracle();
  o.engine.backend_spec = "reference";
  o.engine.repro_dir = test::scratch_dir("fuzz_prop").string();
  o.engine.run.oracle_is_under_test = true;
  return run_fuzz([] { return proptest::backend_or_null("reference"); }, *oracle, o);
}

// The acceptance run: `dmlcert fuzz --backend reference --vs reference --cases 20000 --seed 1`.
TEST(Fuzz, ReferenceRunHitsEveryCellAndEveryRule) {
  FuzzOptions o;
  o.seed = 1;
  o.cases = 20000;
  o.jobs = 2;
  const FuzzResult r = reference_run(o);
  std::cout << fuzz_summary(r);
  EXPECT_EQ(r.failures.size(), 0u);
  for (FeatureLevel level : proptest::tested_levels()) {
    SCOPED_TRACE(std::string(name(level)));
    for (const SupportCell& c : r.coverage.missing_cells(level))
      ADD_FAILURE() << "MISSING cell " << describe(c);
  }
  for (const std::string& rule : r.coverage.missing_rules()) ADD_FAILURE() << "MISSING rule " << rule;
}

TEST(Fuzz, SameSeedSameRunDifferentSeedDifferentRun) {
  auto cases_of = [](uint64_t seed) {
    FuzzOptions o;
    o.seed = seed;
    const FuzzPlanner planner(o);
    std::vector<std::string> out;
    for (uint64_t i = 0; i < 200; ++i) {
      const FuzzPlan p = planner.plan(i);
      out.push_back(to_json(sample(planner.generator(p), p.case_seed, p.size).value(), false));
    }
    return out;
  };
  EXPECT_EQ(cases_of(1), cases_of(1));
  EXPECT_NE(cases_of(1), cases_of(2));
}

TEST(Fuzz, ShardsTakeDisjointPartsOfTheSameRun) {
  FuzzOptions o;
  o.cases = 60;
  const FuzzResult whole = reference_run(o);
  uint64_t total = 0;
  for (uint32_t i = 0; i < 3; ++i) {
    o.shard_index = i, o.shard_count = 3;
    total += reference_run(o).cases;
  }
  EXPECT_EQ(total, whole.cases);
}

// Parallel workers split the same run: one worker and two give the same report (timings aside).
TEST(Fuzz, OneJobAndTwoJobsGiveTheSameReport) {
  FuzzOptions o;
  o.seed = 3;
  o.cases = 3000;
  o.jobs = 1;
  const std::string one = fuzz_report_json(reference_run(o), o, /*timings=*/false);
  o.jobs = 2;
  const std::string two = fuzz_report_json(reference_run(o), o, /*timings=*/false);
  EXPECT_EQ(one, two);
}

// The same with failures: a backend with an injected SLICE1 bug fails some cases, and one worker and
// two find the same failures at the same indices, shrink them to the same files and print the same
// repro lines (each run writes into its own directory, which is set aside in the comparison).
TEST(Fuzz, OneJobAndTwoJobsFindTheSameFailures) {
  std::unique_ptr<Oracle> oracle = reference::make_oracle();
  auto report = [&](unsigned jobs) {
    FuzzOptions o;
    o.seed = 7;
    o.cases = 40;  // the injected bug fails 8 of them (at 300, 120 failures took 30 s to shrink)
    o.ops = {OpKind::SLICE1};
    o.level = FeatureLevel::L5_0;
    o.max_size = 40;
    o.jobs = jobs;
    const std::string dir = test::scratch_dir("fuzz_jobs_" + std::to_string(jobs)).string();
    o.engine.repro_dir = dir;
    o.engine.backend_spec = "selftest";
    o.shrink_seconds = 60;  // a bound that is never reached, so shrinking ends the same way
    const FuzzResult r = run_fuzz([] { return proptest::make_slice1_off_by_one_backend(); }, *oracle, o);
    EXPECT_GE(r.failures.size(), 2u) << jobs << " job(s): the injected bug should fail several cases";
    std::string json = fuzz_report_json(r, o, /*timings=*/false);
    for (size_t at; (at = json.find(dir)) != std::string::npos;) json.replace(at, dir.size(), "DIR");
    return json;
  };
  const std::string one = report(1);
  EXPECT_EQ(one, report(2));
  EXPECT_NE(one.find("shrunk_case_file"), std::string::npos);
}

}  // namespace
}  // namespace dmlcert::props

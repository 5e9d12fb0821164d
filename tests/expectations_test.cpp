// Known failures (--expect): a run passes while every failure is a known one, fails on a new one
// or an expired entry, and names the entries whose failures are gone.
#include "expectations.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <tuple>

#include "report_summary.h"

namespace dmlcert::cert {
namespace {

namespace fs = std::filesystem;

struct GlobRow {
  const char* pattern;
  const char* key;
  bool matches;
};

class GlobMatch : public testing::TestWithParam<GlobRow> {};

TEST_P(GlobMatch, MatchesKeysAsAShellWouldMatchNames) {
  EXPECT_EQ(glob_match(GetParam().pattern, GetParam().key), GetParam().matches)
      << GetParam().pattern << " vs " << GetParam().key;
}

INSTANTIATE_TEST_SUITE_P(
    Keys, GlobMatch,
    testing::Values(GlobRow{"SLICE/input/INT8/r3", "SLICE/input/INT8/r3", true},
                    GlobRow{"SLICE/input/INT8/r3", "SLICE/input/INT8/r4", false},
                    GlobRow{"REDUCE.SUM/*/FLOAT16/*", "REDUCE.SUM/output/FLOAT16/r2", true},
                    GlobRow{"REDUCE.SUM/*/FLOAT16/*", "REDUCE.SUM_SQUARE/input/FLOAT16/r2", false},
                    GlobRow{"invalid/SLICE1.*", "invalid/SLICE1.WINDOW_BOUNDS", true},
                    GlobRow{"*", "corpus/anything at all", true},
                    GlobRow{"*/r8", "SLICE/input/INT8/r8", true},
                    GlobRow{"*/r8", "SLICE/input/INT8/r80", false}));

// What the engine asks during a run (EngineOptions::known): an entry covers a key until the day
// after it expires.
struct ExpectsRow {
  const char* name;
  const char* pattern;
  const char* expires;
  const char* key;
  bool expected;
};

class ExpectsDuringTheRun : public testing::TestWithParam<ExpectsRow> {};

TEST_P(ExpectsDuringTheRun, CoversMatchingKeysUntilTheEntryExpires) {
  const Expectations e{"known.txt", {{GetParam().pattern, "a reason", GetParam().expires, {}, false}}};
  EXPECT_EQ(expects(e, GetParam().key, "2026-11-25"), GetParam().expected);
}

INSTANTIATE_TEST_SUITE_P(
    Keys, ExpectsDuringTheRun,
    testing::Values(ExpectsRow{"matching_without_expiry", "REDUCE.SUM/*", "", "REDUCE.SUM/input/FLOAT16/r3",
                               true},
                    ExpectsRow{"not_matching", "REDUCE.SUM/*", "", "REDUCE.L1/input/FLOAT16/r3", false},
                    ExpectsRow{"expires_today", "corpus/*", "2026-11-25", "corpus/x", true},
                    ExpectsRow{"expired_yesterday", "corpus/*", "2026-11-24", "corpus/x", false}),
    [](const auto& row) { return std::string(row.param.name); });

// A one-shard report with cells that pass or fail as `failing` says, and one rule check.
Report report_with(const std::vector<std::pair<std::string, bool>>& cells) {
  Report r;
  r.shards = {{0, 1}};
  for (const auto& [type, fails] : cells) {
    CellResult c;
    c.cell = {OpKind::SLICE, std::nullopt, Role::INPUT, *parse_data_type(type), 4};
    c.counts[static_cast<size_t>(fails ? Outcome::Failed : Outcome::Passed)] = 2;
    r.cells.push_back(c);
  }
  r.scope.claims.push_back({OpKind::SLICE, std::nullopt, DataType::INT8, true});
  return r;
}

Expectations entries(std::vector<ExpectationCheck::Entry> e) {
  return {"known.txt", std::move(e)};
}

TEST(Expectations, AKnownFailurePassesTheRun) {
  Report r = report_with({{"INT8", true}, {"INT16", false}});
  EXPECT_EQ(exit_status(r), 1);
  r.expectations =
      check_expectations(entries({{"SLICE/input/INT8/*", "ticket 12", "", {}, false}}), r, "2026-11-25");
  EXPECT_TRUE(r.expectations->holds());
  EXPECT_EQ(r.expectations->known, std::vector<std::string>{"SLICE/input/INT8/r4"});
  EXPECT_EQ(exit_status(r), 0);
  EXPECT_FALSE(certified(r)) << "a known failure is still a failure: the verdict does not change";
}

TEST(Expectations, ANewFailureFailsTheRun) {
  Report r = report_with({{"INT8", true}, {"INT16", true}});
  r.expectations =
      check_expectations(entries({{"SLICE/input/INT8/*", "ticket 12", "", {}, false}}), r, "2026-11-25");
  EXPECT_FALSE(r.expectations->holds());
  EXPECT_EQ(r.expectations->unexpected, std::vector<std::string>{"SLICE/input/INT16/r4"});
  EXPECT_EQ(exit_status(r), 1);
}

TEST(Expectations, AFixedFailureIsAnUnexpectedPass) {
  Report r = report_with({{"INT8", true}, {"INT16", false}});
  r.expectations = check_expectations(entries({{"SLICE/input/INT8/*", "ticket 12", "", {}, false},
                                               {"SLICE/input/INT16/*", "ticket 13", "", {}, false}}),
                                      r, "2026-11-25");
  ASSERT_EQ(r.expectations->unexpected_passes().size(), 1u);
  EXPECT_EQ(r.expectations->unexpected_passes().front()->pattern, "SLICE/input/INT16/*");
  EXPECT_EQ(exit_status(r), 0) << "an unexpected pass is reported, not failed";
}

TEST(Expectations, AnExpiredEntryFailsTheRun) {
  Report r = report_with({{"INT8", true}});
  r.expectations = check_expectations(entries({{"SLICE/input/INT8/*", "ticket 12", "2026-11-24", {}, false}}),
                                      r, "2026-11-25");
  ASSERT_EQ(r.expectations->expired().size(), 1u);
  EXPECT_EQ(exit_status(r), 1);
  r.expectations = check_expectations(entries({{"SLICE/input/INT8/*", "ticket 12", "2026-11-25", {}, false}}),
                                      r, "2026-11-25");
  EXPECT_EQ(exit_status(r), 0) << "an entry expires after its day, not on it";
}

struct FileRow {
  std::string name, text;
  std::string error;  // empty: the file loads
};

class ExpectationFile : public testing::TestWithParam<FileRow> {};

TEST_P(ExpectationFile, LoadsOrSaysWhichLineIsWrong) {
  const fs::path path = fs::temp_directory_path() / ("dmlcert_expect_" + GetParam().name + ".txt");
  std::ofstream(path) << GetParam().text;
  std::string error;
  const auto loaded = load_expectations(path.string(), &error);
  if (GetParam().error.empty()) {
    ASSERT_TRUE(loaded) << error;
    ASSERT_EQ(loaded->entries.size(), 2u);
    const bool causes = GetParam().name == "causes_and_statuses";
    EXPECT_EQ(loaded->entries[0].pattern,
              causes ? "REDUCE.SUM: wrong output, memory fault or hang" : "REDUCE.SUM/*/FLOAT16/*");
    EXPECT_EQ(loaded->entries[0].cause, causes);
    EXPECT_EQ(loaded->entries[0].status, "either");
    EXPECT_EQ(loaded->entries[0].expires, "2027-03-01");
    EXPECT_EQ(loaded->entries[0].reason, "fp16 sums accumulate in fp16 (ticket 41)");
    EXPECT_EQ(loaded->entries[1].expires, "");
    EXPECT_EQ(loaded->entries[1].status, causes ? "fail" : "either");
  } else {
    EXPECT_FALSE(loaded);
    EXPECT_EQ(error, path.string() + GetParam().error);
  }
  fs::remove(path);
}

INSTANTIATE_TEST_SUITE_P(
    Files, ExpectationFile,
    testing::Values(
        FileRow{"good",
                "# known failures of acme-npu 2.3\n"
                "REDUCE.SUM/*/FLOAT16/*  expires=2027-03-01  fp16 sums accumulate in fp16 (ticket 41)\n"
                "\n"
                "invalid/SLICE1.WINDOW_BOUNDS   the window check is missing  # ticket 42\n",
                ""},
        FileRow{"causes_and_statuses",
                "cause \"REDUCE.SUM: wrong output, memory fault or hang\" status=either  expires=2027-03-01 "
                "fp16 sums accumulate in fp16 (ticket 41)  # a comment\n"
                "invalid/SLICE1.WINDOW_BOUNDS status=fail  the window check is missing\n",
                ""},
        FileRow{"bad_status", "SLICE/* status=broken a reason\n",
                ":1: status='broken' is not one of fail, crash, flaky, either"},
        FileRow{"unclosed_cause", "cause \"SLICE: wrong output a reason\n",
                ":1: the cause's name has no closing '\"'"},
        FileRow{"bad_date", "SLICE/* expires=2027-13-01 a reason\n",
                ":1: expires='2027-13-01' is not a date YYYY-MM-DD"},
        FileRow{"no_reason", "# ok\nSLICE/*\n",
                ":2: 'SLICE/*' has no reason: say why the failure is known (a ticket, a plan)"}),
    [](const testing::TestParamInfo<FileRow>& row) { return row.param.name; });

TEST(Expectations, AnEarlierReportServesAsTheList) {
  Report earlier = report_with({{"INT8", true}, {"INT16", false}});
  const fs::path path = fs::temp_directory_path() / "dmlcert_expect_earlier_report.json";
  std::ofstream(path) << to_json(earlier);
  std::string error;
  const auto loaded = load_expectations(path.string(), &error);
  ASSERT_TRUE(loaded) << error;
  ASSERT_EQ(loaded->entries.size(), 1u);
  EXPECT_EQ(loaded->entries[0].pattern, "SLICE/input/INT8/r4");
  fs::remove(path);
}

// A report whose failures are those given ("cells/..." case IDs), each failing its own cell.
Report report_failing(const std::vector<std::tuple<std::string, Outcome, std::string>>& failures) {
  Report r;
  r.shards = {{0, 1}};
  r.scope.claims.push_back({OpKind::GATHER_ELEMENTS, std::nullopt, DataType::INT32, true});
  for (const auto& [where, outcome, detail] : failures) {
    Failure f;
    f.id = *CheckId::parse(where);
    f.counts_at = f.id.check();
    f.outcome = outcome;
    f.detail = detail;
    f.op = f.id.subject();
    r.failures.push_back(f);
    CellResult c;
    c.cell = f.id.cell;
    c.counts[static_cast<size_t>(outcome)] = 1;
    if (std::none_of(r.cells.begin(), r.cells.end(), [&](const CellResult& x) { return x.cell == c.cell; }))
      r.cells.push_back(c);
  }
  return r;
}

// One bug (negative indices read as unsigned) fails other cells under another seed; a second bug
// is another cause.
const std::string kRejected =
    "valid case got status invalid-argument: GATHERELEMENTS.INDEX_RANGE: index 4294967295 out of range";
const std::string kWrong = "wrong output: 1 of 4 elements differ; first at [0]: expected 1, got 2";
Report seed_1() {
  return report_failing({{"cells/GATHER_ELEMENTS/indices/INT32/r3/random/0", Outcome::Failed, kRejected},
                         {"cells/GATHER_ELEMENTS/input/FLOAT32/r2/exact/1", Outcome::Failed, kRejected}});
}
Report seed_2() {
  return report_failing({{"cells/GATHER_ELEMENTS/indices/INT64/r5/special/0", Outcome::Failed, kRejected}});
}
Report seed_2_with_a_second_bug() {
  return report_failing({{"cells/GATHER_ELEMENTS/indices/INT64/r5/special/0", Outcome::Failed, kRejected},
                         {"cells/SLICE/input/INT8/r4/exact/0", Outcome::Failed, kWrong}});
}

Expectations baseline_of(const Report& r) {
  return {"baseline.txt", baseline_entries(r, "seed1.json")};
}

TEST(Baseline, NamesEachCauseOnceWithTheStatusItShowed) {
  const auto entries = baseline_entries(seed_1(), "seed1.json");
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_TRUE(entries[0].cause);
  EXPECT_EQ(entries[0].pattern, "GATHER_ELEMENTS: valid case rejected (invalid-argument)");
  EXPECT_EQ(entries[0].status, "fail");
}

TEST(Baseline, HoldsForAnotherSeedOfTheSameBug) {
  Report r = seed_2();
  r.expectations = check_expectations(baseline_of(seed_1()), r, "2026-11-25");
  EXPECT_TRUE(r.expectations->holds()) << expectations_text(*r.expectations);
  EXPECT_EQ(r.expectations->known, std::vector<std::string>{"GATHER_ELEMENTS/indices/INT64/r5"});
  EXPECT_EQ(exit_status(r), 0);
}

TEST(Baseline, FailsOnASecondBugAndNamesIt) {
  Report r = seed_2_with_a_second_bug();
  r.expectations = check_expectations(baseline_of(seed_1()), r, "2026-11-25");
  EXPECT_FALSE(r.expectations->holds());
  EXPECT_EQ(r.expectations->unexpected, std::vector<std::string>{"SLICE/input/INT8/r4"});
  EXPECT_EQ(exit_status(r), 1);
}

TEST(Baseline, AKnownWrongOutputThatStartsToCrashIsNew) {
  Expectations e{"known.txt", {}};
  e.entries.push_back({"SLICE: wrong output, memory fault or hang", "ticket 7", "", {}, false, "fail", true});
  Report r = report_failing({{"cells/SLICE/input/INT8/r4/exact/0", Outcome::Crash,
                              "backend process killed by signal 11 (Segmentation fault)"}});
  r.expectations = check_expectations(e, r, "2026-11-25");
  EXPECT_FALSE(r.expectations->holds()) << "status=fail does not cover a crash";
  e.entries[0].status = "either";
  r.expectations = check_expectations(e, r, "2026-11-25");
  EXPECT_TRUE(r.expectations->holds()) << expectations_text(*r.expectations);
}

TEST(Baseline, AFunctionsCauseCoversThatFunctionWhereverItFails) {
  const std::string sum_wrong = "wrong output: 2 of 9 elements differ; first at [0]: expected 2, got 3";
  Expectations e{"known.txt", {}};
  e.entries.push_back(
      {"REDUCE.SUM: wrong output, memory fault or hang", "ticket 8", "", {}, false, "either", true});
  // Another seed finds the bug in MAX too: the report names the cause "REDUCE", and SUM's failures
  // stay known while MAX's are new.
  Report r = report_failing({{"cells/REDUCE.SUM/input/FLOAT32/r2/random/0", Outcome::Failed, sum_wrong},
                             {"cells/REDUCE.MAX/input/FLOAT32/r2/random/0", Outcome::Failed, sum_wrong}});
  r.expectations = check_expectations(e, r, "2026-11-25");
  EXPECT_EQ(r.expectations->known, std::vector<std::string>{"REDUCE.SUM/input/FLOAT32/r2"});
  EXPECT_EQ(r.expectations->unexpected, std::vector<std::string>{"REDUCE.MAX/input/FLOAT32/r2"});
}

// A GATHER_ELEMENTS cell that ran and passed: the bug of seed_1() is fixed.
Report gather_fixed() {
  Report r = report_failing({});
  CellResult c;
  c.cell = {OpKind::GATHER_ELEMENTS, std::nullopt, Role::INDICES, DataType::INT32, 3};
  c.counts[static_cast<size_t>(Outcome::Passed)] = 4;
  r.cells.push_back(c);
  return r;
}

TEST(Baseline, UnexpectedPassesFailTheRunWhenAskedTo) {
  Report r = gather_fixed();
  r.expectations = check_expectations(baseline_of(seed_1()), r, "2026-11-25");
  ASSERT_EQ(r.expectations->unexpected_passes().size(), 1u);
  EXPECT_TRUE(r.expectations->holds());
  r.expectations->unexpected_passes_fail = true;
  EXPECT_FALSE(r.expectations->holds());
  EXPECT_NE(expectations_text(*r.expectations).find("--unexpected-passes-fail"), std::string::npos);
}

// A baseline of a wider run, held against a run whose scope leaves the operator out (--ops, or a
// backend that claims less): its entries did not run here. They are kept, neither passing nor
// failing, and say so.
TEST(Baseline, AnEntryWhoseChecksDidNotRunHereIsKeptNotPassed) {
  Expectations e = baseline_of(seed_1());
  e.entries.push_back({"REDUCE.SUM/*", "ticket 9", "", {}, false, "either", false});
  Report r = report_with({{"INT8", false}});  // SLICE only
  r.expectations = check_expectations(e, r, "2026-11-25");
  EXPECT_TRUE(r.expectations->unexpected_passes().empty()) << expectations_text(*r.expectations);
  ASSERT_EQ(r.expectations->not_run().size(), 2u);
  r.expectations->unexpected_passes_fail = true;
  EXPECT_TRUE(r.expectations->holds()) << expectations_text(*r.expectations);
  EXPECT_NE(
      expectations_text(*r.expectations)
          .find("not run here (kept): cause \"GATHER_ELEMENTS: valid case rejected (invalid-argument)\" "
                "REDUCE.SUM/*"),
      std::string::npos)
      << expectations_text(*r.expectations);
}

TEST(Baseline, ItsTextIsAFileThatExpectReads) {
  const fs::path path = fs::temp_directory_path() / "dmlcert_baseline_round_trip.txt";
  std::ofstream(path) << baseline_text(seed_1(), "seed1.json");
  std::string error;
  const auto loaded = load_expectations(path.string(), &error);
  ASSERT_TRUE(loaded) << error;
  ASSERT_EQ(loaded->entries.size(), 1u);
  EXPECT_TRUE(loaded->entries[0].cause);
  EXPECT_EQ(loaded->entries[0].pattern, "GATHER_ELEMENTS: valid case rejected (invalid-argument)");
  EXPECT_EQ(loaded->entries[0].status, "fail");
  EXPECT_EQ(loaded->entries[0].reason,
            "2 failures in seed1.json, e.g. cells/GATHER_ELEMENTS/indices/INT32/r3/random/0");
  fs::remove(path);
}

}  // namespace
}  // namespace dmlcert::cert

// Known failures (--expect): a run passes while every failure is a known one, fails on a new one
// or an expired entry, and names the entries whose failures are gone.
#include "expectations.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

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
    EXPECT_EQ(loaded->entries[0].pattern, "REDUCE.SUM/*/FLOAT16/*");
    EXPECT_EQ(loaded->entries[0].expires, "2027-03-01");
    EXPECT_EQ(loaded->entries[0].reason, "fp16 sums accumulate in fp16 (ticket 41)");
    EXPECT_EQ(loaded->entries[1].expires, "");
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

}  // namespace
}  // namespace dmlcert::cert

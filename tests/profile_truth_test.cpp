// The behaviour profile counts what the backend was given. A GATHER_ELEMENTS plugin logs, for
// each call, whether the index bytes it received hold one out of range (call_log_plugin.cpp), and
// rejects exactly those calls; its certification's profile row for GATHERELEMENTS.INDEX_RANGE must
// count as many cases, all rejected, as the log has such calls. A harness that judged an index out
// of range that never reached the backend (one element of a broadcast tensor written alone, say)
// would count cases the log does not have.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "scratch_dir.h"

namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

struct Tally {
  int out_of_range = 0, in_range = 0;
};

Tally read_log(const fs::path& p) {
  Tally t;
  std::ifstream in(p);
  for (std::string line; std::getline(in, line);) {
    if (line == "out-of-range rejected")
      ++t.out_of_range;
    else if (line == "in-range executed")
      ++t.in_range;
    else
      ADD_FAILURE() << "unexpected log line: " << line;
  }
  return t;
}

struct ProfileTruthRow {
  std::string name, budget;
};

std::ostream& operator<<(std::ostream& os, const ProfileTruthRow& r) {
  return os << r.name;
}

class ProfileTruth : public testing::TestWithParam<ProfileTruthRow> {};

TEST_P(ProfileTruth, CountsExactlyTheCallsTheBackendLogged) {
  const ProfileTruthRow& row = GetParam();
  const fs::path dir = dmlcert::test::scratch_dir("profile_truth_" + row.name);
  const fs::path log = dir / "calls.log";
  const std::string command = "DMLCERT_CALL_LOG=" + log.string() + " " + DMLCERT_CLI +
                              " certify --backend plugin:" + DMLCERT_CALL_LOG_PLUGIN +
                              " --level 5_0 --ops GATHER_ELEMENTS --budget " + row.budget + " --repro-dir " +
                              (dir / "repros").string() + " --report " + (dir / "r.json").string() + " >" +
                              (dir / "out.txt").string() + " 2>&1";
  const int raw = std::system(command.c_str());
  std::stringstream text;
  text << std::ifstream(dir / "out.txt").rdbuf();
  ASSERT_TRUE(WIFEXITED(raw) && WEXITSTATUS(raw) == 0) << text.str();
  std::stringstream report;
  report << std::ifstream(dir / "r.json").rdbuf();
  const json r = json::parse(report.str());
  const Tally calls = read_log(log);

  json row_of_rule;
  for (const json& b : r["behaviour_profile"])
    if (b["rule"] == "GATHERELEMENTS.INDEX_RANGE") row_of_rule = b;
  ASSERT_FALSE(row_of_rule.is_null()) << r["behaviour_profile"].dump(2);
  ASSERT_GT(calls.out_of_range, 0) << "the certification gave the backend no index out of range";
  EXPECT_EQ(row_of_rule["cases"], calls.out_of_range) << row_of_rule.dump();
  EXPECT_EQ(row_of_rule["behaviours"], json({{"rejected", calls.out_of_range}})) << row_of_rule.dump();
  fs::remove_all(dir);
}

// Quick is the first budget with the robustness cases' extreme indices.
INSTANTIATE_TEST_SUITE_P(GatherElements, ProfileTruth,
                         testing::Values(ProfileTruthRow{"smoke", "smoke"},
                                         ProfileTruthRow{"quick", "quick"}),
                         [](const testing::TestParamInfo<ProfileTruthRow>& row) { return row.param.name; });

}  // namespace

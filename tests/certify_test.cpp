// `dmlcert certify` against plugins that misbehave in one way each: the run finishes, the
// misbehaviour is reported with the right status in exactly the right cells (every other cell
// passes), and its repro files replay. Also: shard reports merge to the unsharded totals.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

struct Command {
  int exit_code = -1;
  std::string out;
};

Command run(const std::string& args) {
  Command c;
  std::string cmd = std::string(DMLCERT_CLI) + " " + args + " 2>/dev/null";
  FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) return c;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) c.out.append(buf, n);
  int status = ::pclose(p);
  c.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return c;
}

json read_json(const fs::path& p) {
  std::ifstream in(p);
  return json::parse(in);
}

fs::path scratch(const std::string& name) {
  fs::path dir = fs::temp_directory_path() / ("dmlcert_certify_test_" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

struct MisbehaviourCase {
  std::string name;
  std::string plugin;
  std::string args;      // level, operators, timeout
  std::string expected;  // the status of the affected cells
  std::function<bool(const json& cell)> affected;
};

std::ostream& operator<<(std::ostream& os, const MisbehaviourCase& c) {
  return os << c.name;
}

class CertifyMisbehaviour : public testing::TestWithParam<MisbehaviourCase> {};

TEST_P(CertifyMisbehaviour, ReportsTheFaultInExactlyTheAffectedCells) {
  const MisbehaviourCase& m = GetParam();
  fs::path dir = scratch(m.name);
  fs::create_directories(dir / "none");  // an empty corpus: the generated cases do the catching
  const std::string plugin = "plugin:" + m.plugin;
  Command c = run("certify --backend " + plugin + " " + m.args + " --budget smoke --corpus " +
                  (dir / "none").string() + " --repro-dir " + (dir / "repros").string() + " --report " +
                  (dir / "report.json").string() + " --junit " + (dir / "junit.xml").string() + " --html " +
                  (dir / "report.html").string());
  EXPECT_EQ(c.exit_code, 1) << "a misbehaving plugin must not certify\n" << c.out;
  ASSERT_TRUE(fs::exists(dir / "report.json")) << c.out;
  json report = read_json(dir / "report.json");
  EXPECT_FALSE(report["certified"].get<bool>());

  size_t affected = 0;
  std::string repro;
  for (const json& cell : report["cells"]) {
    SCOPED_TRACE(cell["key"].get<std::string>());
    if (m.affected(cell)) {
      ++affected;
      EXPECT_EQ(cell["status"], m.expected);
      ASSERT_FALSE(cell["repros"].empty());
      repro = cell["repros"][0].get<std::string>();
      EXPECT_TRUE(fs::exists(repro)) << repro;
    } else {
      EXPECT_EQ(cell["status"], "passed");
    }
  }
  EXPECT_GT(affected, 0u);
  // Rejections are unaffected: the plugins misbehave only on descriptors they accept.
  for (const json& rule : report["rules"]) {
    if (rule["section"] == "invalid") {
      EXPECT_NE(rule["status"], m.expected) << rule["rule"];
    }
  }

  // The repro replays: it fails on the plugin the same way, and passes on the reference.
  Command replay = run("replay " + repro + " --backend " + plugin);
  EXPECT_EQ(replay.exit_code, 1) << replay.out;
  EXPECT_NE(replay.out.find("0 passed, 1 failed"), std::string::npos) << replay.out;
  Command reference = run("replay " + repro + " --backend reference");
  EXPECT_EQ(reference.exit_code, 0) << reference.out;
}

bool op_is(const json& cell, const char* op) {
  return cell["op"] == op;
}

// Every failing call costs a restart of the isolation child, so each plugin is certified at the
// lowest level that still has cells it breaks and cells it must pass: 2_1 (rank 4 only) except for
// the rank-3 crash, which needs 3_0.
INSTANTIATE_TEST_SUITE_P(
    Plugins, CertifyMisbehaviour,
    testing::Values(MisbehaviourCase{"segfault_on_rank3_inputs", DMLCERT_CRASH_RANK3_PLUGIN,
                                     "--level 3_0 --ops SLICE1,GATHER_ELEMENTS", "crash",
                                     [](const json& cell) { return cell["rank"] == 3; }},
                    MisbehaviourCase{"hang_on_gather_elements", DMLCERT_HANG_GATHER_PLUGIN,
                                     "--level 2_1 --ops SLICE,GATHER_ELEMENTS --timeout 0.5", "timeout",
                                     [](const json& cell) { return op_is(cell, "GATHER_ELEMENTS"); }},
                    MisbehaviourCase{"write_one_element_past_output", DMLCERT_OOB_WRITE_PLUGIN,
                                     "--level 2_1 --ops SLICE,SLICE1", "oob",
                                     [](const json& cell) { return op_is(cell, "SLICE1"); }},
                    MisbehaviourCase{"write_into_input", DMLCERT_INPUT_WRITE_PLUGIN,
                                     "--level 2_1 --ops SLICE,SCATTER_ND", "oob",
                                     [](const json& cell) { return op_is(cell, "SCATTER_ND"); }}),
    [](const testing::TestParamInfo<MisbehaviourCase>& info) { return info.param.name; });

TEST(CertifyShards, MergedShardReportsEqualTheUnshardedRun) {
  fs::path dir = scratch("shards");
  const std::string common = "certify --backend plugin:" + std::string(DMLCERT_REFERENCE_PLUGIN) +
                             " --level 3_0 --ops SLICE,REDUCE --budget smoke --repro-dir " +
                             (dir / "repros").string();
  Command whole = run(common + " --report " + (dir / "whole.json").string());
  Command a = run(common + " --shard 0/2 --report " + (dir / "a.json").string());
  Command b = run(common + " --shard 1/2 --report " + (dir / "b.json").string());
  EXPECT_EQ(whole.exit_code, 0) << whole.out;
  Command merged = run("merge " + (dir / "a.json").string() + " " + (dir / "b.json").string() + " --report " +
                       (dir / "merged.json").string());
  EXPECT_EQ(merged.exit_code, 0) << merged.out;

  json w = read_json(dir / "whole.json"), m = read_json(dir / "merged.json");
  json sa = read_json(dir / "a.json");
  EXPECT_FALSE(sa["complete"].get<bool>()) << "one shard alone is not the whole run";
  EXPECT_TRUE(m["complete"].get<bool>());
  EXPECT_EQ(m["totals"], w["totals"]);
  EXPECT_EQ(m["certified"], w["certified"]);
  ASSERT_EQ(m["cells"].size(), w["cells"].size());
  for (size_t i = 0; i < w["cells"].size(); ++i)
    EXPECT_EQ(m["cells"][i]["counts"], w["cells"][i]["counts"]) << i;
}

}  // namespace

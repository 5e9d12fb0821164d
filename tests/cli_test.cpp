// The dmlcert command as scripts see it (docs/design.md, "The command"): exit statuses, one line per
// malformed file, the rule list, run's JSON and replay's closing line. Runs the built binary.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "dmlcert/rules.h"

namespace dmlcert {
namespace {

namespace fs = std::filesystem;

struct CliResult {
  int status = -1;
  std::string out, err;
  std::vector<std::string> out_lines() const { return lines(out); }
  std::vector<std::string> err_lines() const { return lines(err); }
  static std::vector<std::string> lines(const std::string& s) {
    std::vector<std::string> v;
    std::istringstream in(s);
    for (std::string l; std::getline(in, l);)
      if (!l.empty()) v.push_back(l);
    return v;
  }
};

// A fresh directory per test, removed afterwards.
class CliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    std::string leaf = std::string(info->test_suite_name()) + "-" + info->name();
    for (char& ch : leaf)
      if (ch == '/') ch = '-';
    dir_ = fs::temp_directory_path() / ("dmlcert-cli-test-" + std::to_string(::getpid()) + "-" + leaf);
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string write(const std::string& name, const std::string& text) {
    const fs::path p = dir_ / name;
    fs::create_directories(p.parent_path());
    std::ofstream(p) << text;
    return p.string();
  }

  CliResult cli(const std::string& args) { return cli_with(DMLCERT_CLI, args); }

  // `command`: the dmlcert command line to run, possibly behind `env VAR=value`.
  CliResult cli_with(const std::string& command, const std::string& args) {
    const std::string out = (dir_ / "stdout.txt").string(), err = (dir_ / "stderr.txt").string();
    const int raw = std::system((command + " " + args + " >" + out + " 2>" + err).c_str());
    CliResult r;
    r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
    std::stringstream o, e;
    o << std::ifstream(out).rdbuf();
    e << std::ifstream(err).rdbuf();
    r.out = o.str();
    r.err = e.str();
    return r;
  }

  fs::path dir_;
};

// The SLICE1 example of docs/case-format.md, with the parts a test varies left open.
std::string slice1_case(const std::string& input_sizes = "[1, 1, 4, 4]",
                        const std::string& input_data = "[1,2,3,4, 5,6,7,8, 9,10,11,12, 13,14,15,16]",
                        const std::string& expected_output = "[14, 16, 6, 8]") {
  return R"({
  "format": 1,
  "name": "slice1/doc-example-2",
  "op": "SLICE1",
  "feature_level": "5_0",
  "params": {
    "input_window_offsets": [0, 0, 0, 1],
    "input_window_sizes":   [1, 1, 4, 3],
    "input_window_strides": [1, 1, -2, 2]
  },
  "tensors": {
    "input":  {"type": "FLOAT32", "sizes": )" +
         input_sizes + R"(, "data": )" + input_data + R"(},
    "output": {"type": "FLOAT32", "sizes": [1, 1, 2, 2]}
  },
  "expect": "valid",
  "expected_output": )" +
         expected_output + "\n}\n";
}

struct MalformedRow {
  std::string name;
  std::string text;
  std::string json_path;  // what the error line must name
};
void PrintTo(const MalformedRow& r, std::ostream* os) {
  *os << r.name;
}

std::vector<MalformedRow> malformed_rows() {
  const std::string good = slice1_case();
  return {
      {"TruncatedJson", good.substr(0, good.size() / 2), ""},
      {"WrongType", slice1_case("\"four by four\""), "tensors.input.sizes"},
      {"SizeOverflowing64Bits", slice1_case("[1, 1, 4, 18446744073709551616]"), "tensors.input.sizes[3]"},
      {"DataOfTheWrongLength", slice1_case("[1, 1, 4, 4]", "[1, 2, 3]"), "tensors.input.data"},
  };
}

class MalformedCliTest : public CliTest, public ::testing::WithParamInterface<MalformedRow> {};

TEST_P(MalformedCliTest, ReplayExitsTwoWithOneLineNamingFilePathAndExpectation) {
  const std::string file = write("case.json", GetParam().text);
  const CliResult r = cli("replay " + file + " --backend reference");
  EXPECT_EQ(r.status, 2) << r.out << r.err;
  const auto lines = r.err_lines();
  ASSERT_EQ(lines.size(), 1u) << r.err;
  // "FILE: JSON-PATH: what was expected"
  ASSERT_EQ(lines[0].rfind(file + ": ", 0), 0u) << lines[0];
  const std::string rest = lines[0].substr(file.size() + 2);
  EXPECT_EQ(rest.rfind(GetParam().json_path, 0), 0u) << lines[0];
  const auto colon = rest.find(": ");
  ASSERT_NE(colon, std::string::npos) << lines[0];
  EXPECT_GT(rest.size(), colon + 2) << "no expectation in: " << lines[0];
}

TEST_P(MalformedCliTest, RunExitsTwo) {
  const std::string file = write("case.json", GetParam().text);
  const CliResult r = cli("run " + file + " --backend reference");
  EXPECT_EQ(r.status, 2) << r.out << r.err;
  EXPECT_EQ(r.err_lines().size(), 1u) << r.err;
}

INSTANTIATE_TEST_SUITE_P(Files, MalformedCliTest, ::testing::ValuesIn(malformed_rows()),
                         [](const ::testing::TestParamInfo<MalformedRow>& info) { return info.param.name; });

TEST_F(CliTest, ReplayRunsWellFormedCasesNextToAMalformedFile) {
  write("cases/a-good.json", slice1_case());
  write("cases/b-bad.json", "{");
  const CliResult r = cli("replay " + (dir_ / "cases").string() + " --backend reference");
  EXPECT_EQ(r.status, 2);
  ASSERT_FALSE(r.out_lines().empty());
  EXPECT_EQ(r.out_lines().back(), "1 passed, 0 failed");
  EXPECT_EQ(r.err_lines().size(), 1u) << r.err;
}

TEST_F(CliTest, ReplayEndsWithCountsAndPrintsHowToReproduceAFailure) {
  write("cases/right.json", slice1_case());
  write("cases/wrong.json",
        slice1_case("[1, 1, 4, 4]", "[1,2,3,4, 5,6,7,8, 9,10,11,12, 13,14,15,16]", "[14, 16, 6, 9]"));
  const std::string repros = (dir_ / "repros").string();
  const CliResult r =
      cli("replay " + (dir_ / "cases").string() + " --backend reference --repro-dir " + repros);
  EXPECT_EQ(r.status, 1) << r.out << r.err;
  const auto lines = r.out_lines();
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines.back(), "1 passed, 1 failed");
  // The failing case alone in the repro directory, and the full command that reruns it.
  const std::string copy = repros + "/slice1_doc-example-2.json";
  EXPECT_NE(r.out.find("case file: " + copy), std::string::npos) << r.out;
  const std::string command = std::string(DMLCERT_CLI) + " run " + copy + " --backend reference";
  EXPECT_NE(r.out.find("reproduce: " + command), std::string::npos) << r.out;
  EXPECT_EQ(std::system((command + " > /dev/null").c_str()) >> 8, 1) << "the reproduce line must fail again";
}

TEST_F(CliTest, ReplayOfPassingCasesExitsZero) {
  write("cases/right.json", slice1_case());
  const CliResult r = cli("replay " + (dir_ / "cases").string() + " --backend reference");
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_EQ(r.out_lines(), std::vector<std::string>{"1 passed, 0 failed"});
}

// A built-in can run in the isolation child, like a plugin, and gives the same verdicts.
// The child is seen through DMLCERT_PLUGIN_HOST: a wrapper that leaves a mark, then runs the
// real host. An in-process built-in never starts it.
TEST_F(CliTest, ReplayRunsABuiltInInTheIsolationChild) {
  write("cases/right.json", slice1_case());
  const fs::path mark = dir_ / "host-started";
  const std::string wrapper = write("host.sh", "#!/bin/sh\ntouch '" + mark.string() + "'\nexec '" +
                                                   std::string(DMLCERT_PLUGIN_HOST) + "' \"$@\"\n");
  fs::permissions(wrapper, fs::perms::owner_all);
  const std::string with_wrapper = "env DMLCERT_PLUGIN_HOST=" + wrapper + " " + std::string(DMLCERT_CLI);
  auto replay = [&](const std::string& backend) {
    fs::remove(mark);
    return cli_with(with_wrapper, "replay " + (dir_ / "cases").string() + " --backend " + backend);
  };
  for (const std::string backend : {"isolated:reference", "isolated:optimized"}) {
    const CliResult r = replay(backend);
    EXPECT_EQ(r.status, 0) << backend << ": " << r.out << r.err;
    EXPECT_EQ(r.out_lines(), std::vector<std::string>{"1 passed, 0 failed"}) << backend;
    EXPECT_TRUE(fs::exists(mark)) << backend << " did not start the isolation child";
  }
  EXPECT_EQ(replay("optimized").status, 0);
  EXPECT_FALSE(fs::exists(mark)) << "the in-process built-in started the isolation child";
  const CliResult unknown = cli("replay " + (dir_ / "cases").string() + " --backend isolated:nonesuch");
  EXPECT_EQ(unknown.status, 2) << unknown.out << unknown.err;
  EXPECT_NE(unknown.err.find("unknown backend 'isolated:nonesuch'"), std::string::npos) << unknown.err;
}

TEST_F(CliTest, RunPrintsTheOutputTensorAsJson) {
  const std::string file = write("case.json", slice1_case());
  const CliResult r = cli("run " + file + " --backend reference");
  EXPECT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["outcome"], "passed");
  EXPECT_EQ(j["output"]["data"], nlohmann::json::parse("[14, 16, 6, 8]"));
  EXPECT_EQ(j["output"]["sizes"], nlohmann::json::parse("[1, 1, 2, 2]"));
}

TEST_F(CliTest, RunPrintsTheViolationsOfARejectedCase) {
  std::string text = slice1_case("[1, 1, 4, 4]", "[1,2,3,4, 5,6,7,8, 9,10,11,12, 13,14,15,16]", "null");
  text.replace(text.find("[1, 1, -2, 2]"), 13, "[1, 1, 0, 2]");  // SLICE1.STRIDE_ZERO
  text.replace(text.find("\"valid\""), 7, "\"invalid\", \"violates\": [\"SLICE1.STRIDE_ZERO\"]");
  text.replace(text.find(",\n  \"expected_output\": null"),
               std::string(",\n  \"expected_output\": null").size(), "");
  const std::string file = write("case.json", text);
  const CliResult r = cli("run " + file + " --backend reference");
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["status"], "invalid-argument");
  ASSERT_TRUE(j["violations"].is_array());
  bool named = false;
  for (const auto& v : j["violations"])
    named |= v["rule"] == "SLICE1.STRIDE_ZERO" && !v["message"].get<std::string>().empty();
  EXPECT_TRUE(named) << r.out;
}

TEST_F(CliTest, RulesListsEveryRuleIdWithItsTag) {
  const CliResult r = cli("rules");
  EXPECT_EQ(r.status, 0);
  const auto lines = r.out_lines();
  ASSERT_EQ(lines.size(), rule_catalog().size());
  for (size_t i = 0; i < lines.size(); ++i) {
    const Rule& rule = rule_catalog()[i];
    EXPECT_EQ(lines[i].rfind(std::string(rule.id) + " ", 0), 0u) << lines[i];
    EXPECT_NE(lines[i].find(" " + std::string(name(rule.tag)) + " "), std::string::npos) << lines[i];
  }
  const auto json = nlohmann::json::parse(cli("rules --json").out);
  ASSERT_EQ(json.size(), rule_catalog().size());
  EXPECT_EQ(json[0]["id"], std::string(rule_catalog()[0].id));
}

struct UsageRow {
  std::string name, args;
};
void PrintTo(const UsageRow& r, std::ostream* os) {
  *os << r.name;
}

class UsageCliTest : public CliTest, public ::testing::WithParamInterface<UsageRow> {};

TEST_P(UsageCliTest, ExitsTwo) {
  const CliResult r = cli(GetParam().args);
  EXPECT_EQ(r.status, 2) << r.out << r.err;
  EXPECT_FALSE(r.err.empty());
}

INSTANTIATE_TEST_SUITE_P(
    Args, UsageCliTest,
    ::testing::Values(UsageRow{"NoSubcommand", ""}, UsageRow{"UnknownSubcommand", "frobnicate"},
                      UsageRow{"RunWithoutFile", "run"},
                      UsageRow{"MissingFile", "run /nonexistent/case.json --backend reference"},
                      UsageRow{"UnknownBackend", "rules --nonsense"},
                      UsageRow{"BadBackendSpec", "replay /nonexistent --backend warp-drive"}),
    [](const ::testing::TestParamInfo<UsageRow>& info) { return info.param.name; });

TEST_F(CliTest, HelpDescribesEveryCommandAndTheExitStatuses) {
  const CliResult r = cli("--help");
  EXPECT_EQ(r.status, 0);
  for (const char* word : {"run", "replay", "rules", "Exit status"})
    EXPECT_NE(r.out.find(word), std::string::npos) << word;
  for (const char* cmd : {"run", "replay", "rules"}) {
    const CliResult sub = cli(std::string(cmd) + " --help");
    EXPECT_EQ(sub.status, 0) << cmd;
    EXPECT_NE(sub.out.find("Exit status"), std::string::npos) << cmd;
  }
}

}  // namespace
}  // namespace dmlcert

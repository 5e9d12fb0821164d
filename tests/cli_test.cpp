// The dmlcert command as scripts see it (docs/design.md, "The command"): exit statuses, one line per
// malformed file, the rule list, run's JSON and replay's closing line. Runs the built binary.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <sstream>

#include "build_kind.h"
#include "dmlcert/rules.h"

namespace dmlcert {
namespace {

namespace fs = std::filesystem;

struct CliResult {
  int status = -1;
  std::string out, err;
  uint64_t peak_mib = 0;   // the command's peak resident memory
  double cpu_seconds = 0;  // the CPU time it used (user and system, its children's included)
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

  // `command`: the dmlcert command line to run, possibly behind `env VAR=value`. The shell execs
  // it, so that the process waited for is dmlcert itself and its peak memory can be read.
  CliResult cli_with(const std::string& command, const std::string& args) {
    const std::string out = (dir_ / "stdout.txt").string(), err = (dir_ / "stderr.txt").string();
    const std::string line = "exec " + command + " " + args + " >" + out + " 2>" + err;
    const pid_t pid = ::fork();
    if (pid == 0) {
      ::execl("/bin/sh", "sh", "-c", line.c_str(), static_cast<char*>(nullptr));
      ::_exit(127);
    }
    int raw = 0;
    rusage usage{};
    CliResult r;
    if (pid > 0 && ::wait4(pid, &raw, 0, &usage) == pid) {
      r.peak_mib = static_cast<uint64_t>(usage.ru_maxrss) / 1024;
      const auto seconds = [](const timeval& t) {
        return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) * 1e-6;
      };
      r.cpu_seconds = seconds(usage.ru_utime) + seconds(usage.ru_stime);
    }
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
                         [](const ::testing::TestParamInfo<MalformedRow>& row) { return row.param.name; });

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

TEST_F(CliTest, RulesListsEveryRuleIdWithItsTagThenTheRobustnessChecks) {
  const CliResult r = cli("rules");
  EXPECT_EQ(r.status, 0);
  const auto lines = r.out_lines();
  const size_t rules = rule_catalog().size(), checks = robustness_checks().size();
  ASSERT_EQ(lines.size(), rules + checks);
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string id(i < rules ? rule_catalog()[i].id : robustness_checks()[i - rules].id);
    const std::string tag(i < rules ? name(rule_catalog()[i].tag) : "robustness");
    EXPECT_EQ(lines[i].rfind(id + " ", 0), 0u) << lines[i];
    EXPECT_NE(lines[i].find(" " + tag + " "), std::string::npos) << lines[i];
  }
  const auto json = nlohmann::json::parse(cli("rules --json").out);
  ASSERT_EQ(json.size(), rules + checks);
  EXPECT_EQ(json[0]["id"], std::string(rule_catalog()[0].id));
  EXPECT_EQ(json[rules]["id"], "BACKEND.DESTROY");
  EXPECT_EQ(json[rules]["tag"], "robustness");
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
    [](const ::testing::TestParamInfo<UsageRow>& row) { return row.param.name; });

// Arguments checked at the door (docs/design.md, "The command"): every numeric option, shard,
// corpus, report and repro destination of every command that runs cases. Each bad value is a
// usage error on stderr's first line naming the option and the value, before any case runs
// (nothing on stdout). In args, {dir} is the test's directory and {case} a well-formed case file.
struct BadArgumentRow {
  std::string name, args;
  std::vector<std::string> names;  // what stderr's first line must contain
  std::string env = {};            // variables set for the command, "A=1 B=2"
};
void PrintTo(const BadArgumentRow& r, std::ostream* os) {
  *os << r.name;
}

std::vector<BadArgumentRow> bad_argument_rows() {
  const std::string fuzz = "fuzz --backend reference --cases 1 --repro-dir {dir}/repros ";
  const std::string certify = "certify --backend reference --ops SLICE --repro-dir {dir}/repros ";
  const std::string run = "run {case} --backend reference ";
  const std::string replay = "replay {case} --backend reference --repro-dir {dir}/repros ";
  return {
      // fuzz: the counts and sizes
      {"RunMaxCaseBytesZero", run + "--max-case-bytes 0", {"--max-case-bytes", "'0'"}},
      {"FuzzMaxCaseBytesNegative", fuzz + "--max-case-bytes -5", {"--max-case-bytes", "'-5'"}},
      {"FuzzCasesNegative", "fuzz --backend reference --cases -1", {"--cases", "'-1'"}},
      {"FuzzCasesZero", "fuzz --backend reference --cases 0", {"--cases", "'0'"}},
      {"FuzzCasesNan", "fuzz --backend reference --cases nan", {"--cases", "'nan'"}},
      {"FuzzCasesFraction", "fuzz --backend reference --cases 1.5", {"--cases", "'1.5'"}},
      {"FuzzCasesBeyond64Bits",
       "fuzz --backend reference --cases 18446744073709551616",
       {"--cases", "'18446744073709551616'"}},
      {"FuzzDurationNan", "fuzz --backend reference --duration nan", {"--duration", "'nan'"}},
      {"FuzzDurationNegative", "fuzz --backend reference --duration -1s", {"--duration", "'-1s'"}},
      {"FuzzDurationInfinite", "fuzz --backend reference --duration inf", {"--duration", "'inf'"}},
      {"FuzzDurationZero", "fuzz --backend reference --duration 0", {"--duration", "'0'"}},
      // fuzz: the guided corpus (docs/coverage.md)
      {"FuzzCorpusWithoutGuidance", fuzz + "--corpus {dir}/corpus", {"--corpus", "--coverage-guided"}},
      {"FuzzCorpusIsAFile", fuzz + "--coverage-guided --corpus {case}", {"--corpus", "not a directory"}},
      {"FuzzDurationOutOfRange", "fuzz --backend reference --duration 1e300h", {"--duration", "'1e300h'"}},
      {"FuzzDurationHexadecimal", "fuzz --backend reference --duration 0x10", {"--duration", "'0x10'"}},
      {"FuzzMaxSizeNegative", fuzz + "--max-size -1", {"--max-size", "'-1'"}},
      {"FuzzMaxSizeOutOfRange", fuzz + "--max-size 101", {"--max-size", "'101'"}},
      {"FuzzJobsZero", fuzz + "--jobs 0", {"--jobs", "'0'"}},
      {"FuzzJobsNegative", fuzz + "--jobs -1", {"--jobs", "'-1'"}},
      {"FuzzSeedNegative", fuzz + "--seed -1", {"--seed", "'-1'"}},
      {"FuzzSeedNan", fuzz + "--seed nan", {"--seed", "'nan'"}},
      {"FuzzShrinkSecondsNan", fuzz + "--shrink-seconds nan", {"--shrink-seconds", "'nan'"}},
      {"FuzzShrinkSecondsNegative", fuzz + "--shrink-seconds -1", {"--shrink-seconds", "'-1'"}},
      {"FuzzTimeoutNegative", fuzz + "--timeout -1", {"--timeout", "'-1'"}},
      {"FuzzMemoryLimitOutOfRange", fuzz + "--memory-limit 1e300", {"--memory-limit", "'1e300'"}},
      {"FuzzCpuLimitInfinite", fuzz + "--cpu-limit inf", {"--cpu-limit", "'inf'"}},
      // fuzz: shards, i < n <= 2^32-1
      {"FuzzShardCountBeyond32Bits", fuzz + "--shard 0/4294967296", {"--shard", "'0/4294967296'"}},
      {"FuzzShardCountNegative", fuzz + "--shard 1/-1", {"--shard", "'1/-1'"}},
      {"FuzzShardIndexNotBelowCount", fuzz + "--shard 4/4", {"--shard", "'4/4'"}},
      {"FuzzShardCountZero", fuzz + "--shard 0/0", {"--shard", "'0/0'"}},
      {"FuzzShardNotAFraction", fuzz + "--shard 3", {"--shard", "'3'"}},
      {"FuzzShardFromTheEnvironment", fuzz, {"--shard", "'5/2'"}, "GTEST_SHARD_INDEX=5 GTEST_TOTAL_SHARDS=2"},
      // fuzz: destinations
      {"FuzzReproDirUncreatable",
       "fuzz --backend reference --cases 1 --repro-dir /proc/nonexistent/repros",
       {"--repro-dir", "/proc/nonexistent/repros"}},
      {"FuzzReproDirIsAFile",
       "fuzz --backend reference --cases 1 --repro-dir {case}",
       {"--repro-dir", "{case}"}},
      {"FuzzReportUnwritable",
       fuzz + "--report /proc/nonexistent/report.json",
       {"/proc/nonexistent/report.json"}},
      {"FuzzReportIsADirectory", fuzz + "--report {dir}", {"report", "{dir}", "directory"}},
      // certify
      {"CertifyTimeoutNegative", certify + "--timeout -1", {"--timeout", "'-1'"}},
      {"CertifyLoadTimeoutZero", certify + "--load-timeout 0", {"--load-timeout", "'0'"}},
      {"CertifyTimeLimitNegative", certify + "--time-limit -5", {"--time-limit", "'-5'"}},
      {"CertifyTimeoutNan", certify + "--timeout nan", {"--timeout", "'nan'"}},
      {"CertifyTimeoutOutOfRange", certify + "--timeout 1e300", {"--timeout", "'1e300'"}},
      {"CertifyTimeoutBelowTheFloor", certify + "--timeout 0", {"--timeout", "'0'"}},
      {"CertifyMemoryLimitNegative", certify + "--memory-limit -1", {"--memory-limit", "'-1'"}},
      {"CertifyCpuLimitNan", certify + "--cpu-limit nan", {"--cpu-limit", "'nan'"}},
      {"CertifyStopAfterFailuresNegative",
       certify + "--stop-after-failures -1",
       {"--stop-after-failures", "'-1'"}},
      {"CertifySeedFraction", certify + "--seed 2.5", {"--seed", "'2.5'"}},
      {"CertifyShardCountBeyond32Bits", certify + "--shard 0/4294967296", {"--shard", "'0/4294967296'"}},
      {"CertifyShardCountNegative", certify + "--shard 1/-1", {"--shard", "'1/-1'"}},
      {"CertifyShardFromTheEnvironment",
       certify,
       {"--shard", "'2/2'"},
       "GTEST_SHARD_INDEX=2 GTEST_TOTAL_SHARDS=2"},
      {"CertifyCorpusMissing", certify + "--corpus {dir}/nonexistent", {"--corpus", "{dir}/nonexistent"}},
      {"CertifyCorpusIsAFile", certify + "--corpus {case}", {"--corpus", "{case}"}},
      {"CertifyReproDirUncreatable",
       "certify --backend reference --ops SLICE --repro-dir /proc/nonexistent/repros",
       {"--repro-dir", "/proc/nonexistent/repros"}},
      {"CertifyReportUnwritable",
       certify + "--report /proc/nonexistent/r.json",
       {"/proc/nonexistent/r.json"}},
      {"CertifyHtmlUnwritable", certify + "--html /proc/nonexistent/r.html", {"/proc/nonexistent/r.html"}},
      {"CertifyJunitUnwritable", certify + "--junit /proc/nonexistent/r.xml", {"/proc/nonexistent/r.xml"}},
      {"CertifyMarkdownUnwritable",
       certify + "--markdown /proc/nonexistent/r.md",
       {"/proc/nonexistent/r.md"}},
      {"CertifyReportIsADirectory", certify + "--report {dir}", {"{dir}", "directory"}},
      // run
      {"RunTimeoutNan", run + "--timeout nan", {"--timeout", "'nan'"}},
      {"RunTimeoutInfinite", run + "--timeout inf", {"--timeout", "'inf'"}},
      {"RunMaxFileBytesNegative", run + "--max-file-bytes -1", {"--max-file-bytes", "'-1'"}},
      {"RunMaxFileBytesZero", run + "--max-file-bytes 0", {"--max-file-bytes", "'0'"}},
      {"RunMemoryLimitNan", run + "--memory-limit nan", {"--memory-limit", "'nan'"}},
      // replay
      {"ReplayTimeoutNegative", replay + "--timeout -1", {"--timeout", "'-1'"}},
      {"ReplayMaxFileBytesNan", replay + "--max-file-bytes nan", {"--max-file-bytes", "'nan'"}},
      {"ReplayCpuLimitOutOfRange", replay + "--cpu-limit 1e300", {"--cpu-limit", "'1e300'"}},
      {"ReplayReproDirUnwritable",
       "replay {case} --backend reference --repro-dir /proc/nonexistent/repros",
       {"--repro-dir", "/proc/nonexistent/repros"}},
      {"ReplayReproDirIsAFile",
       "replay {case} --backend reference --repro-dir {case}",
       {"--repro-dir", "{case}"}},
      // merge
      {"MergeOfACaseFile", "merge {case}", {"{case}", "not a `dmlcert certify --report` JSON report"}},
      {"MergeOfAMissingFile", "merge {dir}/nonexistent.json", {"{dir}/nonexistent.json", "cannot read"}},
      {"MergeReportUnwritable",
       "merge {case} --report /proc/nonexistent/r.json",
       {"/proc/nonexistent/r.json"}},
      // baseline
      {"BaselineOfACaseFile", "baseline {case}", {"{case}", "not a `dmlcert certify --report` JSON report"}},
      {"BaselineOfAMissingFile",
       "baseline {dir}/nonexistent.json",
       {"{dir}/nonexistent.json", "cannot read"}},
  };
}

class BadArgumentCliTest : public CliTest, public ::testing::WithParamInterface<BadArgumentRow> {
 protected:
  std::string expand(std::string s) {
    for (const auto& [from, to] :
         {std::pair<std::string, std::string>{"{dir}", dir_.string()},
          std::pair<std::string, std::string>{"{case}", (dir_ / "case.json").string()}})
      for (size_t at; (at = s.find(from)) != std::string::npos;) s.replace(at, from.size(), to);
    return s;
  }
};

TEST_P(BadArgumentCliTest, IsAUsageErrorNamingOptionAndValueBeforeAnyCaseRuns) {
  write("case.json", slice1_case());
  const BadArgumentRow& row = GetParam();
  const std::string command =
      row.env.empty() ? std::string(DMLCERT_CLI) : "env " + row.env + " " + std::string(DMLCERT_CLI);
  const CliResult r = cli_with(command, expand(row.args));
  EXPECT_EQ(r.status, 2) << r.out << r.err;
  EXPECT_EQ(r.out, "") << "a case ran";
  const auto lines = r.err_lines();
  ASSERT_FALSE(lines.empty());
  for (const std::string& name : row.names)
    EXPECT_NE(lines[0].find(expand(name)), std::string::npos) << "no " << expand(name) << " in: " << lines[0];
  EXPECT_LE(lines.size(), 2u) << r.err;  // the error, and CLI11's pointer to --help
  EXPECT_EQ(r.err.find("internal error"), std::string::npos) << r.err;
}

INSTANTIATE_TEST_SUITE_P(Args, BadArgumentCliTest, ::testing::ValuesIn(bad_argument_rows()),
                         [](const ::testing::TestParamInfo<BadArgumentRow>& row) { return row.param.name; });

// Inputs read from disk by run and replay (docs/case-format.md, "Malformed files" and
// "Limits"): every path that cannot be read is reported by name, untrusted text is escaped, lines
// are capped, and a device that never ends stops at the file limit. In args, {dir} is the test's
// directory; setup makes the files a row needs there.
struct InputRow {
  std::string name;
  std::function<void(const fs::path& dir)> setup;
  std::string args;
  int status;
  std::vector<std::string> err_has, out_has;
  bool needs_permissions = false;  // root reads anything: run as nobody then
  uint64_t max_peak_mib = 200;     // docs/design.md, "Memory": what a run may hold under the defaults
};
void PrintTo(const InputRow& r, std::ostream* os) {
  *os << r.name;
}

void put(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p) << text;
}

// The doc example, named `name` (JSON string syntax), its expected output wrong so that it fails.
std::string failing_case_named(const std::string& name) {
  std::string text =
      slice1_case("[1, 1, 4, 4]", "[1,2,3,4, 5,6,7,8, 9,10,11,12, 13,14,15,16]", "[14, 16, 6, 9]");
  const std::string from = "\"slice1/doc-example-2\"";
  return text.replace(text.find(from), from.size(), "\"" + name + "\"");
}

// A good case next to cases/<link>, a link to `target` that leads nowhere: replay names the link.
InputRow link_to_nothing(std::string name, std::string target, std::string link) {
  return {std::move(name),
          [target, link](const fs::path& d) {
            put(d / "cases/good.json", slice1_case());
            fs::create_symlink(target, d / "cases" / link);
          },
          "replay {dir}/cases --backend reference",
          2,
          {"{dir}/cases/" + link + ": (file): a link to nothing"},
          {"1 passed, 0 failed"}};
}

std::vector<InputRow> input_rows() {
  return {
      link_to_nothing("ReplayReportsADanglingLink", "nowhere.json", "dangling.json"),
      link_to_nothing("ReplayReportsALinkLoop", "loop.json", "loop.json"),
      // A link that leads nowhere may have been a directory of cases, whatever its name.
      link_to_nothing("ReplayReportsADanglingLinkOfAnyName", "gone", "more-cases"),
      {"ReplayReportsAnUnreadableSubdirectory",
       [](const fs::path& d) {
         put(d / "cases/good.json", slice1_case());
         put(d / "cases/locked/hidden.json", slice1_case());
         fs::permissions(d / "cases/locked", fs::perms::none);
       },
       "replay {dir}/cases --backend reference --repro-dir {dir}/repros",
       2,
       {"{dir}/cases/locked: (file): cannot list the directory"},
       {"1 passed, 0 failed"},
       true},
      {"ReplayReportsEveryMissingPath",
       [](const fs::path& d) { put(d / "case.json", slice1_case()); },
       "replay {dir}/missing-1.json {dir}/case.json {dir}/missing-2 --backend reference",
       2,
       {"{dir}/missing-1.json: (file): cannot read the file",
        "{dir}/missing-2: (file): cannot read the file"},
       {"1 passed, 0 failed"}},
      {"RunOfADirectorySaysSo",
       [](const fs::path&) {},
       "run {dir} --backend reference",
       2,
       {"{dir}: (file): cannot read the file: it is a directory"}},
      // Every command reads regular files only: a device (or a FIFO) is refused, never read or waited on.
      {"RunOfDevZeroIsRefusedAsADevice",
       [](const fs::path&) {},
       "run /dev/zero --backend reference",
       2,
       {"/dev/zero: (file): cannot read the file: it is not a regular file (a character device)"}},
      {"RunOfAFileOverAGivenLimitIsRefused",
       [](const fs::path& dir) { std::ofstream(dir / "big.json") << std::string(2000, ' '); },
       "run {dir}/big.json --backend reference --max-file-bytes 1000",
       2,
       {"{dir}/big.json: (file): it has 2000 bytes, more than the limit of 1000 (--max-file-bytes)"}},
      {"RunOfProcSelfMemSaysItCannotBeRead",
       [](const fs::path&) {},
       "run /proc/self/mem --backend reference",
       2,
       {"/proc/self/mem: (file): cannot read the file"}},
      {"ReplayEscapesAFailingCaseName",
       [](const fs::path& d) { put(d / "evil.json", failing_case_named("evil\\n\\u001b[2J\\u0007")); },
       "replay {dir}/evil.json --backend reference --repro-dir {dir}/repros",
       1,
       {},
       {"FAILED evil\\n\\x1b[2J\\x07: failed"}},
      {"RunEscapesAnUnknownCaseName",
       [](const fs::path& d) { put(d / "case.json", slice1_case()); },
       "run {dir}/case.json --backend reference --case \"$(printf 'x\\033[2J\\ny')\"",
       2,
       {"no case named 'x\\x1b[2J\\ny'"}},
      {"ReplayCapsAMegabyteErrorLine",
       [](const fs::path& d) {
         std::string text = slice1_case();
         text.replace(text.find("\"input_window_offsets\""), 0, "\"" + std::string(1 << 20, 'k') + "\": 1, ");
         put(d / "huge-key.json", text);
       },
       "replay {dir}/huge-key.json --backend reference",
       2,
       {"{dir}/huge-key.json: params.kkk", "k..."}},
      // A legal 1 GiB TotalTensorSizeInBytes: the memory budget skips the case before the oracle or
      // the backend allocates anything (docs/design.md, "Memory").
      {"RunOfAGibibyteBindingIsSkippedBeforeAllocating",
       [](const fs::path& d) {
         put(d / "case.json", slice1_case("[1, 1, 4, 4], \"total_bytes\": 1073741824"));
       },
       "run {dir}/case.json --backend optimized",
       0,
       {},
       {"\"outcome\": \"skipped\"", "needs about 4.0 GiB (bindings 1.0 GiB: input 1.0 GiB, output 16 B",
        "more than the limit of 536870912 bytes (--max-case-bytes)"}},
      {"IsolatedRunOfAGibibyteBindingIsSkippedBeforeAllocating",
       [](const fs::path& d) {
         put(d / "case.json", slice1_case("[1, 1, 4, 4], \"total_bytes\": 1073741824"));
       },
       "run {dir}/case.json --backend isolated:optimized",
       0,
       {},
       {"\"outcome\": \"skipped\"", "(--max-case-bytes)"}},
      {"RunOfAScatterNdWithFourGibibyteTensorsIsSkippedBeforeAllocating",
       [](const fs::path& d) {
         std::ifstream in(std::string(DMLCERT_SOURCE_DIR) +
                          "/corpora/seed-examples/scatter_nd-doc-example-1.json");
         std::stringstream text;
         text << in.rdbuf();
         std::string t = text.str();
         for (const char* role : {"\"input\": {", "\"indices\": {", "\"updates\": {", "\"output\": {"})
           t.replace(t.find(role), std::string(role).size(),
                     std::string(role) + "\"total_bytes\": 1073741824, ");
         put(d / "case.json", t);
       },
       "run {dir}/case.json --backend isolated:optimized",
       0,
       {},
       {"\"outcome\": \"skipped\"",
        "needs about 16.0 GiB (bindings 4.0 GiB: input 1.0 GiB, indices 1.0 GiB, "
        "updates 1.0 GiB, output 1.0 GiB"}},
      // Data is decoded from the file's text straight into its place: a file at the size limit
      // holds its text and its tensor, not a JSON tree of its numbers (which cost 27 times the file).
      {"RunOfADataFileAtTheFileLimitHoldsItsTextAndItsData",
       [](const fs::path& d) {
         constexpr uint64_t n = 8'000'000;
         std::string text = R"({"format": 1, "op": "SLICE1", "params": {"input_window_offsets": [0],
           "input_window_sizes": [8000000], "input_window_strides": [1]}, "expect": "valid", "tensors": {
           "output": {"type": "FLOAT32", "sizes": [8000000]}, "input": {"type": "FLOAT32", "sizes": [8000000],
           "data": [0)";
         text.reserve(2 * n + 200);
         for (uint64_t i = 1; i < n; ++i) text += ",0";
         put(d / "case.json", text + "]}}}");
       },
       // The case itself is over a budget of 256 MiB: only reading it is measured.
       "run {dir}/case.json --backend optimized --max-case-bytes 268435456",
       0,
       {},
       {"\"outcome\": \"skipped\"", "needs about 335.7 MiB"},
       false,
       100},
      {"RunOfA200MegabyteFileIsRefusedBeforeReading",
       [](const fs::path& d) {
         put(d / "big.json", "{\"data\": [");
         fs::resize_file(d / "big.json", 200'000'000);
       },
       "run {dir}/big.json --backend reference",
       2,
       {"{dir}/big.json: (file): it has 200000000 bytes, more than the limit of 16777216 "
        "(--max-file-bytes)"}},
      {"RunOfAMillionLineJsonlStopsAtTheCaseLimit",
       [](const fs::path& d) {
         std::string lines;
         for (int i = 0; i < 1'000'000; ++i) lines += "{}\n";
         put(d / "cases.jsonl", lines);
       },
       "run {dir}/cases.jsonl --backend reference",
       2,
       {"{dir}/cases.jsonl: line 1: op: missing required field",
        "{dir}/cases.jsonl: line 100001: more than 100000 cases in one file; the rest is not read"}},
      {"MergeOfDevZeroIsRefusedAsADevice",
       [](const fs::path&) {},
       "merge /dev/zero",
       2,
       {"/dev/zero: cannot read the file: it is not a regular file (a character device)"}},
      {"RunWithinARaisedCaseBudgetRuns",
       [](const fs::path& d) { put(d / "case.json", slice1_case("[1, 1, 4, 4], \"total_bytes\": 1048576")); },
       "run {dir}/case.json --backend optimized --max-case-bytes 8388608",
       0,
       {},
       {"\"outcome\": \"passed\""}},
      {"RunKeepsTheSignOfNegativeZero",
       [](const fs::path& d) {
         // The input element the window takes third is -0; the expected output says -0.0.
         put(d / "case.json", slice1_case("[1, 1, 4, 4]", "[1,2,3,4, 5,-0,7,8, 9,10,11,12, 13,14,15,16]",
                                          "[14, 16, -0.0, 8]"));
       },
       "run {dir}/case.json --backend reference",
       0,
       {},
       {"\"outcome\": \"passed\""}},
  };
}

class InputCliTest : public CliTest, public ::testing::WithParamInterface<InputRow> {
 protected:
  std::string expand(std::string s) {
    for (size_t at; (at = s.find("{dir}")) != std::string::npos;) s.replace(at, 5, dir_.string());
    return s;
  }
};

TEST_P(InputCliTest, ReportsEveryPathEscapedAndCapped) {
  const InputRow& row = GetParam();
  std::string command = DMLCERT_CLI;
  if (row.needs_permissions && ::geteuid() == 0) {
    // Root reads directories whatever their mode; nobody does not.
    if (::access("/usr/bin/setpriv", X_OK) != 0) GTEST_SKIP() << "root, and no setpriv to drop it";
    command = "/usr/bin/setpriv --reuid=65534 --regid=65534 --clear-groups " + command;
    fs::permissions(dir_, fs::perms::all);
  }
  row.setup(dir_);
  const auto start = std::chrono::steady_clock::now();
  const CliResult r = cli_with(command, expand(row.args));
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::error_code ec;  // a link loop has no status
  for (const fs::directory_entry& e : fs::recursive_directory_iterator(dir_, ec))
    if (e.is_directory(ec)) fs::permissions(e.path(), fs::perms::owner_all, ec);  // for TearDown
  EXPECT_EQ(r.status, row.status) << r.out.substr(0, 2000) << r.err.substr(0, 2000);
  // The 2 s of the Release build (docs/design.md, "Memory"), in CPU time: on a machine busy with
  // other work the wall clock would count the waits for a core. The wall-clock bound is only there
  // to catch a command that blocks (a FIFO read, say), which uses no CPU while it waits.
  EXPECT_LT(r.cpu_seconds, 2.0 * test::kSlowdown);
  EXPECT_LT(wall, 60.0 * test::kSlowdown);
  EXPECT_LT(r.peak_mib, row.max_peak_mib * (test::kInstrumented ? 4 : 1));  // ASan's shadow memory
  for (const std::string& s : row.err_has)
    EXPECT_NE(r.err.find(expand(s)), std::string::npos) << r.err.substr(0, 2000);
  for (const std::string& s : row.out_has)
    EXPECT_NE(r.out.find(expand(s)), std::string::npos) << r.out.substr(0, 2000);
  for (const std::string& line : r.err_lines()) EXPECT_LE(line.size(), 400u) << line.substr(0, 500);
  for (const std::string* text : {&r.out, &r.err})
    for (char c : *text)
      ASSERT_TRUE(static_cast<unsigned char>(c) >= 0x20 || c == '\n')
          << "a raw control character in: " << *text;
}

INSTANTIATE_TEST_SUITE_P(Inputs, InputCliTest, ::testing::ValuesIn(input_rows()),
                         [](const ::testing::TestParamInfo<InputRow>& row) { return row.param.name; });

TEST_F(CliTest, HelpDescribesEveryCommandAndTheExitStatuses) {
  const CliResult r = cli("--help");
  EXPECT_EQ(r.status, 0);
  // The overview names every command and both exit-status rules.
  for (const char* word :
       {"run", "replay", "rules", "fuzz", "certify", "merge", "support", "baseline", "Exit status",
        "certified for its scope", "every case that ran passed", "130 or 143"})
    EXPECT_NE(r.out.find(word), std::string::npos) << word;
  // Each command's own help says what its exit status means.
  const struct {
    const char* command;
    const char* says;
  } commands[] = {
      {"run", "every case that ran passed"},
      {"replay", "every case that ran passed"},
      {"fuzz", "every case that ran passed"},
      {"certify", "certified for its scope"},
      {"merge", "Exit status 0 only when"},
      {"rules", "Exit status"},
      {"support", "Exit status"},
      {"baseline", "Exit status: 0 with the list printed"},
  };
  for (const auto& c : commands) {
    const CliResult sub = cli(std::string(c.command) + " --help");
    EXPECT_EQ(sub.status, 0) << c.command;
    EXPECT_NE(sub.out.find(c.says), std::string::npos) << c.command << " --help:\n" << sub.out;
  }
}

}  // namespace
}  // namespace dmlcert

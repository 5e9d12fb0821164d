// `certify --fp16-accumulation float16` judges FLOAT16 reductions by the relaxed profile
// (docs/semantics.md, "Numbers") and says so: the verdict names the option in every format, the
// JSON report records it, and every repro line carries it, so a repro judges as the run did. A
// backend that accumulates FLOAT16 sums in FLOAT16 fails the default profile and passes this one.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "scratch_dir.h"

#ifdef DMLCERT_MUTATION_PLUGIN_DIR
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

constexpr const char* kFp16Sums = DMLCERT_MUTATION_PLUGIN_DIR "/mutant_sum_fp16_accumulates_in_fp16.so";
constexpr const char* kNamed =
    ", FLOAT16 reductions judged as accumulating in float16 (--fp16-accumulation float16)";

struct CertifyRun {
  int exit_code = -1;
  json report;
  std::string text, markdown;
};

CertifyRun certify(const std::string& name, const std::string& plugin, const std::string& flags) {
  const fs::path dir = dmlcert::test::scratch_dir("fp16_accumulation_" + name);
  const std::string command = std::string(DMLCERT_CLI) + " certify --backend plugin:" + plugin +
                              " --level 5_0 --ops REDUCE --budget smoke" + flags + " --repro-dir " +
                              (dir / "repros").string() + " --report " + (dir / "r.json").string() +
                              " --markdown " + (dir / "r.md").string() + " >" + (dir / "out.txt").string() +
                              " 2>&1";
  const int raw = std::system(command.c_str());
  CertifyRun r;
  r.exit_code = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  auto slurp = [](const fs::path& p) {
    std::stringstream s;
    s << std::ifstream(p).rdbuf();
    return s.str();
  };
  r.text = slurp(dir / "out.txt");
  r.markdown = slurp(dir / "r.md");
  r.report = json::parse(slurp(dir / "r.json"));
  fs::remove_all(dir);
  return r;
}

TEST(Fp16Accumulation, TheDefaultProfileFailsFloat16SumsAndEveryReproSaysHowToJudge) {
  const CertifyRun r = certify("default", kFp16Sums, "");
  EXPECT_EQ(r.exit_code, 1) << r.text;
  EXPECT_EQ(r.report["fp16_accumulation"], "float32");
  EXPECT_EQ(r.report["verdict"].get<std::string>().find(kNamed), std::string::npos);
  ASSERT_FALSE(r.report["failures"].empty());
  for (const json& f : r.report["failures"])
    EXPECT_EQ(f["reproduce"].get<std::string>().find("--fp16-accumulation"), std::string::npos);
}

TEST(Fp16Accumulation, TheRelaxedProfileCertifiesAndTheVerdictSaysUnderWhichProfile) {
  const CertifyRun r = certify("relaxed", kFp16Sums, " --fp16-accumulation float16");
  EXPECT_EQ(r.exit_code, 0) << r.text;
  EXPECT_EQ(r.report["fp16_accumulation"], "float16");
  const std::string verdict = r.report["verdict"];
  EXPECT_EQ(verdict, std::string("CERTIFIED at 5_0 for REDUCE (all 12 functions)") + kNamed);
  EXPECT_NE(r.text.find("\n" + verdict + "\n"), std::string::npos) << r.text;
  EXPECT_TRUE(r.markdown.starts_with("# " + verdict + "\n")) << r.markdown.substr(0, 300);
}

// A backend that still fails under the relaxed profile: its repro lines judge as the run did.
TEST(Fp16Accumulation, ReprosOfARelaxedRunCarryTheOption) {
  const CertifyRun r =
      certify("relaxed_failing", DMLCERT_MUTATION_PLUGIN_DIR "/mutant_sum_accumulator_not_cleared.so",
              " --fp16-accumulation float16");
  EXPECT_EQ(r.exit_code, 1) << r.text;
  ASSERT_FALSE(r.report["failures"].empty()) << r.text;
  for (const json& f : r.report["failures"]) {
    if (f["reproduce"].get<std::string>().empty()) continue;
    EXPECT_NE(f["reproduce"].get<std::string>().find(" --fp16-accumulation float16"), std::string::npos)
        << f["reproduce"];
  }
}

}  // namespace
#endif

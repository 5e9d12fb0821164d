// Coverage-guided fuzzing (docs/coverage.md, "Coverage-guided fuzzing"): cases that reach new
// edges of the plugin's code are kept as plans, mutated on the generator's choices, saved as a
// corpus that the next run reads back, and a bug behind a rarely reached branch is found in far
// fewer cases than unguided generation needs.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "fuzz.h"
#include "fuzz_corpus.h"
#include "scratch_dir.h"

namespace dmlcert::engine {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;
using ::testing::HasSubstr;

FuzzOptions gather_options(uint64_t seed) {
  FuzzOptions o;
  o.seed = seed;
  o.ops = {OpKind::GATHER_ELEMENTS, OpKind::REDUCE};
  return o;
}

// A plan names its generator and choices completely: written and read back, it is the same plan.
TEST(FuzzCorpus, APlanReadsBackAsWritten) {
  const FuzzPlanner planner(gather_options(3));
  for (uint64_t index : {0u, 7u, 8u, 9u, 123u}) {
    const FuzzPlan p = planner.plan(index);
    std::string error;
    const auto back = plan_from_text(plan_to_text(p), &error);
    ASSERT_TRUE(back) << error << "\n" << plan_to_text(p);
    EXPECT_EQ(plan_to_text(*back), plan_to_text(p));
  }
}

struct BadPlanRow {
  const char* name;
  const char* text;
  const char* says;
};
class BadPlan : public testing::TestWithParam<BadPlanRow> {};
TEST_P(BadPlan, IsRefusedWithTheFieldNamed) {
  std::string error;
  EXPECT_FALSE(plan_from_text(GetParam().text, &error));
  EXPECT_THAT(error, HasSubstr(GetParam().says));
}
INSTANTIATE_TEST_SUITE_P(
    Files, BadPlan,
    testing::Values(BadPlanRow{"not_json", "{", "parse error"},
                    BadPlanRow{"unknown_level", R"({"level":"9_9","class":"valid","rule":"","mode":"exact",
                                "seed":1,"size":1})",
                               "level '9_9'"},
                    BadPlanRow{"unknown_mode",
                               R"({"level":"5_0","class":"invalid","rule":"T.RANK","mode":"loud",
                                "seed":1,"size":1})",
                               "mode 'loud'"},
                    BadPlanRow{"rank_nine",
                               R"({"level":"5_0","class":"valid","target":{"op":"SLICE","function":null,
                                "type":"INT8","index_type":null,"rank":9},"mode":"exact","seed":1,"size":1})",
                               "rank must be 1 to 8"},
                    BadPlanRow{"size_too_large", R"({"level":"5_0","class":"invalid","rule":"T.RANK",
                                "mode":"exact","seed":1,"size":1000})",
                               "size must be 0 to 100"}),
    [](const testing::TestParamInfo<BadPlanRow>& row) { return std::string(row.param.name); });

// Every mutant is a plan of the same class, level and operator, so it makes a well-formed case of
// the kind its parent made; and the same (parent, index, choice) gives the same mutant.
TEST(FuzzMutation, StaysWithItsParentsGeneratorAndIsRepeatable) {
  const FuzzPlanner planner(gather_options(5));
  for (uint64_t index = 0; index < 30; ++index) {
    const FuzzPlan parent = planner.plan(index);
    for (uint64_t choice = 0; choice < 10; ++choice) {
      const FuzzPlan m = planner.mutate(parent, 1000 + index, choice * 977);
      EXPECT_EQ(m.case_class, parent.case_class);
      EXPECT_EQ(m.level, parent.level);
      EXPECT_EQ(m.rule, parent.rule);
      EXPECT_EQ(m.target.has_value(), parent.target.has_value());
      if (m.target) {
        EXPECT_EQ(m.target->op, parent.target->op);
      }
      EXPECT_GE(m.size, 0);
      EXPECT_LE(m.size, 50);
      EXPECT_EQ(plan_to_text(m), plan_to_text(planner.mutate(parent, 1000 + index, choice * 977)));
    }
  }
}

struct Fuzzed {
  int exit_code = -1;
  std::string text;
  json report;
};

Fuzzed fuzz(const std::string& name, const std::string& args) {
  const fs::path dir = test::scratch_dir("coverage_guided_fuzz_test_" + name);
  const std::string command = std::string(DMLCERT_CLI) + " fuzz --jobs 1 --shrink-seconds 0 --repro-dir " +
                              (dir / "repros").string() + " --report " + (dir / "r.json").string() + " " +
                              args + " >" + (dir / "out.txt").string() + " 2>&1";
  Fuzzed f;
  const int raw = std::system(command.c_str());
  f.exit_code = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  std::stringstream text, report;
  text << std::ifstream(dir / "out.txt").rdbuf();
  report << std::ifstream(dir / "r.json").rdbuf();
  f.text = text.str();
  if (!report.str().empty()) f.report = json::parse(report.str());
  fs::remove_all(dir);
  return f;
}

TEST(CoverageGuidedFuzz, AnUninstrumentedBackendRunsUnguidedAndSaysSo) {
  const Fuzzed f = fuzz("unguided", "--backend reference --cases 20 --coverage-guided");
  EXPECT_EQ(f.exit_code, 0) << f.text;
  EXPECT_THAT(f.text, HasSubstr("--coverage-guided: no code coverage from this backend"));
  EXPECT_EQ(f.report["guided"]["corpus"], 0);
}

// A corpus is read as untrusted input too: a plan this run cannot make (a rule that does not exist,
// a cell outside --ops) and a file that is not a plan at all (a FIFO, which a read would block on)
// are named and skipped; the run goes on.
TEST(CoverageGuidedFuzz, CorpusFilesItCannotRunAreNamedAndSkipped) {
  const fs::path corpus = test::scratch_dir("coverage_guided_fuzz_test_bad_corpus_files");
  std::ofstream(corpus / "a.plan")
      << R"({"level":"5_0","class":"invalid","rule":"NO.SUCH_RULE","mode":"exact","seed":1,"size":1})";
  std::ofstream(corpus / "b.plan")
      << R"({"level":"5_0","class":"valid","target":{"op":"SLICE","function":null,
      "type":"INT8","index_type":null,"rank":2},"mode":"exact","seed":1,"size":1})";
  ASSERT_EQ(::mkfifo((corpus / "c.plan").c_str(), 0600), 0);
  const Fuzzed f =
      fuzz("bad_corpus", "--backend reference --ops GATHER_ELEMENTS --cases 5 --coverage-guided --corpus " +
                             corpus.string());
  EXPECT_EQ(f.exit_code, 0) << f.text.substr(0, 2000);
  EXPECT_THAT(f.text, HasSubstr("Corpus files not run (3)"));
  EXPECT_THAT(f.text, HasSubstr("rule 'NO.SUCH_RULE' is not one this run plans"));
  EXPECT_THAT(f.text, HasSubstr("its cell is not among this run's"));
  EXPECT_THAT(f.text, HasSubstr("not a regular file"));
  EXPECT_EQ(f.report["cases"], 5);
}

#ifdef DMLCERT_RARE_BRANCH_PLUGIN
std::string rare_branch(uint64_t seed, bool guided, const std::string& extra = "") {
  return std::string("--backend plugin:") + DMLCERT_RARE_BRANCH_PLUGIN +
         " --ops GATHER_ELEMENTS --cases 20000 --stop-after-failures 1 --seed " + std::to_string(seed) +
         (guided ? " --coverage-guided" : "") + extra;
}

uint64_t cases_to_find(const Fuzzed& f) {
  if (f.report["failures"].empty()) return 20000;
  return f.report["failures"][0]["index"].get<uint64_t>() + 1;
}

// The plugin's bug runs only for GATHER_ELEMENTS outputs of rank 3 or more with 1024 one-byte
// elements and 32-bit indices; each test on the way is an edge. Over three seeds, unguided
// generation needs 1,192 to 4,216 cases; guided, 296 to 982.
TEST(CoverageGuidedFuzz, FindsABugBehindARareBranchInFarFewerCases) {
#ifdef DMLCERT_EVERY_PLUGIN_INSTRUMENTED
  GTEST_SKIP() << "every plugin of this build is instrumented throughout (the sanitize preset), and its "
                  "cases run ten times slower: the comparison runs in the default build";
#endif
  std::vector<uint64_t> unguided, guided;
  for (uint64_t seed : {1, 3, 5}) {
    unguided.push_back(cases_to_find(fuzz("rare_unguided", rare_branch(seed, false))));
    guided.push_back(cases_to_find(fuzz("rare_guided", rare_branch(seed, true))));
  }
  std::sort(unguided.begin(), unguided.end());
  std::sort(guided.begin(), guided.end());
  EXPECT_LT(guided[1] * 3, unguided[1])
      << "median cases to find: guided " << guided[1] << ", unguided " << unguided[1];
}

// What a guided run keeps it writes as a corpus; the next run reads it first, and its first cases,
// the corpus's, reach every edge the first run reached. `dmlcert replay` reads the corpus's case
// files.
TEST(CoverageGuidedFuzz, TheCorpusIsSavedAndReadBack) {
  const fs::path corpus = test::scratch_dir("coverage_guided_fuzz_test_corpus_files");
  const Fuzzed first = fuzz("corpus_first", rare_branch(4, true, " --corpus " + corpus.string()));
  ASSERT_GT(first.report["guided"]["corpus"].get<int>(), 0) << first.text;
  size_t plans = 0, cases = 0;
  for (const auto& e : fs::directory_iterator(corpus)) {
    plans += e.path().extension() == ".plan";
    cases += e.path().extension() == ".json";
  }
  EXPECT_EQ(plans, first.report["guided"]["corpus"].get<size_t>());
  EXPECT_EQ(cases, plans);
  const std::string just_the_corpus = std::string("--backend plugin:") + DMLCERT_RARE_BRANCH_PLUGIN +
                                      " --ops GATHER_ELEMENTS --coverage-guided --seed 99 --cases " +
                                      std::to_string(plans) + " --corpus " + corpus.string();
  const Fuzzed second = fuzz("corpus_second", just_the_corpus);
  EXPECT_EQ(second.report["guided"]["corpus_loaded"].get<size_t>(), plans);
  EXPECT_EQ(second.report["guided"]["edges_reached"], first.report["guided"]["edges_reached"]);
  const std::string replay =
      std::string(DMLCERT_CLI) + " replay " + corpus.string() + " --backend reference >/dev/null 2>&1";
  EXPECT_EQ(std::system(replay.c_str()), 0);
  fs::remove_all(corpus);
}
#endif

}  // namespace
}  // namespace dmlcert::engine

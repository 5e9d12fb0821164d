// What a certification covers: the operators asked for (--ops) and the cells the backend claims
// (implements()). A backend that implements SLICE alone certifies for SLICE, with no failure from
// the operators it disowns, and every report format names that scope. Also: what the backend did
// with the class U cases (the behaviour profile), in every format.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "dmlcert/operators.h"
#include "scratch_dir.h"

namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

std::string slurp(const fs::path& p) {
  std::stringstream s;
  s << std::ifstream(p).rdbuf();
  return s.str();
}

struct Certified {
  int exit_code = -1;
  std::string text;  // the terminal report
  json report;
  std::string markdown, html, junit;
};

Certified certify(const std::string& name, const std::string& plugin, const std::string& args) {
  const fs::path dir = dmlcert::test::scratch_dir("scope_test_" + name);
  const std::string command = std::string(DMLCERT_CLI) + " certify --backend plugin:" + plugin + " " + args +
                              " --budget smoke --repro-dir " + (dir / "repros").string() + " --report " +
                              (dir / "r.json").string() + " --markdown " + (dir / "r.md").string() +
                              " --html " + (dir / "r.html").string() + " --junit " +
                              (dir / "r.xml").string() + " >" + (dir / "out.txt").string() + " 2>/dev/null";
  Certified c;
  const int raw = std::system(command.c_str());
  c.exit_code = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  c.text = slurp(dir / "out.txt");
  c.report = json::parse(slurp(dir / "r.json"));
  c.markdown = slurp(dir / "r.md");
  c.html = slurp(dir / "r.html");
  c.junit = slurp(dir / "r.xml");
  fs::remove_all(dir);
  return c;
}

struct ScopeRow {
  std::string name, plugin, args;
  std::string verdict;  // in every format
  std::string outside;  // what the reports say lies outside the scope
};

// The operators other than SLICE, in the registry's order, each followed by `each` and joined by
// `between`: what a SLICE-only scope leaves outside, whatever operators the registry holds.
std::string all_but_slice(const std::string& each, const std::string& between) {
  std::string out;
  for (const dmlcert::OpKind op : dmlcert::all_ops())
    if (op != dmlcert::OpKind::SLICE)
      out += (out.empty() ? "" : between) + std::string(dmlcert::name(op)) + each;
  return out;
}

std::ostream& operator<<(std::ostream& os, const ScopeRow& r) {
  return os << r.name;
}

class Scope : public testing::TestWithParam<ScopeRow> {};

TEST_P(Scope, CertifiesForTheScopeAndSaysSoInEveryFormat) {
  const ScopeRow& row = GetParam();
  const Certified c = certify(row.name, row.plugin, row.args);
  EXPECT_EQ(c.exit_code, 0) << c.text;
  EXPECT_TRUE(c.report["failures"].empty()) << c.report["failures"].dump(2);
  EXPECT_EQ(c.report["verdict"], row.verdict);
  EXPECT_EQ(c.report["scope"]["outside"], row.outside);
  EXPECT_NE(c.text.find("\n" + row.verdict + "\n"), std::string::npos) << c.text;
  EXPECT_NE(c.text.find("Outside the scope: " + row.outside), std::string::npos) << c.text;
  EXPECT_TRUE(c.markdown.starts_with("# " + row.verdict + "\n")) << c.markdown.substr(0, 200);
  EXPECT_NE(c.html.find("<h1>" + row.verdict + "</h1>"), std::string::npos);
  EXPECT_NE(c.junit.find("dmlcert certify: " + row.verdict), std::string::npos);
  EXPECT_NE(c.junit.find("<property name=\"outside_scope\" value=\"" + row.outside + "\"/>"),
            std::string::npos)
      << c.junit.substr(0, 2000);
}

INSTANTIATE_TEST_SUITE_P(SliceOnly, Scope,
                         testing::Values(ScopeRow{"by_implements", DMLCERT_SLICE_ONLY_PLUGIN, "--level 5_0",
                                                  "CERTIFIED at 5_0 for SLICE (all 11 types)",
                                                  all_but_slice(" not claimed", "; ")},
                                         ScopeRow{"by_ops", DMLCERT_REFERENCE_PLUGIN,
                                                  "--level 5_0 --ops SLICE",
                                                  "CERTIFIED at 5_0 for SLICE (all 11 types)",
                                                  all_but_slice("", ", ") + " not asked for (--ops)"}),
                         [](const testing::TestParamInfo<ScopeRow>& row) { return row.param.name; });

TEST(Scope, AllOperatorsIsSaidSo) {
  const Certified c = certify("all", DMLCERT_REFERENCE_PLUGIN, "--level 2_1");
  EXPECT_EQ(c.report["verdict"], "CERTIFIED at 2_1 (all operators)");
  EXPECT_EQ(c.report["scope"]["outside"], "");
}

// What a backend did with each class U rule's cases, as every format shows it.
struct ProfileRow {
  std::string name, plugin;
  std::map<std::string, std::string> behaviours;  // rule -> the one behaviour seen, every time
};

std::ostream& operator<<(std::ostream& os, const ProfileRow& r) {
  return os << r.name;
}

class BehaviourProfile : public testing::TestWithParam<ProfileRow> {};

TEST_P(BehaviourProfile, NamesWhatTheBackendDidWithEachUnspecifiedRule) {
  const ProfileRow& row = GetParam();
  const Certified c = certify(row.name, row.plugin, "--level 5_0 --ops SCATTER_ND,GATHER_ELEMENTS");
  EXPECT_EQ(c.exit_code, 0) << c.text;
  std::map<std::string, json> seen;
  for (const json& b : c.report["behaviour_profile"]) seen[b["rule"]] = b;
  for (const auto& [rule, behaviour] : row.behaviours) {
    ASSERT_TRUE(seen.count(rule)) << rule << " is missing from " << c.report["behaviour_profile"].dump(2);
    const json& b = seen[rule];
    EXPECT_TRUE(b["same_every_time"].get<bool>()) << rule << ": " << b.dump();
    EXPECT_TRUE(b["behaviours"].contains(behaviour)) << rule << ": " << b.dump();
    const std::string line = rule + ": " + behaviour + " ";
    EXPECT_NE(c.text.find(line), std::string::npos) << c.text;
    EXPECT_NE(c.markdown.find("| " + rule + " | " + behaviour + " "), std::string::npos);
    EXPECT_NE(c.html.find(rule + "</td><td class=\"l\">" + behaviour + " "), std::string::npos);
    EXPECT_NE(c.junit.find("<property name=\"behaviour." + rule + "\" value=\"" + behaviour + " "),
              std::string::npos)
        << rule;
  }
}

std::vector<ProfileRow> profile_rows() {
  std::vector<ProfileRow> rows = {
      {"reference",
       DMLCERT_REFERENCE_PLUGIN,
       {{"SCATTERND.DUPLICATE", "last write wins"},
        {"SCATTERND.INDEX_RANGE", "rejected"},
        {"GATHERELEMENTS.INDEX_RANGE", "rejected"}}},
      {"optimized",
       DMLCERT_OPTIMIZED_PLUGIN,
       {{"SCATTERND.DUPLICATE", "last write wins"},
        {"SCATTERND.INDEX_RANGE", "rejected"},
        {"GATHERELEMENTS.INDEX_RANGE", "rejected"}}},
  };
#ifdef DMLCERT_MUTATION_PLUGIN_DIR
  rows.push_back({"clamps_indices",
                  DMLCERT_MUTATION_PLUGIN_DIR "/variant_clamps_indices.so",
                  {{"SCATTERND.INDEX_RANGE", "clamped"}, {"GATHERELEMENTS.INDEX_RANGE", "clamped"}}});
  rows.push_back({"scatter_nd_first_write_wins",
                  DMLCERT_MUTATION_PLUGIN_DIR "/variant_scatter_nd_first_write_wins.so",
                  {{"SCATTERND.DUPLICATE", "first write wins"}}});
#endif
  return rows;
}

INSTANTIATE_TEST_SUITE_P(Backends, BehaviourProfile, testing::ValuesIn(profile_rows()),
                         [](const testing::TestParamInfo<ProfileRow>& row) { return row.param.name; });

}  // namespace

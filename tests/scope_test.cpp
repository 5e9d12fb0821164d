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
#include "dmlcert/support.h"
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

Certified certify(const std::string& name, const std::string& plugin, const std::string& args,
                  const std::string& budget = "smoke") {
  const fs::path dir = dmlcert::test::scratch_dir("scope_test_" + name);
  const std::string command = std::string(DMLCERT_CLI) + " certify --backend plugin:" + plugin + " " + args +
                              " --budget " + budget + " --repro-dir " + (dir / "repros").string() +
                              " --report " + (dir / "r.json").string() + " --markdown " +
                              (dir / "r.md").string() + " --html " + (dir / "r.html").string() + " --junit " +
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

// The operators other than `kept`, in the registry's order, each followed by `each` and joined by
// `between`: what a one-operator scope leaves outside, whatever operators the registry holds.
std::string all_but(dmlcert::OpKind kept, const std::string& each, const std::string& between) {
  std::string out;
  for (const dmlcert::OpKind op : dmlcert::all_ops())
    if (op != kept) out += (out.empty() ? "" : between) + std::string(dmlcert::name(op)) + each;
  return out;
}
std::string all_but_slice(const std::string& each, const std::string& between) {
  return all_but(dmlcert::OpKind::SLICE, each, between);
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

// Each operator in the registry's order: the others not claimed at all, GATHER_ELEMENTS not for
// the index types other than INT32.
std::string outside_but_gather_int32() {
  std::string out;
  for (const dmlcert::OpKind op : dmlcert::all_ops())
    out += (out.empty() ? "" : "; ") + std::string(dmlcert::name(op)) +
           (op == dmlcert::OpKind::GATHER_ELEMENTS ? " (INT64, UINT64, UINT32 indices) not claimed"
                                                   : " not claimed");
  return out;
}

// A backend that takes one index type (implements_index_type) is certified for it, and the others
// are outside its scope, as unclaimed cells are.
INSTANTIATE_TEST_SUITE_P(GatherInt32Indices, Scope,
                         testing::Values(ScopeRow{
                             "by_index_type", DMLCERT_GATHER_INT32_INDICES_PLUGIN, "--level 5_0",
                             "CERTIFIED at 5_0 for GATHER_ELEMENTS (all 11 types; INT32 indices)",
                             outside_but_gather_int32()}),
                         [](const testing::TestParamInfo<ScopeRow>& row) { return row.param.name; });

// Every word a report could say about another operator: its name, and its rules' prefix.
std::vector<std::string> words_of_other_operators(dmlcert::OpKind kept) {
  std::vector<std::string> out;
  for (const dmlcert::OpKind op : dmlcert::all_ops())
    if (op != kept) {
      out.emplace_back(dmlcert::name(op));
      out.push_back(std::string(dmlcert::info(op).rule_prefix) + ".");
    }
  return out;
}

std::string without(std::string text, const std::string& part) {
  for (size_t at; !part.empty() && (at = text.find(part)) != std::string::npos;) text.erase(at, part.size());
  return text;
}

// What lies outside the scope is one line. No rule check, profile row, matrix row or testcase of
// an operator the backend disowns appears in any format.
TEST(Scope, AOneOperatorBackendSeesNothingOfTheOthersInAnyFormat) {
  const Certified c = certify("one_operator", DMLCERT_GATHER_INT32_INDICES_PLUGIN, "--level 5_0");
  ASSERT_EQ(c.exit_code, 0) << c.text;
  const std::string outside = c.report["scope"]["outside"];
  json report = c.report;
  report["scope"].erase("outside");
  report["scope"].erase("claims");  // the scope itself: every cell of the table, claimed or not
  report["scope"].erase("index_claims");
  const std::pair<const char*, std::string> formats[] = {{"text", without(c.text, outside)},
                                                         {"Markdown", without(c.markdown, outside)},
                                                         {"HTML", without(c.html, outside)},
                                                         {"JUnit", without(c.junit, outside)},
                                                         {"JSON", report.dump()}};
  // Every cell it claims ran and passed: its cases were of the index type it takes.
  for (const json& cell : c.report["cells"])
    if (cell["role"] != "indices" || cell["type"] == "INT32") {
      EXPECT_EQ(cell["status"], "passed") << cell["key"];
    }
  for (const auto& [format, text] : formats)
    for (const std::string& word : words_of_other_operators(dmlcert::OpKind::GATHER_ELEMENTS))
      EXPECT_EQ(text.find(word), std::string::npos)
          << format << " names " << word << ": ..."
          << text.substr(text.find(word) < 200 ? 0 : text.find(word) - 200, 400);
}

// The cells of GATHER_ELEMENTS at `level` the INT32-indices backend claims: every type of its input
// and output, and the INT32 row of its indices. Taken from the support table, not from a report.
size_t claimed_gather_cells(dmlcert::FeatureLevel level) {
  size_t n = 0;
  for (const dmlcert::SupportCell& cell : dmlcert::support_cells(level))
    if (cell.op == dmlcert::OpKind::GATHER_ELEMENTS &&
        (cell.role != dmlcert::Role::INDICES || cell.type == dmlcert::DataType::INT32))
      ++n;
  return n;
}

// Stopped early, the run counts only the cells in its scope: not those of operators the backend
// disowns, nor the index types it does not take.
TEST(Scope, AnInterruptedRunCountsOnlyTheCellsInTheScope) {
  const Certified c =
      certify("interrupted", DMLCERT_GATHER_INT32_INDICES_PLUGIN, "--level 5_0 --time-limit 1", "thorough");
  ASSERT_EQ(c.exit_code, 1) << c.text;
  const std::string verdict = c.report["verdict"];
  ASSERT_NE(verdict.find("the run is incomplete"), std::string::npos) << verdict;
  const std::string of = " of " + std::to_string(claimed_gather_cells(dmlcert::FeatureLevel::L5_0)) +
                         " cells in the scope do not pass";
  EXPECT_NE(verdict.find(of), std::string::npos) << verdict << "\nexpected: ..." << of;
  for (const json& missing : c.report["missing_cells"]) {
    const std::string cell = missing["cell"];
    EXPECT_TRUE(cell.starts_with("GATHER_ELEMENTS/")) << cell;
    EXPECT_FALSE(cell.starts_with("GATHER_ELEMENTS/indices/") &&
                 !cell.starts_with("GATHER_ELEMENTS/indices/INT32/"))
        << cell;
  }
}

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

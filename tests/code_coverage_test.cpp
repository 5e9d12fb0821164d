// The certificate's code coverage (docs/coverage.md): how much of the plugin's own code a run
// reached, from the edge counters of a plugin compiled with SanitizerCoverage, per operator, per
// source file and per function; and what a report says when there are none.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <sstream>

#include "report.h"
#include "report_code_coverage.h"
#include "scratch_dir.h"

namespace dmlcert::cert {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;
using ::testing::HasSubstr;

std::string slurp(const fs::path& p) {
  std::stringstream s;
  s << std::ifstream(p).rdbuf();
  return s.str();
}

// ---- The model, on hand-made coverage ------------------------------------------------------

struct RangesRow {
  const char* name;
  std::vector<uint8_t> flags;
  std::string text;
};
class Ranges : public testing::TestWithParam<RangesRow> {};
TEST_P(Ranges, ReadBackAsWritten) {
  const RangesRow& row = GetParam();
  EXPECT_EQ(ranges_text(row.flags), row.text);
  std::vector<uint8_t> back(row.flags.size(), 0);
  ASSERT_TRUE(parse_ranges(row.text, back));
  EXPECT_EQ(back, row.flags);
}
INSTANTIATE_TEST_SUITE_P(EdgeLists, Ranges,
                         testing::Values(RangesRow{"none", {0, 0, 0}, ""}, RangesRow{"one", {0, 1, 0}, "1"},
                                         RangesRow{"a_run_and_a_single", {1, 1, 1, 0, 1}, "0-2,4"},
                                         RangesRow{"all", {1, 1, 1, 1}, "0-3"}),
                         [](const testing::TestParamInfo<RangesRow>& row) {
                           return std::string(row.param.name);
                         });

TEST(Ranges, RefusesWhatIsNotAListOfEdges) {
  std::vector<uint8_t> flags(4, 0);
  // Ascending and disjoint only: a report that repeats or overlaps ranges is refused, not worked
  // through (a million copies of "0-3999999" would take hours).
  for (const char* bad : {"x", "3-1", "0-9", "1,,2", "2-", "0-1,1", "2,1", "0,0", "1,", "-1", "01234567890"})
    EXPECT_FALSE(parse_ranges(bad, flags)) << bad;
}

// Two functions in two files; SLICE reached f's entry and one edge, REDUCE g's entry.
Report two_functions() {
  Report r;
  r.shards = {{0, 1}};
  r.scope.checked = std::vector<OpKind>{OpKind::SLICE, OpKind::REDUCE};
  CodeCoverage c;
  c.instrumented = true;
  c.modules = {{"/p/libvendor.so", 0, 6}};
  c.edges = {{0x10, true}, {0x14, false}, {0x18, false}, {0x40, true}, {0x44, false}, {0x80, true}};
  c.reached_loading.assign(6, 0);
  c.add(OpKind::SLICE, {0, 1});
  c.add(OpKind::REDUCE, {3});
  r.code_coverage = c;
  r.code_functions = {{"vendor::slice_kernel(int, int)", "src/slice.cpp", 10, 0, 3},
                      {"vendor::reduce_kernel", "src/reduce.cpp", 5, 3, 2},
                      {"vendor::never", "src/reduce.cpp", 40, 5, 1}};
  r.code_files = {"src/slice.cpp", "src/reduce.cpp"};
  r.edge_sources = {{0, 10}, {0, 11}, {0, 12}, {1, 5}, {1, 6}, {1, 40}};
  return r;
}

TEST(CodeCoverageSummary, CountsEdgesAndFunctionsPerOperatorAndFile) {
  const Report r = two_functions();
  const CodeCoverageSummary s = summarize_code(r);
  EXPECT_EQ(s.edges.reached, 3u);
  EXPECT_EQ(s.edges.total, 6u);
  EXPECT_EQ(s.functions.reached, 2u);
  ASSERT_EQ(s.operators.size(), 2u);
  EXPECT_EQ(s.operators[0].op, OpKind::SLICE);
  EXPECT_EQ(s.operators[0].edges.reached, 2u);
  EXPECT_EQ(s.operators[0].functions.reached, 1u);
  EXPECT_EQ(s.operators[1].edges.reached, 1u);
  ASSERT_EQ(s.files.size(), 2u);
  EXPECT_EQ(s.files[0].file, "src/reduce.cpp");
  EXPECT_EQ(s.files[0].functions.text(), "1 of 2 (50.0%)");
  EXPECT_EQ(s.files[1].edges.text(), "2 of 3 (66.7%)");
  ASSERT_EQ(s.never_reached.size(), 1u);
  EXPECT_EQ(s.never_reached[0]->name, "vendor::never");
  EXPECT_EQ(code_coverage_line(r),
            "Code coverage of the backend's own code: 3 of 6 (50.0%) edges, 2 of 3 (66.7%) functions");
  EXPECT_THAT(code_coverage_details(r, 10),
              testing::ElementsAre("per operator: SLICE 33.3% of edges, 33.3% of functions; REDUCE 16.7% of "
                                   "edges, 33.3% of functions",
                                   "never reached: 1 functions: vendor::never (src/reduce.cpp:40)"));
}

TEST(CodeCoverageSummary, SaysWhyThereIsNone) {
  Report r;
  EXPECT_EQ(code_coverage_line(r), "") << "an in-process backend cannot tell";
  r.code_coverage.emplace();
  r.code_coverage->why_not = "the plugin was not compiled with SanitizerCoverage";
  EXPECT_EQ(code_coverage_line(r), "Code coverage: none: the plugin was not compiled with SanitizerCoverage");
  EXPECT_EQ(to_lcov(r), "");
}

TEST(CodeCoverageLcov, OneRecordPerFileWithFunctionsAndLines) {
  const std::string lcov = to_lcov(two_functions());
  EXPECT_THAT(lcov, HasSubstr("SF:src/slice.cpp\nFN:10,vendor::slice_kernel(int; int)\n"
                              "FNDA:1,vendor::slice_kernel(int; int)\nFNF:1\nFNH:1\n"
                              "DA:10,1\nDA:11,1\nDA:12,0\nLF:3\nLH:2\nend_of_record\n"));
  EXPECT_THAT(lcov, HasSubstr("FNDA:0,vendor::never\n"));
}

TEST(CodeCoverageMerge, ShardsOfOnePluginUniteAndOfTwoBuildsDoNot) {
  Report a = two_functions(), b = two_functions();
  b.code_coverage->reached[static_cast<size_t>(OpKind::SLICE)].assign(6, 0);
  b.code_coverage->add(OpKind::SLICE, {2});
  merge_code_coverage(a, b);
  EXPECT_EQ(summarize_code(a).operators[0].edges.reached, 3u);
  Report other = two_functions();
  other.code_coverage->edges.pop_back();
  merge_code_coverage(a, other);
  EXPECT_FALSE(a.code_coverage->instrumented);
  EXPECT_THAT(a.code_coverage->why_not, HasSubstr("different builds of the plugin"));
}

TEST(CodeCoverageJson, SurvivesTheReportFile) {
  const Report r = two_functions();
  std::string error;
  const auto back = report_from_json(to_json(r), &error);
  ASSERT_TRUE(back) << error;
  ASSERT_TRUE(back->code_coverage);
  EXPECT_EQ(code_coverage_line(*back), code_coverage_line(r));
  EXPECT_EQ(code_coverage_details(*back, 10), code_coverage_details(r, 10));
  EXPECT_EQ(to_lcov(*back), to_lcov(r)) << "the lines survive too: a merged report's tracefile has them";
  const json j = json::parse(to_json(r));
  EXPECT_EQ(j["code_coverage"]["reached"]["SLICE"], "0-1");
  EXPECT_EQ(j["code_coverage"]["never_reached"][0]["function"], "vendor::never");
}

// A report's coverage is read as untrusted input: what cannot be (a float for a count, more edges
// than the child maps, functions that overlap, sources past the edges) is refused with the field
// named, never allocated or looped over.
struct HostileCoverageRow {
  const char* name;
  std::function<void(json&)> spoil;
  const char* says;
};
class HostileCoverage : public testing::TestWithParam<HostileCoverageRow> {};
TEST_P(HostileCoverage, IsRefusedWithTheFieldNamed) {
  json j = json::parse(to_json(two_functions()));
  GetParam().spoil(j["code_coverage"]);
  std::string error;
  EXPECT_FALSE(report_from_json(j.dump(), &error));
  EXPECT_THAT(error, HasSubstr(GetParam().says));
}
INSTANTIATE_TEST_SUITE_P(
    Reports, HostileCoverage,
    testing::Values(
        HostileCoverageRow{"float_total", [](json& c) { c["edges"]["total"] = 1e300; }, "edges.total"},
        HostileCoverageRow{"too_many_edges", [](json& c) { c["edges"]["total"] = 1u << 30; }, "edges.total"},
        HostileCoverageRow{"overlapping_functions", [](json& c) { c["function_table"][1]["first_edge"] = 1; },
                           "function_table"},
        HostileCoverageRow{"function_past_the_edges", [](json& c) { c["function_table"][2]["edges"] = 9; },
                           "function_table"},
        HostileCoverageRow{"repeated_ranges", [](json& c) { c["reached"]["SLICE"] = "0-1,0-1"; },
                           "reached.SLICE"},
        HostileCoverageRow{"sources_past_the_edges", [](json& c) { c["edge_sources"] = "1:1,2,3,4,5,6,7;"; },
                           "edge_sources"},
        HostileCoverageRow{"source_of_no_file", [](json& c) { c["edge_sources"] = "9:1;"; }, "edge_sources"}),
    [](const testing::TestParamInfo<HostileCoverageRow>& row) { return std::string(row.param.name); });

// ---- End to end: certify a plugin -----------------------------------------------------------

struct Certified {
  int exit_code = -1;
  std::string text, lcov;
  json report;
};

Certified certify(const std::string& name, const std::string& plugin, const std::string& args) {
  const fs::path dir = test::scratch_dir("code_coverage_test_" + name);
  const std::string command = std::string(DMLCERT_CLI) + " certify --backend plugin:" + plugin + " " + args +
                              " --budget smoke --level 5_0 --repro-dir " + (dir / "repros").string() +
                              " --report " + (dir / "r.json").string() + " --coverage-lcov " +
                              (dir / "c.info").string() + " >" + (dir / "out.txt").string() + " 2>&1";
  Certified c;
  const int raw = std::system(command.c_str());
  c.exit_code = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  c.text = slurp(dir / "out.txt");
  c.report = json::parse(slurp(dir / "r.json"));
  c.lcov = slurp(dir / "c.info");
  fs::remove_all(dir);
  return c;
}

const json* function_named(const json& table, const std::string& name) {
  for (const json& f : table)
    if (f["name"] == name) return &f;
  return nullptr;
}

#ifdef DMLCERT_COVERAGE_PROBE_PLUGIN
// The probe plugin's instrumented file decides a path per call; SLICE's calls reach its SLICE
// branch, and the function nothing calls is listed as never reached, with its file.
TEST(CodeCoverageCertify, AnInstrumentedPluginsReportGivesItsCoveragePerOperator) {
  const Certified c = certify("probe", DMLCERT_COVERAGE_PROBE_PLUGIN, "--ops SLICE,REDUCE");
  EXPECT_EQ(c.exit_code, 0) << c.text;
  const json& code = c.report["code_coverage"];
  ASSERT_TRUE(code.is_object()) << c.report["code_coverage"].dump();
  ASSERT_EQ(code["instrumented"], true) << code.dump();
  EXPECT_GT(code["edges"]["reached"].get<int>(), 0);
  ASSERT_EQ(code["operators"].size(), 2u);
  EXPECT_EQ(code["operators"][0]["op"], "SLICE");
  EXPECT_GT(code["operators"][0]["edges"]["reached"].get<int>(), 0);
  EXPECT_GT(code["operators"][1]["edges"]["reached"].get<int>(), 0);
  EXPECT_FALSE(code["reached"].contains("GATHER_ELEMENTS")) << "no GATHER_ELEMENTS call ran";
  // Each operator's calls took its own branch of the probe's dispatcher: the edges are attributed
  // per call, not to every operator that ran.
  EXPECT_NE(code["reached"]["SLICE"], code["reached"]["REDUCE"]);
  const json* path = function_named(code["function_table"], "dmlcert_probe_path");
  ASSERT_NE(path, nullptr) << code["function_table"].dump();
  EXPECT_THAT((*path)["file"].get<std::string>(), testing::EndsWith("coverage_probe_paths.c"));
  bool listed = false;
  for (const json& f : code["never_reached"]) listed |= f["function"] == "dmlcert_probe_never_called";
  EXPECT_TRUE(listed) << code["never_reached"].dump();
  EXPECT_THAT(c.text, HasSubstr("Code coverage of the backend's own code: "));
  EXPECT_THAT(c.lcov, HasSubstr("FNDA:0,dmlcert_probe_never_called\n"));
  EXPECT_THAT(c.lcov, HasSubstr("FNDA:1,dmlcert_probe_path\n"));
}
#endif

// A plugin compiled without SanitizerCoverage certifies as before, and its report says why it
// has no coverage (in the sanitize preset's build every plugin is instrumented: then it has).
TEST(CodeCoverageCertify, APluginWithoutCountersSaysSo) {
  const Certified c = certify("reference", DMLCERT_REFERENCE_PLUGIN, "--ops SLICE");
  EXPECT_EQ(c.exit_code, 0) << c.text;
#ifdef DMLCERT_EVERY_PLUGIN_INSTRUMENTED
  EXPECT_EQ(c.report["code_coverage"]["instrumented"], true);
#else
  EXPECT_EQ(c.report["code_coverage"]["instrumented"], false);
  EXPECT_THAT(c.report["code_coverage"]["why_not"].get<std::string>(),
              HasSubstr("not compiled with SanitizerCoverage"));
  EXPECT_THAT(c.text, HasSubstr("Code coverage: none: the plugin was not compiled with SanitizerCoverage"));
  EXPECT_THAT(c.text, HasSubstr("no code coverage to write"));
#endif
}

}  // namespace
}  // namespace dmlcert::cert

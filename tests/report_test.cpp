// Reports must stay well-formed whatever a backend under test says: its name and its messages
// end up inside HTML and JUnit XML.
#include "report.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <ostream>
#include <string>
#include <vector>

#include "report_summary.h"

namespace dmlcert::cert {
namespace {

CheckId check(const std::string& name) {
  return *CheckId::parse(name);
}

using ::testing::HasSubstr;

Failure failure(const std::string& where, const std::string& detail) {
  Failure f;
  f.id = *CheckId::parse(where);
  f.counts_at = f.id.check();
  f.detail = detail;
  return f;
}

Report report_with_hostile_text() {
  Report r;
  r.backend = "plugin:/tmp/lib<evil>.so";
  r.backend_name = "a&b \"quoted\" <script>\a\x1b[31m";
  r.budget = "quick";
  Failure f = failure("cells/SLICE/input/FLOAT32/r1/random/0",
                      "message with a bell \a, an escape \x1b[31m and </failure>");
  f.case_name = "x";
  f.outcome = Outcome::Failed;
  f.repro = "/tmp/repro.json";
  r.failures.push_back(f);
  // The plugin's own symbols and paths end up in the code coverage: a template's name has angle
  // brackets, and a file may be named anything.
  CodeCoverage code;
  code.instrumented = true;
  code.modules = {{"/tmp/lib<evil>.so", 0, 2}};
  code.edges = {{0x10, true}, {0x20, true}};
  code.add(OpKind::SLICE, {0});
  r.code_coverage = code;
  r.code_functions = {{"kernel<script>\a", "/src/<evil>.cpp", 1, 0, 1},
                      {"never<evil>", "/src/x.cpp", 9, 1, 1}};
  return r;
}

struct MarkupRow {
  const char* name;
  std::string (*render)(const Report&);
};

void PrintTo(const MarkupRow& r, std::ostream* os) {
  *os << r.name;
}

class ReportMarkup : public ::testing::TestWithParam<MarkupRow> {};

TEST_P(ReportMarkup, EscapesMarkupAndDropsControlCharacters) {
  const std::string out = GetParam().render(report_with_hostile_text());
  EXPECT_EQ(out.find("<evil>"), std::string::npos);
  EXPECT_EQ(out.find("<script>"), std::string::npos);
  EXPECT_NE(out.find("a&amp;b &quot;quoted&quot; &lt;script&gt;"), std::string::npos) << out;
  EXPECT_EQ(out.find('\a'), std::string::npos);
  EXPECT_EQ(out.find('\x1b'), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(
    Formats, ReportMarkup,
    ::testing::Values(MarkupRow{"junit", [](const Report& r) { return to_junit(r); }},
                      MarkupRow{"html", [](const Report& r) { return to_html(r, "/tmp"); }}),
    [](const ::testing::TestParamInfo<MarkupRow>& row) { return std::string(row.param.name); });

// A failing cell's JUnit testcase carries, for each of its failures, the command that reproduces
// it and its minimal case: what a dashboard's reader opens first.
TEST(JUnit, AFailingCellCarriesEachFailuresReproAndMinimalCase) {
  Report r;
  r.shards = {{0, 1}};
  Failure f = failure("cells/SLICE/input/FLOAT32/r1/random/0", "wrong output: 1 of 4 elements differ");
  f.repro = "/repros/cells_SLICE_input_FLOAT32_r1_random_0.json";
  f.shrunk = "/repros/cells_SLICE_input_FLOAT32_r1_random_0.min.json";
  f.reproduce = "dmlcert run " + f.shrunk + " --backend plugin:/x.so";
  r.failures = {f};
  CellResult c;
  c.cell = f.id.cell;
  c.counts[static_cast<size_t>(Outcome::Failed)] = 1;
  r.cells = {c};
  const std::string xml = to_junit(r);
  const size_t cell = xml.find("classname=\"dmlcert.cells\" name=\"SLICE/input/FLOAT32/r1\"");
  ASSERT_NE(cell, std::string::npos) << xml;
  const std::string body = xml.substr(cell, xml.find("</testcase>", cell) - cell);
  EXPECT_NE(body.find("  reproduce: dmlcert run " + f.shrunk), std::string::npos) << body;
  EXPECT_NE(body.find("  minimal case: " + f.shrunk), std::string::npos) << body;
}

// The verdict names what the run checked. A backend that claims every cell of five operators but
// takes no index type was checked on the operators without indices only, and is certified for
// those alone. (The claims are of these five, so that a registry with more operators, such as
// tests/fixture_operator's, reads the same report.)
TEST(ScopeText, NamesOnlyTheOperatorsTheRunChecked) {
  Report r;
  r.shards = {{0, 1}};
  r.level = FeatureLevel::L5_0;
  const std::vector<OpKind> five{OpKind::SLICE, OpKind::SLICE1, OpKind::SCATTER_ND, OpKind::REDUCE,
                                 OpKind::GATHER_ELEMENTS};
  for (const SupportCell& cell : support_cells(r.level)) {
    if (std::find(five.begin(), five.end(), cell.op) == five.end()) continue;
    if (cell.role == Role::INPUT &&
        std::none_of(r.scope.claims.begin(), r.scope.claims.end(), [&](const Scope::Claim& c) {
          return c.op == cell.op && c.function == cell.function && c.type == cell.type;
        }))
      r.scope.claims.push_back({cell.op, cell.function, cell.type, true});
    if (cell.role == Role::INDICES) r.scope.index_claims.push_back({cell.op, cell.type, false});
  }
  r.scope.checked = std::vector<OpKind>{OpKind::SLICE, OpKind::SLICE1, OpKind::REDUCE};
  EXPECT_EQ(scope_text(r), "SLICE (all 11 types), SLICE1 (all 11 types), REDUCE (all 12 functions)");
  EXPECT_EQ(outside_text(r), "SCATTER_ND not claimed; GATHER_ELEMENTS not claimed");
  r.scope.checked = std::vector<OpKind>{};
  EXPECT_FALSE(certified(r)) << verdict(r);
  EXPECT_THAT(verdict(r), HasSubstr("the backend claims no cell"));
}

// What a CI dashboard times and lists: each testcase has its wall time, and each corpus case is a
// testcase of its own, failing alone with its own repro.
Report report_with_times_and_corpus_cases() {
  Report r;
  r.shards = {{0, 1}};
  CellResult c;
  c.cell = SupportCell{OpKind::SLICE, std::nullopt, Role::INPUT, DataType::FLOAT32, 1};
  c.counts[static_cast<size_t>(Outcome::Passed)] = 3;
  c.seconds = 1.25;
  r.cells = {c};
  RuleResult rule;
  rule.rule = "SLICE.WINDOW_BOUNDS";
  rule.counts[static_cast<size_t>(Outcome::Passed)] = 2;
  rule.seconds = 0.5;
  r.rules = {rule};
  r.corpus_cases = {{"valid/slice/doc-example", {}, 0.002}, {"invalid/slice/offsets", {}, 0.01}};
  r.corpus_cases[0].counts[static_cast<size_t>(Outcome::Passed)] = 1;
  r.corpus_cases[1].counts[static_cast<size_t>(Outcome::Failed)] = 1;
  r.corpus[static_cast<size_t>(Outcome::Passed)] = 1;
  r.corpus[static_cast<size_t>(Outcome::Failed)] = 1;
  Failure f = failure("corpus/1-invalid/slice/offsets", "invalid case got status ok");
  f.reproduce = "dmlcert run corpora/invalid/slice/offsets.json --backend plugin:/x.so";
  r.failures = {f};
  return r;
}

TEST(JUnit, EveryTestcaseHasItsTimeAndEachCorpusCaseIsItsOwn) {
  const std::string xml = to_junit(report_with_times_and_corpus_cases());
  EXPECT_THAT(xml, HasSubstr("name=\"SLICE/input/FLOAT32/r1\" time=\"1.250\"/>"));
  EXPECT_THAT(xml, HasSubstr("name=\"SLICE.WINDOW_BOUNDS\" time=\"0.500\"/>"));
  EXPECT_THAT(xml,
              HasSubstr("classname=\"dmlcert.corpus\" name=\"valid/slice/doc-example\" time=\"0.002\"/>"));
  const size_t failing =
      xml.find("classname=\"dmlcert.corpus\" name=\"invalid/slice/offsets\" time=\"0.010\">");
  ASSERT_NE(failing, std::string::npos) << xml;
  const std::string body = xml.substr(failing, xml.find("</testcase>", failing) - failing);
  EXPECT_THAT(body, HasSubstr("<failure type=\"failed\""));
  EXPECT_THAT(body, HasSubstr("reproduce: dmlcert run corpora/invalid/slice/offsets.json"));
  EXPECT_EQ(xml.find("corpus replay"), std::string::npos) << "the corpus is no longer one testcase";
}

// The times and the corpus cases survive the JSON report, and shards' add up.
TEST(ReportJson, TimesAndCorpusCasesSurviveAndShardsAddThem) {
  Report a = report_with_times_and_corpus_cases();
  std::string error;
  const auto back = report_from_json(to_json(a), &error);
  ASSERT_TRUE(back) << error;
  EXPECT_DOUBLE_EQ(back->cells.at(0).seconds, 1.25);
  EXPECT_DOUBLE_EQ(back->rules.at(0).seconds, 0.5);
  ASSERT_EQ(back->corpus_cases.size(), 2u);
  EXPECT_EQ(back->corpus_cases[1].name, "invalid/slice/offsets");
  EXPECT_EQ(back->corpus_cases[1].counts, a.corpus_cases[1].counts);
  Report b = *back;
  a.shards = {{0, 2}};
  b.shards = {{1, 2}};
  const auto both = merge({a, b}, &error);
  ASSERT_TRUE(both) << error;
  EXPECT_DOUBLE_EQ(both->cells.at(0).seconds, 2.5);
  EXPECT_EQ(both->corpus_cases.at(0).counts[static_cast<size_t>(Outcome::Passed)], 2u);
  EXPECT_DOUBLE_EQ(both->corpus_cases.at(1).seconds, 0.02);
}

// Failures of one kind in one place are one cause, whatever their numbers; a known one (--expect)
// is a cause of its own, listed after the new ones.
TEST(FailureGroups, OneCausePerPlaceAndKindNewBeforeKnown) {
  Report r;
  r.failures = {
      failure("cells/REDUCE.SUM/input/FLOAT16/r1/random/0",
              "wrong output: 2 of 9 elements differ; first at [0,3,0]: expected 206.6, got 206.5"),
      failure("cells/REDUCE.SUM/input/FLOAT16/r2/random/0",
              "wrong output: 35 of 102 elements differ; first at [0,0,0,0]: expected -11.94, got -12"),
      failure("cells/REDUCE.SUM/output/FLOAT32/r2/random/0",
              "wrong output: 1 of 1 elements differ; first at [0]"),
      failure("cells/REDUCE.SUM/input/FLOAT16/r3/random/0", "valid case was rejected (error: no)"),
      failure("cells/SLICE/input/FLOAT16/r3/random/0", "wrong output: 1 of 4 elements differ; first at [0]"),
      failure("sequences/REDUCE.SUM/input/FLOAT16/r4/random/7",
              "wrong output: 1 of 3 elements differ; first at [1]"),
  };
  ExpectationCheck known;
  known.known = {"REDUCE.SUM/output/FLOAT32/r2"};
  r.expectations = known;
  const std::vector<FailureGroup> groups = group_failures(r);
  ASSERT_EQ(groups.size(), 4u);
  EXPECT_EQ(groups[0].where, "REDUCE.SUM");
  EXPECT_EQ(groups[0].failures.size(), 3u);  // a sequence's failure in a cell is the cell's
  EXPECT_FALSE(groups[0].known);
  EXPECT_TRUE(groups[3].known);
  EXPECT_EQ(groups[3].failures.front()->id.to_string(), "cells/REDUCE.SUM/output/FLOAT32/r2/random/0");
}

// The cause the engine asks about before it investigates a failure again (EngineOptions::cause) is
// the reports' group: a crash is a call gone wrong in its operator, whatever its signal or address.
TEST(FailureGroups, ACrashIsItsOperatorsWhateverItsSignal) {
  const std::string segv_low = cause_key(
      check("cells/REDUCE.MAX/output/INT32/r4/random/0"), Outcome::Crash,
      "backend process killed by signal 11 (Segmentation fault) at address 0x30 (outside every binding)");
  const std::string segv_high =
      cause_key(check("levels/1_0/cells/REDUCE.MAX/output/FLOAT32/r4/exact/0"), Outcome::Crash,
                "backend process killed by signal 11 (Segmentation fault) at address 0x7f3a0012c0 (outside "
                "every binding)");
  const std::string abort = cause_key(check("cells/REDUCE.MAX/output/INT32/r4/random/1"), Outcome::Crash,
                                      "backend process killed by signal 6 (Aborted)");
  EXPECT_EQ(segv_low, segv_high);
  EXPECT_EQ(segv_low, abort);
  EXPECT_NE(segv_low, cause_key(check("cells/SLICE/output/INT32/r4/random/0"), Outcome::Crash,
                                "backend process killed by signal 11 (Segmentation fault) at address 0x30"));
}

// One bug is one cause wherever its failures show (report_summary.h, cause_of): across cells,
// levels, sequences, class U and robustness cases of its operator, and, for an invalid case, across
// the operators whose cases break the same rule. Two bugs are two causes.
struct CauseRow {
  const char* name;
  bool same;
  std::string a_where;
  Outcome a_outcome;
  std::string a_detail;
  std::string b_where;
  Outcome b_outcome;
  std::string b_detail;
  std::string b_op = "";  // Failure::op of the second case
};

void PrintTo(const CauseRow& r, std::ostream* os) {
  *os << r.name;
}

const std::string kWrong = "wrong output: 3 of 16 elements differ; first at [0,2]: expected 1, got 2";
const std::string kOob =
    "touched a guard page or canary of the output binding at byte offset 64 from its start";

class CauseOf : public ::testing::TestWithParam<CauseRow> {};

TEST_P(CauseOf, OneBugIsOneCauseAndTwoAreTwo) {
  const CauseRow& c = GetParam();
  const std::string a = cause_key(check(c.a_where), c.a_outcome, c.a_detail);
  const std::string b = cause_key(check(c.b_where), c.b_outcome, c.b_detail, c.b_op);
  if (c.same)
    EXPECT_EQ(a, b);
  else
    EXPECT_NE(a, b);
}

INSTANTIATE_TEST_SUITE_P(
    Table, CauseOf,
    ::testing::Values(
        CauseRow{"WrongOutputInACellAndALowerLevel", true, "cells/SLICE/input/FLOAT32/r4/random/6",
                 Outcome::Failed, kWrong, "levels/3_0/cells/SLICE/output/INT8/r1/exact/0", Outcome::Failed,
                 "wrong output: 1 of 1 elements differ; first at [0]: expected 5, got 0"},
        CauseRow{"WrongOutputInASequenceMember", true, "cells/SLICE/input/FLOAT32/r4/random/6",
                 Outcome::Failed, kWrong, "sequences/SLICE/input/FLOAT32/r6/exact/0/layout-1",
                 Outcome::Failed, kWrong},
        CauseRow{"InadmissibleClassUResultIsAWrongOutputOfItsOperator", true,
                 "cells/SLICE/input/FLOAT32/r4/random/6", Outcome::Failed, kWrong,
                 "unspecified/SLICE.STRIDE_ZERO/108", Outcome::Failed,
                 "executed to an inadmissible result: 1 of 1 elements differ; first at [0]"},
        CauseRow{"AClassUCaseIsItsReduceFunctions", true, "cells/REDUCE.ARGMAX/input/FLOAT32/r3/exact/0",
                 Outcome::Failed, kWrong, "unspecified/REDUCE.AXES_DUPLICATE/255", Outcome::Failed,
                 "executed to an inadmissible result: 2 of 6 elements differ", "REDUCE.ARGMAX"},
        CauseRow{"ACorpusCaseIsItsOperators", true, "cells/SLICE1/input/FLOAT32/r3/exact/0", Outcome::Failed,
                 kWrong, "corpus/12-slice1_reversed", Outcome::Failed, kWrong, "SLICE1"},
        CauseRow{"OobInACellAndARobustnessCase", true, "cells/SCATTER_ND/indices/UINT32/r8/random/6",
                 Outcome::Oob, kOob, "robustness/SCATTERND.INDEX_RANGE.extreme/511", Outcome::Oob,
                 "touched a guard page or canary of the output binding at byte offset 8 from its start"},
        CauseRow{
            "RejectionsWhateverTheBackendsMessage", true, "cells/GATHER_ELEMENTS/input/FLOAT32/r4/random/6",
            Outcome::Failed,
            "valid case got status invalid-argument: GATHERELEMENTS.INDEX_RANGE: index data out of range; "
            "the case breaks no rule at 5_0",
            "levels/4_1/cells/GATHER_ELEMENTS/output/INT8/r2/exact/0", Outcome::Failed,
            "valid case got status invalid-argument: axis 2 too large; the case breaks no rule at 4_1"},
        CauseRow{"AnInvalidRuleAcceptedInTwoOperators", true, "invalid/T.TOTAL_BYTES/3", Outcome::Failed,
                 "invalid case (T.TOTAL_BYTES) got status ok instead of invalid-argument",
                 "levels/3_0/invalid/T.TOTAL_BYTES/7", Outcome::Failed,
                 "invalid case (T.TOTAL_BYTES, SLICE.RANK) got status ok instead of invalid-argument"},
        CauseRow{"AnInvalidCaseAcceptedOrCrashingIsOneMissingCheck", true, "invalid/T.TOTAL_BYTES/46",
                 Outcome::Crash, "backend process killed by signal 11 (Segmentation fault) at address 0x10",
                 "invalid/T.TOTAL_BYTES/80", Outcome::Failed,
                 "invalid case (T.TOTAL_BYTES) got status ok instead of invalid-argument"},
        CauseRow{"AWriteBeforeRejectingIsItsOperatorsWhateverTheRule", true,
                 "sequences/SLICE1/input/INT8/r4/exact/0/at-1_0", Outcome::Failed,
                 "valid case was rejected (invalid-argument) but output bytes were written",
                 "invalid/T.TOTAL_BYTES/176", Outcome::Failed,
                 "invalid case was rejected (invalid-argument) but output bytes were written", "SLICE1"},
        CauseRow{"WrongOutputAndRejectionDiffer", false, "cells/SLICE/input/FLOAT32/r4/random/6",
                 Outcome::Failed, kWrong, "cells/SLICE/input/FLOAT32/r4/random/7", Outcome::Failed,
                 "valid case got status invalid-argument: rank 6; the case breaks no rule at 5_0"},
        CauseRow{"TwoOperatorsDiffer", false, "cells/SLICE/input/FLOAT32/r4/random/6", Outcome::Failed,
                 kWrong, "cells/SLICE1/input/FLOAT32/r4/random/6", Outcome::Failed, kWrong},
        CauseRow{"AReduceBugInTwoFunctions", true, "cells/REDUCE.SUM/input/FLOAT32/r2/random/0",
                 Outcome::Failed, kWrong, "cells/REDUCE.MAX/input/FLOAT32/r2/random/0", Outcome::Failed,
                 kWrong},
        CauseRow{"TwoInvalidRulesDiffer", false, "invalid/SLICE1.STRIDE_ZERO/1", Outcome::Failed,
                 "invalid case (SLICE1.STRIDE_ZERO) got status ok instead of invalid-argument",
                 "invalid/SLICE1.WINDOW_BOUNDS/1", Outcome::Failed,
                 "invalid case (SLICE1.WINDOW_BOUNDS) got status ok instead of invalid-argument"},
        CauseRow{"AnInvalidCaseAcceptedIsNotAWrongOutput", false, "invalid/SLICE1.STRIDE_ZERO/1",
                 Outcome::Failed,
                 "invalid case (SLICE1.STRIDE_ZERO) got status ok instead of invalid-argument",
                 "cells/SLICE1/input/FLOAT32/r4/random/6", Outcome::Failed, kWrong},
        CauseRow{"AWrongOutputAndAnOobAreOneFamily", true, "cells/SCATTER_ND/indices/UINT32/r8/random/6",
                 Outcome::Oob, kOob, "cells/SCATTER_ND/indices/UINT32/r8/random/5", Outcome::Failed, kWrong}),
    [](const ::testing::TestParamInfo<CauseRow>& row) { return std::string(row.param.name); });

// A cause names the checks and levels it covers and the failure whose minimal case shows it best.
TEST(FailureGroups, ACauseCoversItsChecksAndLevelsAndShowsItsSmallestCase) {
  Report r;
  r.level = FeatureLevel::L5_0;
  r.failures = {failure("cells/SLICE/input/FLOAT32/r4/random/6", kWrong),
                failure("levels/3_0/cells/SLICE/output/INT8/r1/exact/0", kWrong),
                failure("cells/SLICE/input/FLOAT32/r4/random/7", kWrong),
                failure("unspecified/SLICE.STRIDE_ZERO/2",
                        "executed to an inadmissible result: 1 of 1 elements differ")};
  r.failures[1].repro = "/tmp/b.json";
  r.failures[1].shrunk = "/tmp/b.min.json";
  r.failures[1].reproduce = "dmlcert run /tmp/b.min.json --backend reference";
  const std::vector<FailureGroup> groups = group_failures(r);
  ASSERT_EQ(groups.size(), 1u);
  const FailureGroup& g = groups.front();
  EXPECT_EQ(g.cause.name(), "SLICE: wrong output, memory fault or hang");
  EXPECT_THAT(g.checks, ::testing::ElementsAre("SLICE/input/FLOAT32/r4", "SLICE/output/INT8/r1",
                                               "unspecified/SLICE.STRIDE_ZERO"));
  EXPECT_THAT(g.levels, ::testing::ElementsAre(FeatureLevel::L3_0, FeatureLevel::L5_0));
  ASSERT_NE(g.example, nullptr);
  EXPECT_EQ(minimal_case(*g.example), "/tmp/b.min.json");
  // The JSON report leads with it.
  const std::string json = to_json(r);
  const size_t cause = json.find("\"case\": \"/tmp/b.min.json\"");
  EXPECT_NE(cause, std::string::npos) << json;
  EXPECT_LT(cause, json.find("\"cells\":"));
}

// A REDUCE cause is the operator's (cause_of), and named after its function when all of its
// failures are in one.
TEST(FailureGroups, AReduceCauseNamesItsFunctionWhenItHasOne) {
  Report r;
  r.failures = {failure("cells/REDUCE.SUM/input/FLOAT32/r2/random/0", kWrong),
                failure("unspecified/REDUCE.AXES_DUPLICATE/3",
                        "executed to an inadmissible result: 1 of 1 elements differ")};
  r.failures[1].op = "REDUCE.SUM";
  ASSERT_EQ(group_failures(r).size(), 1u);
  EXPECT_EQ(group_failures(r).front().cause.name(), "REDUCE.SUM: wrong output, memory fault or hang");
  r.failures.push_back(failure("cells/REDUCE.MAX/input/FLOAT32/r2/random/0", kWrong));
  ASSERT_EQ(group_failures(r).size(), 1u);
  EXPECT_EQ(group_failures(r).front().cause.name(), "REDUCE: wrong output, memory fault or hang");
}

// Every format counts its failures and causes in words that agree with the numbers.
TEST(FailureGroups, EveryFormatCountsOneCauseInTheSingular) {
  Report r;
  r.shards = {Shard{}};
  r.failures = {failure("cells/SLICE/input/FLOAT16/r3/random/0", "wrong output: 1 of 4 elements differ")};
  EXPECT_THAT(to_text(r), ::testing::HasSubstr("Failures by cause (1 in 1 cause)"));
  EXPECT_THAT(to_markdown(r, ""), ::testing::HasSubstr("## Failures by cause (1 failure, 1 cause)"));
  EXPECT_THAT(to_html(r, ""), ::testing::HasSubstr("<p>1 failure, 1 cause, most frequent first.</p>"));
  r.failures.push_back(
      failure("cells/SLICE1/input/FLOAT16/r3/random/0", "wrong output: 2 of 4 elements differ"));
  EXPECT_THAT(to_markdown(r, ""), ::testing::HasSubstr("(2 failures, 2 causes)"));
}

// A cell is judged on the cases in the scope. Cases the backend does not claim (unimplemented)
// neither pass nor fail it: a cell keyed by an index type (SCATTER_ND/indices/INT64) mixes input
// types the backend claims with one it disowns (FLOAT64, say), and passes on the claimed ones.
struct CellVerdictRow {
  std::string name;
  std::vector<std::pair<Outcome, uint64_t>> counts;
  uint64_t not_run = 0;
  bool outside_scope = false;  // every case unimplemented
  bool missing = false;        // in the scope and not passing: keeps the backend from certification
  bool flaky_fails = false;    // certify --flaky-fails
};

std::ostream& operator<<(std::ostream& os, const CellVerdictRow& r) {
  return os << r.name;
}

class CellVerdict : public testing::TestWithParam<CellVerdictRow> {};

TEST_P(CellVerdict, JudgesTheCasesInTheScope) {
  const CellVerdictRow& row = GetParam();
  Report r;
  r.shards = {Shard{}};
  r.scope.claims = {{OpKind::SCATTER_ND, std::nullopt, DataType::FLOAT32, true}};
  CellResult cell;
  cell.cell = SupportCell{OpKind::SCATTER_ND, std::nullopt, Role::INDICES, DataType::INT64, 2};
  for (const auto& [outcome, n] : row.counts) cell.counts[static_cast<size_t>(outcome)] = n;
  for (uint64_t i = 0; i < row.not_run; ++i) cell.not_run.add("after a timeout in this cell");
  r.cells.push_back(cell);
  r.flaky_fails = row.flaky_fails;
  EXPECT_EQ(outside_scope(r, r.cells[0]), row.outside_scope);
  EXPECT_EQ(missing_cells(r).size(), row.missing ? 1u : 0u);
  EXPECT_EQ(certified(r), !row.missing) << verdict(r);
}

INSTANTIATE_TEST_SUITE_P(
    Report, CellVerdict,
    testing::Values(
        CellVerdictRow{"all_passed", {{Outcome::Passed, 20}}},
        CellVerdictRow{"passed_and_unimplemented", {{Outcome::Passed, 20}, {Outcome::Unimplemented, 1}}},
        CellVerdictRow{"all_unimplemented", {{Outcome::Unimplemented, 5}}, 0, true},
        CellVerdictRow{
            "unimplemented_and_failed", {{Outcome::Unimplemented, 5}, {Outcome::Failed, 1}}, 0, false, true},
        CellVerdictRow{"passed_and_crashed", {{Outcome::Passed, 20}, {Outcome::Crash, 1}}, 0, false, true},
        CellVerdictRow{"unimplemented_then_not_run", {{Outcome::Unimplemented, 5}}, 3, false, true},
        CellVerdictRow{"nothing_ran", {}, 0, false, true},
        // Failed once, passed when run again alone: a pass unless asked otherwise.
        CellVerdictRow{"passed_and_flaky", {{Outcome::Passed, 20}, {Outcome::Flaky, 1}}},
        CellVerdictRow{"passed_and_flaky_with_flaky_fails",
                       {{Outcome::Passed, 20}, {Outcome::Flaky, 1}},
                       0,
                       false,
                       true,
                       true},
        CellVerdictRow{"flaky_and_failed", {{Outcome::Flaky, 1}, {Outcome::Failed, 1}}, 0, false, true}),
    [](const testing::TestParamInfo<CellVerdictRow>& row) { return row.param.name; });

}  // namespace
}  // namespace dmlcert::cert

// Check names (harness/engine/check_id.h): every name a run writes reads back as the same check,
// the check it counts against is the cell, the rule check or the corpus case, and a report read
// back counts each failure where the run did.
#include "check_id.h"

#include <gtest/gtest.h>

#include <ostream>
#include <string>

#include "report.h"

namespace dmlcert::cert {
namespace {

struct NameRow {
  const char* name;
  std::string text;
  CheckKind kind;
  std::string check;    // what check().to_string() gives
  std::string subject;  // what failures are grouped by
};
void PrintTo(const NameRow& r, std::ostream* os) {
  *os << r.name;
}
class CheckNames : public ::testing::TestWithParam<NameRow> {};

TEST_P(CheckNames, ReadBackAsTheSameCheckAndCountAgainstItsCheck) {
  const NameRow& row = GetParam();
  const auto id = CheckId::parse(row.text);
  ASSERT_TRUE(id) << row.text;
  EXPECT_EQ(id->kind, row.kind);
  EXPECT_EQ(id->to_string(), row.text);
  EXPECT_EQ(id->check().to_string(), row.check);
  EXPECT_TRUE(id->check().is_check());
  EXPECT_EQ(CheckId::parse(row.check), id->check()) << "a check's name reads back as the check";
  EXPECT_EQ(id->subject(), row.subject);
}

INSTANTIATE_TEST_SUITE_P(
    Names, CheckNames,
    ::testing::Values(
        NameRow{"cell_case", "cells/SLICE1/output/INT8/r3/exact/0", CheckKind::Cell, "SLICE1/output/INT8/r3",
                "SLICE1"},
        NameRow{"reduce_cell_case", "cells/REDUCE.SUM/input/FLOAT16/r8/random/2", CheckKind::Cell,
                "REDUCE.SUM/input/FLOAT16/r8", "REDUCE.SUM"},
        // A lower level's cases count towards the same cell of the run's level.
        NameRow{"lower_level_cell_case", "levels/4_1/cells/GATHER_ELEMENTS/indices/INT64/r2/random/0",
                CheckKind::Cell, "GATHER_ELEMENTS/indices/INT64/r2", "GATHER_ELEMENTS"},
        NameRow{"cell", "SLICE/input/FLOAT32/r1", CheckKind::Cell, "SLICE/input/FLOAT32/r1", "SLICE"},
        NameRow{"family", "sequences/SLICE1/output/INT8/r2/random/7", CheckKind::Sequence,
                "SLICE1/output/INT8/r2", "SLICE1"},
        NameRow{"family_member", "sequences/REDUCE.L2/input/FLOAT32/r1/random/1/type-FLOAT16",
                CheckKind::Sequence, "REDUCE.L2/input/FLOAT32/r1", "REDUCE.L2"},
        NameRow{"rule_case", "invalid/SLICE1.WINDOW_BOUNDS/3", CheckKind::Invalid,
                "invalid/SLICE1.WINDOW_BOUNDS", "invalid/SLICE1.WINDOW_BOUNDS"},
        NameRow{"lower_level_rule_case", "levels/1_0/unspecified/REDUCE.AXES_DUPLICATE/0",
                CheckKind::Unspecified, "unspecified/REDUCE.AXES_DUPLICATE",
                "unspecified/REDUCE.AXES_DUPLICATE"},
        NameRow{"robustness_case", "robustness/GATHERELEMENTS.INDEX_RANGE.extreme/5", CheckKind::Robustness,
                "robustness/GATHERELEMENTS.INDEX_RANGE.extreme",
                "robustness/GATHERELEMENTS.INDEX_RANGE.extreme"},
        NameRow{"robustness_check", "robustness/BACKEND.DESTROY", CheckKind::Robustness,
                "robustness/BACKEND.DESTROY", "robustness/BACKEND.DESTROY"},
        NameRow{"corpus_case", "corpus/74-third-party/x", CheckKind::Corpus, "corpus/third-party/x",
                "corpus"},
        NameRow{"fuzz_case", "fuzz-s7-c1234", CheckKind::Fuzz, "fuzz-s7-c1234", "fuzz-s7-c1234"}),
    [](const ::testing::TestParamInfo<NameRow>& row) { return std::string(row.param.name); });

// What no run writes is not a check: a name that reads as one must be one.
struct NotANameRow {
  const char* name;
  std::string text;
};
void PrintTo(const NotANameRow& r, std::ostream* os) {
  *os << r.name;
}
class NotCheckNames : public ::testing::TestWithParam<NotANameRow> {};

TEST_P(NotCheckNames, AreRefused) {
  EXPECT_FALSE(CheckId::parse(GetParam().text)) << GetParam().text;
}

INSTANTIATE_TEST_SUITE_P(
    Names, NotCheckNames,
    ::testing::Values(NotANameRow{"empty", ""}, NotANameRow{"a_case_name", "slice1/doc-example-2"},
                      NotANameRow{"unknown_operator", "cells/NONESUCH/input/FLOAT32/r1/exact/0"},
                      NotANameRow{"unknown_type", "SLICE/input/FLOAT8/r1"},
                      NotANameRow{"rank_without_r", "SLICE/input/FLOAT32/1"},
                      NotANameRow{"cell_case_without_repetition", "cells/SLICE/input/FLOAT32/r1/exact"},
                      NotANameRow{"unknown_mode", "cells/SLICE/input/FLOAT32/r1/fuzzy/0"},
                      NotANameRow{"repetition_not_a_number", "invalid/SLICE1.WINDOW_BOUNDS/x"},
                      NotANameRow{"lower_level_unknown", "levels/9_9/invalid/T.RANK/0"},
                      NotANameRow{"lower_level_family",
                                  "levels/4_1/sequences/SLICE/input/FLOAT32/r1/exact/0"},
                      NotANameRow{"empty_corpus_name", "corpus/"},
                      NotANameRow{"fuzz_without_index", "fuzz-s7"}),
    [](const ::testing::TestParamInfo<NotANameRow>& row) { return std::string(row.param.name); });

// A report read back counts each failure where the run did: a family's member of another type
// against that type's cell, which its name does not say.
TEST(CheckNamesInReports, AFailureCountsWhereTheRunCountedItAfterReadingBack) {
  Failure f;
  f.id = *CheckId::parse("sequences/REDUCE.L2/input/FLOAT32/r1/random/1/type-FLOAT16");
  f.counts_at = *CheckId::parse("REDUCE.L2/input/FLOAT16/r1");
  f.confirmation = Confirmation::StateDependent;
  Report r;
  r.failures = {f};
  std::string error;
  const auto back = report_from_json(to_json(r), &error);
  ASSERT_TRUE(back) << error;
  ASSERT_EQ(back->failures.size(), 1u);
  EXPECT_EQ(back->failures.front().id, f.id);
  EXPECT_EQ(back->failures.front().counts_at, f.counts_at);
  EXPECT_EQ(back->failures.front().confirmation, Confirmation::StateDependent);
}

}  // namespace
}  // namespace dmlcert::cert

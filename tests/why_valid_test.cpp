// "Valid case got status invalid-argument" says why the case is valid: the rules the backend named,
// with their text (the case keeps them), and the level that made the case valid. A mock backend
// rejects each case; the runner's detail must carry the reason.
#include "dmlcert/why_valid.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "dmlcert/runner.h"
#include "mock_backend.h"
#include "test_util.h"

namespace dmlcert {
namespace {

using test::Values;
using ::testing::_;
using ::testing::HasSubstr;
using ::testing::Return;

// SLICE of a whole FLOAT32 [1,1,1,4] tensor: valid at every level.
Case whole_slice() {
  SliceDesc d;
  d.input = d.output = packed_desc(DataType::FLOAT32, {1, 1, 1, 4});
  d.offsets = {0, 0, 0, 0};
  d.sizes = {1, 1, 1, 4};
  d.strides = {1, 1, 1, 1};
  Case c;
  c.op = d;
  c.data.input = Values({1, 2, 3, 4}).encode(DataType::FLOAT32);
  return c;
}

// GATHER_ELEMENTS along the last axis with INT32 index -1: valid from 3_0 (signed indices in
// [-d, d), GATHERELEMENTS.INDEX_RANGE); 2_1 allows only UINT32 indices.
Case negative_gather_index() {
  GatherElementsDesc d;
  d.input = packed_desc(DataType::FLOAT32, {1, 1, 1, 4});
  d.indices = packed_desc(DataType::INT32, {1, 1, 1, 2});
  d.output = packed_desc(DataType::FLOAT32, {1, 1, 1, 2});
  d.axis = 3;
  Case c;
  c.op = d;
  c.level = FeatureLevel::L5_0;
  c.data.input = Values({1, 2, 3, 4}).encode(DataType::FLOAT32);
  c.data.indices = Values({-1, 0}).encode(DataType::INT32);
  return c;
}

struct WhyValidRow {
  std::string name;
  Case c;
  std::string message;  // the backend's text with its invalid-argument status
  std::vector<std::string> says;
  size_t rules_cited;  // how many rules the detail quotes as named by the backend
};
void PrintTo(const WhyValidRow& r, std::ostream* os) {
  *os << r.name;
}

std::vector<WhyValidRow> why_valid_rows() {
  return {
      {"SignedGatherIndexIsValidFrom3_0",
       negative_gather_index(),
       "GATHERELEMENTS.INDEX_RANGE: index -1 out of range",
       {"the case breaks no rule at 5_0",
        "it keeps GATHERELEMENTS.INDEX_RANGE, which the backend named: \"Index data lies in [0, "
        "Input.Sizes[Axis]), or from 3_0 with a signed index type in [-d, d)",
        "valid from 3_0; at 2_1 it breaks "},
       1},
      {"PlainSliceIsValidAtEveryLevel",
       whole_slice(),
       "no",
       {"the case breaks no rule at 5_0", "valid at every level from 1_0"},
       0},
      {"ARuleIdInsideALongerWordIsNotCited",
       whole_slice(),
       "XSLICE.IN_BOUNDS and SLICE.IN_BOUNDSX",
       {"valid at every level from 1_0"},
       0},
      {"ARuleNamedTwiceIsQuotedOnce",
       whole_slice(),
       "SLICE.IN_BOUNDS (SLICE.IN_BOUNDS)",
       {"it keeps SLICE.IN_BOUNDS, which the backend named: \"Offsets[i] + Strides[i]*(Sizes[i]-1) < "
        "Input.Sizes[i]: no out-of-bounds reads.\""},
       1},
  };
}

class WhyValidTest : public ::testing::TestWithParam<WhyValidRow> {};

TEST_P(WhyValidTest, TheRunnerSaysWhyARejectedCaseIsValid) {
  const WhyValidRow& row = GetParam();
  auto backend = testing::MockBackend::claiming_everything();
  ON_CALL(*backend, execute(_, _, _))
      .WillByDefault(Return(exec_result(Status::InvalidArgument, Fault::None, row.message)));
  Runner runner(*backend, test::reference_oracle());
  const CaseReport r = test::judge(runner, row.c);
  ASSERT_EQ(name(r.outcome), name(Outcome::Failed)) << r.detail;
  EXPECT_THAT(r.detail, HasSubstr("valid case got status invalid-argument"));
  for (const std::string& s : row.says) EXPECT_THAT(r.detail, HasSubstr(s));
  size_t cited = 0;
  for (size_t at = r.detail.find("which the backend named"); at != std::string::npos;
       at = r.detail.find("which the backend named", at + 1))
    ++cited;
  EXPECT_EQ(cited, row.rules_cited) << r.detail;
}

INSTANTIATE_TEST_SUITE_P(Table, WhyValidTest, ::testing::ValuesIn(why_valid_rows()),
                         [](const ::testing::TestParamInfo<WhyValidRow>& row) { return row.param.name; });

}  // namespace
}  // namespace dmlcert

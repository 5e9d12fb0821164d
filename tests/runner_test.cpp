// The runner's verdicts: a mock backend returns chosen statuses and outputs, the real reference
// backend is the oracle, and each row names the outcome the runner must reach.
#include "dmlcert/runner.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <functional>

#include "dmlcert/case_buffers.h"
#include "mock_backend.h"
#include "test_util.h"

namespace dmlcert {
namespace {

using test::Values;
using ::testing::_;
using ::testing::Invoke;
using ::testing::Return;

// SLICE of a whole FLOAT32 [1,1,1,4] tensor holding 1 2 3 4: valid, the output is the input.
Case valid_slice() {
  SliceDesc d;
  d.input = d.output = packed_desc(DataType::FLOAT32, {1, 1, 1, 4});
  d.offsets = {0, 0, 0, 0};
  d.sizes = {1, 1, 1, 4};
  d.strides = {1, 1, 1, 1};
  Case c;
  c.name = "valid-slice";
  c.op = d;
  c.data.input = Values({1, 2, 3, 4}).encode(DataType::FLOAT32);
  return c;
}

// The same with an output of 3 elements: breaks SLICE.SIZES_MATCH_OUTPUT.
Case invalid_slice() {
  Case c = valid_slice();
  c.name = "invalid-slice";
  std::get<SliceDesc>(c.op).output = packed_desc(DataType::FLOAT32, {1, 1, 1, 3});
  c.expect = CaseClass::Invalid;
  c.violates = {"SLICE.SIZES_MATCH_OUTPUT"};
  return c;
}

// A 0 slice stride: class U (SLICE.STRIDE_ZERO).
Case unspecified_slice() {
  Case c = valid_slice();
  c.name = "unspecified-slice";
  std::get<SliceDesc>(c.op).strides = {1, 1, 1, 0};
  c.expect = CaseClass::Unspecified;
  return c;
}

// The valid SLICE with its input broadcast along the last axis (stride 0: every element is one in
// memory) but data that gives the four elements four values: no binding can hold that.
Case broadcast_slice_with_differing_data() {
  Case c = valid_slice();
  c.name = "broadcast-slice-differing-data";
  std::get<SliceDesc>(c.op).input.strides = std::vector<uint32_t>{4, 4, 4, 0};
  return c;
}
// The same with data that agrees: one value, broadcast.
Case broadcast_slice() {
  Case c = broadcast_slice_with_differing_data();
  c.name = "broadcast-slice";
  c.data.input = Values({7, 7, 7, 7}).encode(DataType::FLOAT32);
  return c;
}

Case with_expected_output(Case c, const Values& v) {
  c.expected_output = v.encode(DataType::FLOAT32);
  return c;
}
Case expecting(Case c, CaseClass expect) {
  c.expect = expect;
  return c;
}
Case at_level(Case c, FeatureLevel level) {
  c.level = level;
  return c;
}

using Misbehaviour = std::function<ExecResult(const OperatorDesc&, FeatureLevel, const Bindings&)>;

// The backend under test copies its input to its output: right for the valid SLICE above.
ExecResult copy_input(const OperatorDesc&, FeatureLevel, const Bindings& b) {
  std::memcpy(b.output.data, b.input.data, std::min(b.output.size, b.input.size));
  return {};
}
// Right for the broadcast SLICE below: its one input element in every output element.
ExecResult broadcast_first_input(const OperatorDesc&, FeatureLevel, const Bindings& b) {
  for (size_t at = 0; at + 4 <= b.output.size; at += 4) std::memcpy(b.output.data + at, b.input.data, 4);
  return {};
}
ExecResult write_zeros(const OperatorDesc&, FeatureLevel, const Bindings& b) {
  std::memset(b.output.data, 0, b.output.size);
  return {};
}
Misbehaviour reject(Status status, std::string rule) {
  return [=](const OperatorDesc&, FeatureLevel, const Bindings&) {
    ExecResult r = exec_result(status, Fault::None, "rejected");
    r.violations = {Violation{rule, "because"}};
    return r;
  };
}
// A rejection after a partial write, of `rule` (docs/semantics.md: a rejection in any class leaves
// every output byte as it was).
Misbehaviour reject_after_writing_a_byte(std::string rule) {
  return [=](const OperatorDesc&, FeatureLevel, const Bindings& b) {
    b.output.data[0] = std::byte{0};
    ExecResult r = exec_result(Status::InvalidArgument, Fault::None, "rejected");
    r.violations = {Violation{rule, ""}};
    return r;
  };
}
// The same with the write in the output's padding only: its last byte, past every logical element.
Misbehaviour reject_after_writing_padding(std::string rule) {
  return [=](const OperatorDesc&, FeatureLevel, const Bindings& b) {
    b.output.data[b.output.size - 1] = std::byte{0};
    ExecResult r = exec_result(Status::InvalidArgument, Fault::None, "rejected");
    r.violations = {Violation{rule, ""}};
    return r;
  };
}
// Four bytes of slack in the output binding, past its last element.
Case with_output_slack(Case c) {
  tensor(c.op, Role::OUTPUT)->total_bytes += 4;
  return c;
}
ExecResult crash(const OperatorDesc&, FeatureLevel, const Bindings&) {
  return exec_result(Status::Error, Fault::Crash, "signal 11");
}
ExecResult write_input(const OperatorDesc&, FeatureLevel, const Bindings& b) {
  const_cast<std::byte*>(b.input.data)[0] = std::byte{1};
  return {};
}

struct RunnerRow {
  std::string name;
  Case c;
  Misbehaviour behaviour;
  Outcome want;
  bool implements = true;
  FeatureLevel max_level = FeatureLevel::L6_4;
};
void PrintTo(const RunnerRow& r, std::ostream* os) {
  *os << r.name;
}

std::vector<RunnerRow> runner_rows() {
  return {
      {"ValidRightOutputPasses", valid_slice(), copy_input, Outcome::Passed},
      {"ValidWrongOutputFails", valid_slice(), write_zeros, Outcome::Failed},
      {"ValidRejectedFails", valid_slice(), reject(Status::InvalidArgument, "SLICE.IN_BOUNDS"),
       Outcome::Failed},
      {"ValidMatchingExpectedOutputPasses", with_expected_output(valid_slice(), Values({1, 2, 3, 4})),
       copy_input, Outcome::Passed},
      {"ExpectedOutputDisagreeingWithReferenceIsMistrusted",
       with_expected_output(valid_slice(), Values({9, 9, 9, 9})), copy_input, Outcome::Mistrusted},
      {"ExpectDisagreeingWithValidatorIsMistrusted", expecting(invalid_slice(), CaseClass::Valid), copy_input,
       Outcome::Mistrusted},
      {"DataDifferingBetweenElementsThatShareMemoryIsMistrusted", broadcast_slice_with_differing_data(),
       copy_input, Outcome::Mistrusted},
      {"BroadcastDataThatAgreesRunsAndPasses", broadcast_slice(), broadcast_first_input, Outcome::Passed},
      {"UnimplementedCellIsUnimplemented", valid_slice(), copy_input, Outcome::Unimplemented, false},
      {"LevelAboveBackendMaximumIsSkipped", at_level(valid_slice(), FeatureLevel::L6_4), copy_input,
       Outcome::Skipped, true, FeatureLevel::L5_0},
      {"InvalidAcceptedFails", invalid_slice(), copy_input, Outcome::Failed},
      {"InvalidRejectedWithItsRulePasses", invalid_slice(),
       reject(Status::InvalidArgument, "SLICE.SIZES_MATCH_OUTPUT"), Outcome::Passed},
      {"InvalidRejectedWithAnotherRuleFails", invalid_slice(),
       reject(Status::InvalidArgument, "SLICE.IN_BOUNDS"), Outcome::Failed},
      {"InvalidRejectedAsUnsupportedFails", invalid_slice(),
       reject(Status::Unsupported, "SLICE.SIZES_MATCH_OUTPUT"), Outcome::Failed},
      {"InvalidRejectedButOutputWrittenFails", invalid_slice(),
       reject_after_writing_a_byte("SLICE.SIZES_MATCH_OUTPUT"), Outcome::Failed},
      {"UnspecifiedRejectedButOutputWrittenFails", unspecified_slice(),
       reject_after_writing_a_byte("SLICE.STRIDE_ZERO"), Outcome::Failed},
      {"InvalidRejectedButPaddingWrittenFails", with_output_slack(invalid_slice()),
       reject_after_writing_padding("SLICE.SIZES_MATCH_OUTPUT"), Outcome::Failed},
      {"UnspecifiedRejectedButPaddingWrittenFails", with_output_slack(unspecified_slice()),
       reject_after_writing_padding("SLICE.STRIDE_ZERO"), Outcome::Failed},
      {"UnspecifiedRejectedWithPaddingUntouchedPasses", with_output_slack(unspecified_slice()),
       reject(Status::InvalidArgument, "SLICE.STRIDE_ZERO"), Outcome::Passed},
      {"UnspecifiedRejectedPasses", unspecified_slice(), reject(Status::InvalidArgument, "SLICE.STRIDE_ZERO"),
       Outcome::Passed},
      {"UnspecifiedUnsupportedPasses", unspecified_slice(), reject(Status::Unsupported, ""), Outcome::Passed},
      {"UnspecifiedInadmissibleResultFails", unspecified_slice(), write_zeros, Outcome::Failed},
      {"CrashIsCrash", valid_slice(), crash, Outcome::Crash},
      {"InputWriteIsOob", valid_slice(), write_input, Outcome::Oob},
  };
}

class RunnerTest : public ::testing::TestWithParam<RunnerRow> {};

TEST_P(RunnerTest, ReachesTheOutcome) {
  const RunnerRow& row = GetParam();
  auto backend = testing::MockBackend::claiming_everything();
  ON_CALL(*backend, implements).WillByDefault(Return(row.implements));
  ON_CALL(*backend, max_feature_level()).WillByDefault(Return(row.max_level));
  ON_CALL(*backend, execute(_, _, _)).WillByDefault(Invoke(row.behaviour));
  Runner runner(*backend, test::reference_oracle());
  const CaseReport r = test::judge(runner, row.c);
  EXPECT_EQ(name(r.outcome), name(row.want)) << r.detail;
  EXPECT_EQ(r.detail.empty(), row.want == Outcome::Passed) << r.detail;
}

INSTANTIATE_TEST_SUITE_P(Table, RunnerTest, ::testing::ValuesIn(runner_rows()),
                         [](const ::testing::TestParamInfo<RunnerRow>& row) { return row.param.name; });

// An isolated backend's call whose output the harness reads wrong may have been written after it
// returned, by a thread the call left running (runner.cpp, Runner::output_failure): the runner asks
// the backend for late faults before it blames the output, and only then. Every call here is call 7
// of an isolated backend unless the row says 0 (in process).
struct LateRow {
  std::string name;
  Case c;
  Misbehaviour behaviour;
  uint64_t call;
  std::vector<LateFault> late;  // what settle() reports, if it is asked
  bool asks;                    // whether the runner must ask
  Outcome want;
  std::vector<uint64_t> passed_on;  // the late faults' calls the result carries on to the engine
};
void PrintTo(const LateRow& r, std::ostream* os) {
  *os << r.name;
}

Misbehaviour as_call(Misbehaviour m, uint64_t call) {
  return [=](const OperatorDesc& d, FeatureLevel l, const Bindings& b) {
    ExecResult r = m(d, l, b);
    r.call = call;
    return r;
  };
}
LateFault late_write_of(uint64_t call) {
  return LateFault{call, Fault::LateWrite, "wrote output byte 0 after call " + std::to_string(call), false};
}

std::vector<LateRow> late_rows() {
  return {
      {"WrongOutputOfACallThatWroteLateIsALateWrite",
       valid_slice(),
       write_zeros,
       7,
       {late_write_of(7)},
       true,
       Outcome::LateWrite,
       {}},
      {"WrongOutputOfACallThatCrashedLaterIsACrash",
       valid_slice(),
       write_zeros,
       7,
       {LateFault{7, Fault::Crash, "signal 11 after the call had returned", true}},
       true,
       Outcome::Crash,
       {}},
      {"WrongOutputWithAnEarlierCallsLateWriteFailsAndPassesItOn",
       valid_slice(),
       write_zeros,
       7,
       {late_write_of(6)},
       true,
       Outcome::Failed,
       {6}},
      {"WrongOutputWithoutLateFaultsFails", valid_slice(), write_zeros, 7, {}, true, Outcome::Failed, {}},
      {"RejectionWhoseOutputALateThreadWroteIsALateWrite",
       invalid_slice(),
       reject_after_writing_a_byte("SLICE.SIZES_MATCH_OUTPUT"),
       7,
       {late_write_of(7)},
       true,
       Outcome::LateWrite,
       {}},
      {"InadmissibleUnspecifiedResultOfACallThatWroteLateIsALateWrite",
       unspecified_slice(),
       write_zeros,
       7,
       {late_write_of(7)},
       true,
       Outcome::LateWrite,
       {}},
      {"RightOutputAsksNothing",
       valid_slice(),
       copy_input,
       7,
       {late_write_of(7)},
       false,
       Outcome::Passed,
       {}},
      {"InProcessWrongOutputAsksNothing",
       valid_slice(),
       write_zeros,
       0,
       {late_write_of(0)},
       false,
       Outcome::Failed,
       {}},
  };
}

class RunnerLateFaults : public ::testing::TestWithParam<LateRow> {};
TEST_P(RunnerLateFaults, BlameTheOutputOnlyWhenTheCallLeftNoThreadWriting) {
  const LateRow& row = GetParam();
  auto backend = testing::MockBackend::claiming_everything();
  ON_CALL(*backend, execute(_, _, _)).WillByDefault(Invoke(as_call(row.behaviour, row.call)));
  EXPECT_CALL(*backend, settle(0.0)).Times(row.asks ? 1 : 0).WillRepeatedly(Return(row.late));
  Runner runner(*backend, test::reference_oracle());
  const CaseReport r = test::judge(runner, row.c);
  EXPECT_EQ(name(r.outcome), name(row.want)) << r.detail;
  if (row.want == Outcome::LateWrite || row.want == Outcome::Crash) {
    EXPECT_THAT(r.detail, ::testing::HasSubstr("was wrong too")) << "the wrong output goes unmentioned";
  }
  std::vector<uint64_t> passed_on;
  for (const LateFault& l : r.exec.late) passed_on.push_back(l.call);
  EXPECT_EQ(passed_on, row.passed_on) << "a late fault of another call was lost or kept";
}
INSTANTIATE_TEST_SUITE_P(Table, RunnerLateFaults, ::testing::ValuesIn(late_rows()),
                         [](const ::testing::TestParamInfo<LateRow>& row) { return row.param.name; });

// A case ended by a fault reads "<outcome>: <detail>", so the detail names the fault only where
// the outcome does not ("oob: oob: wrote ..." said it twice).
struct FaultDetailRow {
  const char* name;
  Fault fault;
  Outcome outcome;
  const char* message;
  const char* detail;
};

TEST(RunnerReport, FaultDetailNamesTheFaultOnlyWhereTheOutcomeDoesNot) {
  const FaultDetailRow rows[] = {
      {"oob_is_said_by_the_outcome", Fault::OutOfBounds, Outcome::Oob,
       "wrote 1 byte before the output binding", "wrote 1 byte before the output binding"},
      {"input_written_shows_as_oob", Fault::InputWritten, Outcome::Oob, "byte 3 of the input changed",
       "input-written: byte 3 of the input changed"},
      {"late_write_is_said_by_the_outcome", Fault::LateWrite, Outcome::LateWrite,
       "wrote after returning (seen when a later case ran)",
       "wrote after returning (seen when a later case ran)"},
      {"late_oob_found_as_crash", Fault::OutOfBounds, Outcome::Crash, "wrote past the output",
       "oob: wrote past the output"},
      {"no_message_leaves_the_name", Fault::Timeout, Outcome::Timeout, "", "timeout"},
  };
  for (const FaultDetailRow& row : rows)
    EXPECT_EQ(fault_detail(row.fault, row.outcome, row.message), row.detail) << row.name;
}

// What the report carries besides the outcome.
TEST(RunnerReport, CarriesClassStatusOutputAndMismatchDetail) {
  auto backend = testing::MockBackend::claiming_everything();
  ON_CALL(*backend, execute(_, _, _)).WillByDefault(Invoke(write_zeros));
  Runner runner(*backend, test::reference_oracle());
  const CaseReport r = test::judge(runner, valid_slice());
  EXPECT_EQ(r.case_class, CaseClass::Valid);
  EXPECT_EQ(r.exec.status, Status::Ok);
  ASSERT_TRUE(r.output.has_value());
  EXPECT_EQ(*r.output, Values({0, 0, 0, 0}).encode(DataType::FLOAT32));
  EXPECT_NE(r.detail.find("first at [0,0,0,0]: expected 1, got 0"), std::string::npos) << r.detail;
}

// An invalid case is never executed by the reference, and the backend under test sees an
// output binding that holds only the fill pattern.
TEST(RunnerReport, InvalidCaseOutputBindingHoldsTheFillPattern) {
  auto backend = testing::MockBackend::claiming_everything();
  bool saw_fill = false;
  ON_CALL(*backend, execute(_, _, _))
      .WillByDefault(Invoke([&](const OperatorDesc&, FeatureLevel, const Bindings& b) {
        saw_fill = b.output.size > 0 && std::all_of(b.output.data, b.output.data + b.output.size,
                                                    [](std::byte x) { return x == kOutputFill; });
        return ExecResult{
            Status::InvalidArgument, Fault::None, "", {Violation{"SLICE.SIZES_MATCH_OUTPUT", ""}}};
      }));
  Runner runner(*backend, test::reference_oracle());
  EXPECT_EQ(test::judge(runner, invalid_slice()).outcome, Outcome::Passed);
  EXPECT_TRUE(saw_fill);
}

// The memory budget (docs/design.md, "Memory"): a case whose footprint is over --max-case-bytes is
// skipped before the oracle or the backend allocates anything, and the reason names the sizes.
class MockOracle : public Oracle {
 public:
  MOCK_METHOD(std::optional<std::vector<Bytes>>, admissible_outputs,
              (const Case& c, const Classification& cls, std::string* why), (override));
};

// valid_slice() with its input binding declared 1 GiB long (legal: TotalTensorSizeInBytes may
// exceed what the sizes need).
Case slice_with_a_1gib_input() {
  Case c = valid_slice();
  std::get<SliceDesc>(c.op).input.total_bytes = uint64_t{1} << 30;
  return c;
}

TEST(RunnerMemoryBudget, CaseOverTheBudgetIsSkippedBeforeAnythingIsAllocated) {
  auto backend = testing::MockBackend::claiming_everything();
  EXPECT_CALL(*backend, execute(_, _, _)).Times(0);
  ::testing::StrictMock<MockOracle> oracle;  // any call fails the test
  Runner runner(*backend, oracle);           // the default budget, 512 MiB
  const CaseReport r = test::judge(runner, slice_with_a_1gib_input());
  EXPECT_EQ(name(r.outcome), "skipped");
  EXPECT_FALSE(r.executed);
  EXPECT_THAT(r.detail,
              ::testing::HasSubstr("needs about 4.0 GiB (bindings 1.0 GiB: input 1.0 GiB, output 16 B"));
  EXPECT_THAT(r.detail, ::testing::HasSubstr("more than the limit of 536870912 bytes (--max-case-bytes)"));
}

TEST(RunnerMemoryBudget, CaseWithinARaisedBudgetRuns) {
  auto backend = testing::MockBackend::claiming_everything();
  ON_CALL(*backend, execute(_, _, _)).WillByDefault(Invoke(copy_input));
  RunOptions options;
  options.max_case_bytes = case_footprint(valid_slice(), CaseClass::Valid).total;
  Runner runner(*backend, test::reference_oracle(), options);
  EXPECT_EQ(name(test::judge(runner, valid_slice()).outcome), "passed");
  options.max_case_bytes -= 1;
  Runner tighter(*backend, test::reference_oracle(), options);
  EXPECT_EQ(name(test::judge(tighter, valid_slice()).outcome), "skipped");
}

// Invalid cases run no oracle and bind at most kInvalidCaseBindingCap per tensor, so an absurd
// declared size costs them little.
TEST(RunnerMemoryBudget, InvalidCaseFootprintIsCapped) {
  Case c = invalid_slice();
  std::get<SliceDesc>(c.op).input.total_bytes = uint64_t{1} << 62;
  const CaseFootprint f = case_footprint(c, CaseClass::Invalid);
  EXPECT_EQ(f.bindings, kInvalidCaseBindingCap + 12);
  EXPECT_EQ(f.logical_output, 0u);
  EXPECT_LT(f.total, kDefaultMaxCaseBytes);
}

TEST(RunnerMemoryBudget, FootprintSaturatesInsteadOfWrapping) {
  Case c = valid_slice();
  std::get<SliceDesc>(c.op).input.total_bytes = UINT64_MAX - 1;
  EXPECT_EQ(case_footprint(c, CaseClass::Valid).total, UINT64_MAX);
}

}  // namespace
}  // namespace dmlcert

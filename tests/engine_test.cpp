// The engine behind `fuzz` and `certify`, in this process: certifications of GoogleMock
// backends that delegate to the reference, with one wrong behaviour switched on where a row says.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "certify.h"
#include "mock_backend.h"
#include "reference/reference.h"
#include "test_util.h"

namespace dmlcert {
namespace {

namespace fs = std::filesystem;
using ::testing::_;
using ::testing::Invoke;
using ::testing::Return;

// A mock that claims what the reference claims and executes through it, except where `wrong`
// answers first (a non-empty result).
using Wrong = std::function<std::optional<ExecResult>(const OperatorDesc&, FeatureLevel, const Bindings&)>;
std::unique_ptr<Backend> mock_over_reference(Wrong wrong) {
  auto mock = testing::MockBackend::claiming_everything();
  ON_CALL(*mock, execute(_, _, _))
      .WillByDefault(Invoke([wrong](const OperatorDesc& d, FeatureLevel l, const Bindings& b) {
        if (wrong)
          if (auto r = wrong(d, l, b)) return *r;
        return test::reference_backend().execute(d, l, b);
      }));
  return mock;
}

engine::CertifyOptions quick_options(const std::string& dir, std::vector<OpKind> ops, FeatureLevel level) {
  engine::CertifyOptions o;
  o.backend = "mock";
  o.level = level;
  o.budget = *engine::budget_named("quick");
  o.ops = std::move(ops);
  o.engine.backend_spec = "mock";
  o.engine.program = "dmlcert";
  o.engine.repro_dir = dir;
  return o;
}

fs::path scratch(const std::string& name) {
  const fs::path dir =
      fs::temp_directory_path() / ("dmlcert_engine_test_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  return dir;
}

TEST(EngineCertify, CertifiesAMockThatBehavesLikeTheReference) {
  const fs::path dir = scratch("good");
  auto o = quick_options(dir.string(), {OpKind::SLICE, OpKind::GATHER_ELEMENTS}, FeatureLevel::L3_0);
  std::string error;
  const auto report = engine::run_certification(
      o, [] { return mock_over_reference(nullptr); }, test::reference_oracle(), &error);
  ASSERT_TRUE(report) << error;
  EXPECT_TRUE(cert::certified(*report)) << cert::to_text(*report);
  EXPECT_GT(cert::totals(*report)[static_cast<size_t>(Outcome::Passed)], 100u);
  EXPECT_TRUE(report->failures.empty());
  fs::remove_all(dir);
}

TEST(EngineCertify, FindsConfirmsAndShrinksAWrongSumAndSavesItsRepro) {
  const fs::path dir = scratch("wrong_sum");
  // REDUCE SUM off by one in its first output element, whatever the data.
  Wrong off_by_one = [](const OperatorDesc& d, FeatureLevel l,
                        const Bindings& b) -> std::optional<ExecResult> {
    const auto f = reduce_function(d);
    if (!f || *f != ReduceFunction::SUM || classify(d, l, {}).case_class == CaseClass::Invalid)
      return std::nullopt;
    ExecResult r = test::reference_backend().execute(d, l, b);
    if (r.status == Status::Ok && tensor(d, Role::OUTPUT)->type == DataType::INT32) {
      const int32_t v = load<int32_t>(b.output.data);
      store<int32_t>(b.output.data, v + 1);
    }
    return r;
  };
  auto o = quick_options(dir.string(), {OpKind::REDUCE}, FeatureLevel::L5_0);
  o.stop_after_failures = 1;
  std::string error;
  const auto report = engine::run_certification(
      o, [&] { return mock_over_reference(off_by_one); }, test::reference_oracle(), &error);
  ASSERT_TRUE(report) << error;
  EXPECT_FALSE(cert::certified(*report));
  ASSERT_EQ(report->failures.size(), 1u);
  const cert::Failure& f = report->failures.front();
  EXPECT_EQ(f.outcome, Outcome::Failed);
  EXPECT_EQ(f.confirmation, "reproduced alone");
  EXPECT_TRUE(f.where.find("REDUCE.SUM/") != std::string::npos) << f.where;
  ASSERT_TRUE(fs::exists(f.repro));
  ASSERT_TRUE(fs::exists(f.shrunk)) << "the failure was not shrunk";
  EXPECT_EQ(f.reproduce, "dmlcert run " + f.shrunk + " --backend mock");
  // The shrunk case is small and still fails on the wrong backend.
  const LoadedCases loaded = load_case_file(f.shrunk);
  ASSERT_EQ(loaded.cases.size(), 1u);
  const Case& shrunk = loaded.cases.front();
  EXPECT_LE(element_count(tensor(shrunk.op, Role::INPUT)->sizes).value_or(0), 4u) << to_json(shrunk);
  auto wrong = mock_over_reference(off_by_one);
  Runner runner(*wrong, test::reference_oracle());
  EXPECT_EQ(runner.run(shrunk).outcome, Outcome::Failed);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace dmlcert

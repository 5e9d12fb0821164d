// The differential search finds a known bug: a backend that is the reference except for an
// off-by-one in SLICE1 with negative strides. The failure is found, shrunk to a small repro
// (rank <= 2, <= 8 output elements), saved, and the saved file replays to the same failure, while
// the reference passes it (also through the real `dmlcert replay`).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "build.h"
#include "reference/reference.h"
#include "scratch_dir.h"
#include "test_util.h"
#include "testing/prop_util.h"
#include "testing/slice1_off_by_one_backend.h"

namespace dmlcert::props {
namespace {

namespace fs = std::filesystem;

TEST(SelfTest, DifferentialSearchFindsAndShrinksTheInjectedSlice1Bug) {
  auto reference = proptest::backend_or_null("reference");
  ASSERT_NE(reference, nullptr);
  std::unique_ptr<Oracle> oracle = reference::make_oracle();
  const fs::path dir = test::scratch_dir("selftest");

  engine::FuzzOptions o;
  o.seed = 7;
  o.cases = 300;
  o.ops = {OpKind::SLICE1};
  o.level = FeatureLevel::L5_0;
  o.engine.repro_dir = dir.string();
  o.engine.backend_spec = "selftest";
  o.shrink_seconds = 30;
  o.max_size = 40;
  const engine::FuzzResult result =
      engine::run_fuzz([] { return proptest::make_slice1_off_by_one_backend(); }, *oracle, o);
  ASSERT_FALSE(result.failures.empty()) << "the differential search missed the injected bug";

  const cert::Failure& f = result.failures.front().failure;
  EXPECT_EQ(f.confirmation, cert::Confirmation::Reproduced);
  ASSERT_TRUE(fs::exists(f.shrunk)) << "no shrunk case was saved";
  const LoadedCases loaded = load_case_file(f.shrunk);
  ASSERT_TRUE(loaded.errors.empty());
  ASSERT_EQ(loaded.cases.size(), 1u);
  const Case& shrunk_case = loaded.cases[0];
  std::cout << "shrunk repro (" << f.shrunk << "):\n" << to_json(shrunk_case) << "\n";
  const auto& shrunk = std::get<Slice1Desc>(shrunk_case.op);
  EXPECT_LE(shrunk.output.rank(), 2u) << to_json(shrunk_case);
  EXPECT_LE(element_count(shrunk.output.sizes).value_or(0), 8u) << to_json(shrunk_case);
  EXPECT_TRUE(std::any_of(shrunk.input_window_strides.begin(), shrunk.input_window_strides.end(),
                          [](int32_t s) { return s < 0; }));
  Case tidied = shrunk_case;
  EXPECT_FALSE(tidy_strides(tidied)) << "strides left to tidy: " << to_json(shrunk_case);

  // The saved shrunk case replays to the same failure with the buggy backend, and passes on the
  // reference.
  auto buggy = proptest::make_slice1_off_by_one_backend();
  Runner on_buggy(*buggy, *oracle);
  EXPECT_EQ(test::judge(on_buggy, shrunk_case).outcome, Outcome::Failed);
  Runner on_reference(*reference, *oracle);
  EXPECT_EQ(test::judge(on_reference, shrunk_case).outcome, Outcome::Passed);
  const std::string replay = std::string(DMLCERT_CLI) + " replay " + f.shrunk + " --backend reference > " +
                             (dir / "replay.log").string() + " 2>&1";
  EXPECT_EQ(std::system(replay.c_str()), 0);
  // The failing case itself was kept next to its shrunk form.
  EXPECT_TRUE(fs::exists(f.repro));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace dmlcert::props

// The differential search finds a known bug: a backend that is the reference except for an
// off-by-one in SLICE1 with negative strides. The failure is found, shrunk to a small repro
// (rank <= 2, <= 8 output elements), saved, and the saved file replays to the same failure, while
// the reference passes it (also through the real `dmlcert replay`).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "testing/prop_util.h"
#include "testing/selftest_backend.h"

namespace dmlcert::props {
namespace {

namespace fs = std::filesystem;

TEST(SelfTest, DifferentialSearchFindsAndShrinksTheInjectedSlice1Bug) {
  auto buggy = proptest::make_selftest_backend();
  auto reference = proptest::backend_or_null("reference");
  ASSERT_NE(reference, nullptr);
  const fs::path dir = fs::temp_directory_path() / ("dmlcert-selftest-" + std::to_string(::getpid()));
  fs::remove_all(dir);

  FuzzOptions o;
  o.seed = 7;
  o.cases = 300;
  o.ops = {OpKind::SLICE1};
  o.level = FeatureLevel::L5_0;
  o.repro_dir = dir.string();
  o.backend_spec = "selftest";
  o.shrink_seconds = 30;
  o.max_size = 40;
  const FuzzResult result = run_fuzz(*buggy, *reference, o);
  ASSERT_FALSE(result.failures.empty()) << "the differential search missed the injected bug";

  const FuzzFailure& f = result.failures.front();
  std::cout << "shrunk repro (" << f.shrunk_path << "):\n" << to_json(f.shrunk) << "\n";
  const auto& shrunk = std::get<Slice1Desc>(f.shrunk.op);
  EXPECT_LE(shrunk.output.rank(), 2u) << to_json(f.shrunk);
  EXPECT_LE(element_count(shrunk.output.sizes).value_or(0), 8u) << to_json(f.shrunk);
  EXPECT_TRUE(std::any_of(shrunk.input_window_strides.begin(), shrunk.input_window_strides.end(),
                          [](int32_t s) { return s < 0; }));

  // The saved shrunk case replays to the same failure with the buggy backend, and passes on the
  // reference.
  ASSERT_TRUE(fs::exists(f.shrunk_path));
  const LoadedCases loaded = load_case_file(f.shrunk_path);
  ASSERT_TRUE(loaded.errors.empty());
  ASSERT_EQ(loaded.cases.size(), 1u);
  Runner on_buggy(*buggy, *reference);
  EXPECT_EQ(on_buggy.run(loaded.cases[0]).outcome, Outcome::Failed);
  Runner on_reference(*reference, *reference);
  EXPECT_EQ(on_reference.run(loaded.cases[0]).outcome, Outcome::Passed);
  const std::string replay = std::string(DMLCERT_CLI) + " replay " + f.shrunk_path +
                             " --backend reference > " + (dir / "replay.log").string() + " 2>&1";
  EXPECT_EQ(std::system(replay.c_str()), 0);
  // Passing cases were deleted; the failing case and its shrunk form were kept.
  EXPECT_TRUE(fs::exists(f.path));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace dmlcert::props

// A directory for one test's files under the system's temporary directory. It starts empty and
// is removed when the test ends without a failure; a failed test's files stay for a look, and
// its message should name the directory.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

namespace dmlcert::test {

inline std::filesystem::path scratch_dir(const std::string& name) {
  // Removes the directories of a test that ended without a failure; gtest owns it once appended.
  struct Sweeper : ::testing::EmptyTestEventListener {
    std::vector<std::filesystem::path> dirs;
    void OnTestEnd(const ::testing::TestInfo& info) override {
      if (!info.result()->Failed())
        for (const auto& dir : dirs) {
          std::error_code ignored;
          std::filesystem::remove_all(dir, ignored);
        }
      dirs.clear();
    }
  };
  static Sweeper* const sweeper = [] {
    auto* s = new Sweeper;
    ::testing::UnitTest::GetInstance()->listeners().Append(s);
    return s;
  }();
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("dmlcert_" + name + "_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  sweeper->dirs.push_back(dir);
  return dir;
}

}  // namespace dmlcert::test

// The documents generated from the code's own tables must be what the code prints today: a rule
// or a support row changed without regenerating docs/ fails here, naming the command to run.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>

namespace {

std::string output_of(const std::string& command) {
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(::popen(command.c_str(), "r"), ::pclose);
  std::string out;
  std::array<char, 4096> buf;
  while (pipe && std::fgets(buf.data(), buf.size(), pipe.get())) out += buf.data();
  return out;
}

std::string file_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

struct GeneratedDoc {
  const char* file;     // under docs/
  const char* command;  // the dmlcert subcommand that prints it
};
void PrintTo(const GeneratedDoc& d, std::ostream* os) {
  *os << d.file;
}

class GeneratedDocs : public ::testing::TestWithParam<GeneratedDoc> {};

TEST_P(GeneratedDocs, MatchTheCode) {
  const std::string path = std::string(DMLCERT_SOURCE_DIR) + "/docs/" + GetParam().file;
  const std::string printed = output_of(std::string(DMLCERT_CLI) + " " + GetParam().command);
  ASSERT_FALSE(printed.empty());
  EXPECT_TRUE(file_text(path) == printed) << path << " is stale; regenerate it with `dmlcert "
                                          << GetParam().command << " > docs/" << GetParam().file << "`";
}

INSTANTIATE_TEST_SUITE_P(Docs, GeneratedDocs,
                         ::testing::Values(GeneratedDoc{"rules.md", "rules --markdown"},
                                           GeneratedDoc{"support.md", "support --markdown"}),
                         [](const auto& info) {
                           const std::string command = info.param.command;
                           return command.substr(0, command.find(' '));
                         });

// The vendor section of README.md shows a whole CMakeLists.txt; the external_project test builds
// tests/external_project/CMakeLists.txt against the installed package. They must be one text, so
// that what the README tells a vendor to write is what the test proves works.
TEST(Readme, VendorCMakeListsIsTheTestedProject) {
  const std::string readme = file_text(std::string(DMLCERT_SOURCE_DIR) + "/README.md");
  const std::string tested =
      file_text(std::string(DMLCERT_SOURCE_DIR) + "/tests/external_project/CMakeLists.txt");
  const std::string fence = "```cmake\n";
  const size_t at = readme.find(fence + "cmake_minimum_required");
  ASSERT_NE(at, std::string::npos) << "README.md has no ```cmake block that starts a CMakeLists.txt";
  const size_t begin = at + fence.size();
  const size_t end = readme.find("```", begin);
  ASSERT_NE(end, std::string::npos);
  EXPECT_EQ(readme.substr(begin, end - begin), tested)
      << "README.md's vendor CMakeLists.txt differs from tests/external_project/CMakeLists.txt";
}

}  // namespace

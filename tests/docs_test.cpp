// The documents generated from the code's own tables must be what the code prints today: a rule
// or a support row changed without regenerating docs/ fails here, naming the command to run.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <regex>
#include <set>
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
                         [](const auto& row) {
                           const std::string command = row.param.command;
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

// Code comments cite the project's documents as (docs/FILE.md, "Section"): every cited file and
// section must exist, so that a reader of the code can follow each citation.
std::set<std::string> headings_of(const std::string& path) {
  std::set<std::string> out;
  std::istringstream in(file_text(path));
  for (std::string line; std::getline(in, line);)
    if (const size_t text = line.find_first_not_of('#');
        text != std::string::npos && text > 0 && line[text] == ' ')
      out.insert(line.substr(text + 1));
  return out;
}

TEST(Docs, EveryCitedSectionExists) {
  namespace fs = std::filesystem;
  const fs::path root = DMLCERT_SOURCE_DIR;
  // A citation may wrap onto the next comment line or string literal: join those first. In a string
  // literal the section's quotes are escaped.
  const std::regex continuation(R"((\n[ \t]*(//|#)[ \t]*)|("\s*\n\s*"))");
  const std::regex citation(R"re(docs/([a-z0-9_/-]+\.md),\s+\\?"([^"\\]+)\\?")re");
  size_t citations = 0;
  for (const char* dir :
       {"harness", "backends", "properties", "tests", "bench", "fuzz", "cmake", "scripts"}) {
    for (const auto& entry : fs::recursive_directory_iterator(root / dir)) {
      if (!entry.is_regular_file()) continue;
      const std::string ext = entry.path().extension().string();
      if (ext != ".cpp" && ext != ".h" && ext != ".c" && ext != ".inc" && ext != ".py" && ext != ".cmake" &&
          ext != ".txt" && ext != "")
        continue;
      const std::string text = std::regex_replace(file_text(entry.path().string()), continuation, " ");
      for (std::sregex_iterator m(text.begin(), text.end(), citation), end; m != end; ++m) {
        ++citations;
        const fs::path doc = root / "docs" / (*m)[1].str();
        const std::string where = fs::relative(entry.path(), root).string();
        if (!fs::exists(doc)) {
          ADD_FAILURE() << where << " cites docs/" << (*m)[1] << ", which does not exist";
          continue;
        }
        const std::string section = (*m)[2].str();
        const auto headings = headings_of(doc.string());
        EXPECT_TRUE(headings.count(section))
            << where << " cites docs/" << (*m)[1] << ", \"" << section << "\": no such section";
      }
    }
  }
  EXPECT_GT(citations, 50u) << "the scan found too few citations to be looking in the right places";
}

}  // namespace

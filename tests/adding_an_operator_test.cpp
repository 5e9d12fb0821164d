// docs/adding-an-operator.md and the fixture operator that proves it (tests/fixture_operator/,
// TILE, added by scripts/add-fixture-operator and built and tested by CI) say the same: the
// fixture holds exactly the files of "Files you add", its patch edits exactly the files of "Lines
// you edit", and the number the doc gives for those is their count. Reads files only; the build of
// the fixture is CI's.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace dmlcert {
namespace {

namespace fs = std::filesystem;

const fs::path kRoot = DMLCERT_SOURCE_DIR;
const fs::path kFixture = kRoot / "tests/fixture_operator";

std::string file_text(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The lines of one "## Heading" section of a Markdown text, up to the next "## ".
std::vector<std::string> section_lines(const std::string& text, const std::string& heading) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  bool inside = false;
  for (std::string line; std::getline(in, line);) {
    if (line.starts_with("## "))
      inside = line == "## " + heading;
    else if (inside)
      lines.push_back(line);
  }
  return lines;
}

// A table row's cells, without the outer pipes (escaped pipes are kept in their cell).
std::vector<std::string> cells(const std::string& row) {
  std::vector<std::string> out(1);
  for (size_t i = 1; i + 1 < row.size(); ++i) {
    if (row[i] == '|' && row[i - 1] != '\\')
      out.emplace_back();
    else
      out.back() += row[i];
  }
  return out;
}

// The `code` spans of a cell. (String scans, not std::regex: this file is compiled in every CI
// build, and <regex> would take most of its compile time.)
std::vector<std::string> code_spans(const std::string& cell) {
  std::vector<std::string> out;
  for (size_t open = cell.find('`'); open != std::string::npos; open = cell.find('`', open)) {
    const size_t close = cell.find('`', open + 1);
    if (close == std::string::npos) break;
    if (close > open + 1) out.push_back(cell.substr(open + 1, close - open - 1));
    open = close + 1;
  }
  return out;
}

// A table's rows below its header: the paths of the first column, and whether the second
// starts with "optional".
struct PathRow {
  std::vector<std::string> paths;
  bool optional = false;
};
std::vector<PathRow> table_rows(const std::vector<std::string>& section) {
  std::vector<PathRow> rows;
  int row = 0;
  for (const std::string& line : section) {
    if (!line.starts_with("|")) continue;
    if (row++ < 2) continue;  // the header and its rule
    const auto c = cells(line);
    rows.push_back({code_spans(c.at(0)), c.size() > 1 && c[1].starts_with(" optional")});
  }
  return rows;
}

const std::string& doc() {
  static const std::string text = file_text(kRoot / "docs/adding-an-operator.md");
  return text;
}

// "Files you add": path -> optional. Directories end in '/'.
std::map<std::string, bool> files_you_add() {
  std::map<std::string, bool> out;
  for (const PathRow& r : table_rows(section_lines(doc(), "Files you add")))
    for (const std::string& p : r.paths) out[p] = r.optional;
  return out;
}

std::set<std::string> lines_you_edit() {
  std::set<std::string> out;
  for (const PathRow& r : table_rows(section_lines(doc(), "Lines you edit")))
    out.insert(r.paths.begin(), r.paths.end());
  return out;
}

// The files the fixture adds, relative to the tree they are added to.
std::set<std::string> fixture_files() {
  std::set<std::string> out;
  const fs::path tree = kFixture / "tree";
  for (const auto& e : fs::recursive_directory_iterator(tree))
    if (e.is_regular_file()) out.insert(fs::relative(e.path(), tree).generic_string());
  return out;
}

// The files the patch edits ("diff --git a/F b/F").
std::set<std::string> patched_files() {
  const std::string header = "diff --git a/";
  std::set<std::string> out;
  std::istringstream in(file_text(kFixture / "edits.patch"));
  for (std::string line; std::getline(in, line);)
    if (line.starts_with(header)) out.insert(line.substr(header.size(), line.find(" b/") - header.size()));
  return out;
}

bool covers(const std::string& listed, const std::string& file) {
  return listed.ends_with('/') ? file.starts_with(listed) : file == listed;
}

TEST(AddingAnOperator, TheDocsTablesAreRead) {
  // A change of the doc's layout that this test no longer reads must not pass as agreement.
  EXPECT_GE(files_you_add().size(), 8u);
  EXPECT_GE(lines_you_edit().size(), 2u);
  EXPECT_FALSE(patched_files().empty()) << kFixture / "edits.patch";
}

TEST(AddingAnOperator, EveryFileYouAddIsInTheFixture) {
  const auto files = fixture_files();
  for (const auto& entry : files_you_add()) {
    const std::string& listed = entry.first;
    if (entry.second) continue;  // optional
    EXPECT_TRUE(std::any_of(files.begin(), files.end(), [&](const auto& f) { return covers(listed, f); }))
        << listed << " (docs/adding-an-operator.md, \"Files you add\") is not in " << kFixture / "tree";
  }
}

TEST(AddingAnOperator, TheFixtureAddsOnlyFilesYouAdd) {
  const auto listed = files_you_add();
  for (const std::string& f : fixture_files())
    EXPECT_TRUE(std::any_of(listed.begin(), listed.end(), [&](const auto& l) { return covers(l.first, f); }))
        << f << " is in the fixture but not in docs/adding-an-operator.md's \"Files you add\"";
}

TEST(AddingAnOperator, ThePatchEditsExactlyTheLinesYouEdit) {
  const auto listed = lines_you_edit();
  const auto patched = patched_files();
  for (const std::string& f : patched)
    EXPECT_TRUE(listed.count(f)) << "edits.patch edits " << f << ", which \"Lines you edit\" does not list";
  for (const std::string& f : listed)
    EXPECT_TRUE(patched.count(f)) << "\"Lines you edit\" lists " << f << ", which edits.patch does not edit";
}

TEST(AddingAnOperator, TheDocsCountIsTheNumberOfFilesYouEdit) {
  const std::string before = "Those ", after = " files are all you edit by hand";
  static const std::map<std::string, size_t> kNumbers = {{"one", 1},  {"two", 2}, {"three", 3}, {"four", 4},
                                                         {"five", 5}, {"six", 6}, {"seven", 7}, {"eight", 8},
                                                         {"nine", 9}, {"ten", 10}};
  const size_t end = doc().find(after);
  const size_t start = end == std::string::npos ? end : doc().rfind(before, end);
  ASSERT_NE(start, std::string::npos)
      << "docs/adding-an-operator.md no longer says \"Those N files are all you edit by hand\"";
  const std::string word = doc().substr(start + before.size(), end - start - before.size());
  const std::string sentence = before + word + after;
  ASSERT_TRUE(kNumbers.count(word)) << word << " is not a number word";
  EXPECT_EQ(kNumbers.at(word), lines_you_edit().size()) << "the doc says \"" << sentence << "\"";
  EXPECT_EQ(kNumbers.at(word), patched_files().size()) << "the doc says \"" << sentence << "\"";
}

}  // namespace
}  // namespace dmlcert

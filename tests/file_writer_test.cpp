// dmlcert's one way to put a file in place (dmlcert/file_writer.h): whole or not at all, through a
// symbolic link when the path is one, and never a temporary file left behind. Running out of space
// is shown on a full tmpfs by tests/run_files_test.cpp.
#include "dmlcert/file_writer.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>

#include "scratch_dir.h"

namespace dmlcert {
namespace {

namespace fs = std::filesystem;

std::string slurp(const fs::path& p) {
  std::stringstream s;
  s << std::ifstream(p).rdbuf();
  return s.str();
}

struct WriteRow {
  std::string name;
  // Prepares the directory and returns the path to write.
  std::function<fs::path(const fs::path& dir)> prepare;
  bool written = true;
  std::string message;                        // a substring of the error, when not written
  std::function<void(const fs::path&)> more;  // what else must hold afterwards
};
void PrintTo(const WriteRow& r, std::ostream* os) {
  *os << r.name;
}

class FileWriter : public testing::TestWithParam<WriteRow> {};

TEST_P(FileWriter, PutsTheFileInPlaceWholeOrNotAtAll) {
  const WriteRow& row = GetParam();
  const fs::path dir = test::scratch_dir("file_writer_" + row.name);
  const fs::path path = row.prepare(dir);
  const FileWritten w = write_file_atomically(path.string(), "new contents\n");
  EXPECT_EQ(static_cast<bool>(w), row.written) << w.message;
  if (!row.written) {
    EXPECT_NE(w.message.find(row.message), std::string::npos) << w.message;
    EXPECT_EQ(w.error, FileWritten::Error::Other);
  }
  for (const auto& entry : fs::recursive_directory_iterator(dir))
    EXPECT_EQ(entry.path().filename().string().find(".tmp."), std::string::npos)
        << "left behind: " << entry.path();
  if (row.more) row.more(dir);
}

INSTANTIATE_TEST_SUITE_P(
    Paths, FileWriter,
    testing::Values(WriteRow{"a_new_file", [](const fs::path& d) { return d / "f.json"; }, true, "",
                             [](const fs::path& d) { EXPECT_EQ(slurp(d / "f.json"), "new contents\n"); }},
                    WriteRow{"an_existing_file_is_replaced",
                             [](const fs::path& d) {
                               std::ofstream(d / "f.json") << "old, longer contents that must not survive\n";
                               return d / "f.json";
                             },
                             true, "",
                             [](const fs::path& d) { EXPECT_EQ(slurp(d / "f.json"), "new contents\n"); }},
                    // A report path that is a link: the file it names is written, the link stays.
                    WriteRow{"through_a_symbolic_link",
                             [](const fs::path& d) {
                               fs::create_directories(d / "kept");
                               std::ofstream(d / "kept" / "f.json") << "old\n";
                               fs::create_symlink(d / "kept" / "f.json", d / "link.json");
                               return d / "link.json";
                             },
                             true, "",
                             [](const fs::path& d) {
                               EXPECT_TRUE(fs::is_symlink(d / "link.json"));
                               EXPECT_EQ(slurp(d / "kept" / "f.json"), "new contents\n");
                             }},
                    WriteRow{"through_a_chain_of_links_to_nothing_yet",
                             [](const fs::path& d) {
                               fs::create_directories(d / "kept");
                               fs::create_symlink("kept/f.json", d / "second.json");  // relative, dangling
                               fs::create_symlink(d / "second.json", d / "first.json");
                               return d / "first.json";
                             },
                             true, "",
                             [](const fs::path& d) {
                               EXPECT_TRUE(fs::is_symlink(d / "first.json"));
                               EXPECT_TRUE(fs::is_symlink(d / "second.json"));
                               EXPECT_EQ(slurp(d / "kept" / "f.json"), "new contents\n");
                             }},
                    WriteRow{"a_loop_of_links",
                             [](const fs::path& d) {
                               fs::create_symlink(d / "b.json", d / "a.json");
                               fs::create_symlink(d / "a.json", d / "b.json");
                               return d / "a.json";
                             },
                             false, "Too many levels of symbolic links"},
                    WriteRow{"a_directory_that_does_not_exist",
                             [](const fs::path& d) { return d / "no" / "such" / "f.json"; }, false,
                             "cannot create"},
                    WriteRow{"a_directory_in_its_place",
                             [](const fs::path& d) {
                               fs::create_directories(d / "f.json");
                               return d / "f.json";
                             },
                             false, "Is a directory",
                             [](const fs::path& d) { EXPECT_TRUE(fs::is_directory(d / "f.json")); }}),
    [](const testing::TestParamInfo<WriteRow>& row) { return row.param.name; });

}  // namespace
}  // namespace dmlcert

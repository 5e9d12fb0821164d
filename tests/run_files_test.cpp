// The files a run reads and writes, whatever the command line or the machine does to them: two runs
// that share a repro directory both keep every file their reports name; a repro directory that
// runs out of space gets no empty file, one error and a report that says so; a report path that is
// a symbolic link is written through it; a FIFO given as a case file or an expectations file is
// refused at once by every command.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include "scratch_dir.h"

extern char** environ;

namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

struct Command {
  int exit_code = -1;
  std::string out, err;
};

std::string slurp(const fs::path& p) {
  std::stringstream s;
  s << std::ifstream(p).rdbuf();
  return s.str();
}

// Runs a shell command line with its output in files under dir; killed after 2 minutes, so that a
// command that blocks fails its test instead of hanging the suite.
Command shell(const fs::path& dir, const std::string& line) {
  const int raw = std::system(("timeout -k 5 120 " + line + " >" + (dir / "stdout.txt").string() + " 2>" +
                               (dir / "stderr.txt").string())
                                  .c_str());
  return {WIFEXITED(raw) ? WEXITSTATUS(raw) : -1, slurp(dir / "stdout.txt"), slurp(dir / "stderr.txt")};
}
std::string dmlcert() {
  return DMLCERT_CLI;
}

// Every file a report names: the repro lists of its cells and rule checks, and each failure's files.
std::set<std::string> files_named(const json& report) {
  std::set<std::string> files;
  for (const char* section : {"cells", "rules"})
    for (const json& entry : report[section])
      for (const json& f : entry["repros"]) files.insert(f.get<std::string>());
  for (const json& f : report["failures"])
    for (const char* field : {"repro", "shrunk", "sequence"})
      if (!f[field].get<std::string>().empty()) files.insert(f[field].get<std::string>());
  return files;
}

// A certification whose every SLICE1 cell fails (a write past the output): many repro files.
std::string failing_certification(const fs::path& repros, const fs::path& report) {
  return dmlcert() + " certify --backend plugin:" + DMLCERT_OOB_WRITE_PLUGIN +
         " --level 2_1 --ops SLICE1 --budget smoke --corpus " +
         (report.parent_path() / "no-corpus").string() + " --repro-dir " + repros.string() + " --report " +
         report.string();
}

TEST(RunFiles, TwoRunsSharingAReproDirKeepEveryFileTheirReportsName) {
  const fs::path dir = dmlcert::test::scratch_dir("run_files_shared_repros");
  fs::create_directories(dir / "no-corpus");
  const fs::path repros = dir / "repros";
  pid_t pids[2];
  for (int i = 0; i < 2; ++i) {
    const std::string line = failing_certification(repros, dir / ("report" + std::to_string(i) + ".json")) +
                             " >" + (dir / ("out" + std::to_string(i) + ".txt")).string() + " 2>&1";
    const char* argv[] = {"/bin/sh", "-c", line.c_str(), nullptr};
    ASSERT_EQ(::posix_spawn(&pids[i], "/bin/sh", nullptr, nullptr, const_cast<char**>(argv), environ), 0);
  }
  for (pid_t pid : pids) ::waitpid(pid, nullptr, 0);
  std::set<std::string> all;
  for (int i = 0; i < 2; ++i) {
    const json report = json::parse(slurp(dir / ("report" + std::to_string(i) + ".json")));
    const std::set<std::string> named = files_named(report);
    EXPECT_GT(named.size(), 2u) << "run " << i << " found no failures";
    for (const std::string& f : named) {
      EXPECT_TRUE(fs::exists(f)) << "run " << i << "'s report names " << f << ", which is gone";
      EXPECT_TRUE(all.insert(f).second) << f << " is named by both reports";
    }
  }
  // One of them found the directory in use and said where its files went.
  const std::string said = slurp(dir / "out0.txt") + slurp(dir / "out1.txt");
  EXPECT_THAT(said, testing::HasSubstr("is in use by another dmlcert run: this run's repro files go to"));
}

// A private mount namespace holds a tmpfs of 24 KiB as the repro directory: a few repro files fill
// it. Needs the privilege to mount (CI runs as root); skipped, saying so, without it.
TEST(RunFiles, AReproDirThatRunsOutOfSpaceGetsNoEmptyFileOneErrorAndTheReportSaysSo) {
  const fs::path dir = dmlcert::test::scratch_dir("run_files_full_tmpfs");
  fs::create_directories(dir / "no-corpus");
  fs::create_directories(dir / "mnt");
  const fs::path repros = dir / "mnt" / "repros";
  // A mount namespace needs the privilege and a root that is a mount point (not so in a chroot).
  if (const Command probe = shell(dir, "unshare -m true"); probe.exit_code != 0)
    GTEST_SKIP() << "cannot make a mount namespace here: " << probe.err;
  const std::string inside = "mount -t tmpfs -o size=24k tmpfs " + (dir / "mnt").string() + " || exit 77; " +
                             failing_certification(repros, dir / "report.json") + "; status=\\$?; find " +
                             (dir / "mnt").string() + " -printf '%s %p\\n' >" +
                             (dir / "listing.txt").string() + "; exit \\$status";
  const Command c = shell(dir, "unshare -m sh -c \"" + inside + "\"");
  if (c.exit_code == 77 || c.err.find("unshare failed") != std::string::npos)
    GTEST_SKIP() << "cannot mount a tmpfs here: " << c.err;
  EXPECT_EQ(c.exit_code, 1) << c.out << c.err;
  // What was on the tmpfs: no empty file, no temporary file left behind.
  std::map<std::string, long> sizes;
  std::istringstream listing(slurp(dir / "listing.txt"));
  for (std::string line; std::getline(listing, line);) {
    const size_t space = line.find(' ');
    const std::string path = line.substr(space + 1);
    if (!fs::path(path).has_extension() && path.find(".tmp") == std::string::npos) continue;  // directories
    sizes[path] = std::stol(line.substr(0, space));
    EXPECT_EQ(path.find(".tmp"), std::string::npos) << "left behind: " << path;
    if (fs::path(path).filename() != ".dmlcert-repros") {
      EXPECT_GT(sizes[path], 0) << "empty: " << path;
    }
  }
  EXPECT_GT(sizes.size(), 1u) << slurp(dir / "listing.txt");
  // One error, and the report says so; every file it names was written whole.
  const std::string said = c.out + c.err;
  const std::regex error_line("dmlcert: the repro directory ran out of space");
  EXPECT_EQ(std::distance(std::sregex_iterator(said.begin(), said.end(), error_line), std::sregex_iterator()),
            1)
      << said.substr(0, 3000);
  const json report = json::parse(slurp(dir / "report.json"));
  EXPECT_THAT(report["repro_error"].get<std::string>(), testing::HasSubstr("No space left on device"));
  EXPECT_THAT(c.out, testing::HasSubstr("REPRO FILES: the repro directory ran out of space"));
  for (const std::string& f : files_named(report))
    EXPECT_GT(sizes[f], 0) << "the report names " << f << ", which was not written";
  for (const json& f : report["failures"]) {
    const std::string reproduce = f["reproduce"];
    if (reproduce.empty()) continue;
    std::smatch file;
    ASSERT_TRUE(std::regex_search(reproduce, file, std::regex(" run (\\S+) --backend"))) << reproduce;
    EXPECT_GT(sizes[file[1].str()], 0) << "a reproduce line names a file that does not exist: " << reproduce;
  }
}

TEST(RunFiles, AReportPathThatIsASymbolicLinkIsWrittenThroughIt) {
  const fs::path dir = dmlcert::test::scratch_dir("run_files_report_link");
  fs::create_directories(dir / "no-corpus");
  fs::create_directories(dir / "kept");
  std::ofstream(dir / "kept" / "report.json") << "an earlier report";
  fs::create_symlink(dir / "kept" / "report.json", dir / "report.json");
  fs::create_symlink("kept/junit.xml", dir / "junit.xml");  // relative, and dangling: made
  const Command c =
      shell(dir, dmlcert() + " certify --backend plugin:" + DMLCERT_REFERENCE_PLUGIN +
                     " --level 2_1 --ops SLICE --budget smoke --corpus " + (dir / "no-corpus").string() +
                     " --repro-dir " + (dir / "repros").string() + " --report " +
                     (dir / "report.json").string() + " --junit " + (dir / "junit.xml").string());
  EXPECT_EQ(c.exit_code, 0) << c.out << c.err;
  EXPECT_TRUE(fs::is_symlink(dir / "report.json"));
  EXPECT_TRUE(fs::is_symlink(dir / "junit.xml"));
  EXPECT_TRUE(json::parse(slurp(dir / "kept" / "report.json"))["certified"].get<bool>());
  EXPECT_THAT(slurp(dir / "kept" / "junit.xml"), testing::HasSubstr("<testsuites"));
}

struct FifoRow {
  std::string name;
  std::string args;  // FIFO stands for the FIFO's path
  std::string said;  // in stdout or stderr
};
void PrintTo(const FifoRow& r, std::ostream* os) {
  *os << r.name;
}

class RunFilesFifo : public testing::TestWithParam<FifoRow> {};

TEST_P(RunFilesFifo, IsRefusedAtOnce) {
  const fs::path dir = dmlcert::test::scratch_dir("run_files_fifo_" + GetParam().name);
  fs::create_directories(dir / "no-corpus");
  const fs::path fifo = dir / "case.json";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0);
  const std::string args = std::regex_replace(GetParam().args, std::regex("FIFO"), fifo.string());
  const auto start = std::chrono::steady_clock::now();
  const Command c = shell(dir, dmlcert() + " " + std::regex_replace(args, std::regex("DIR"), dir.string()));
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(c.exit_code, 2) << c.out << c.err;
  EXPECT_LT(seconds, 30) << "it waited on the FIFO";
  EXPECT_THAT(c.out + c.err, testing::HasSubstr(GetParam().said));
}

INSTANTIATE_TEST_SUITE_P(
    Commands, RunFilesFifo,
    testing::Values(FifoRow{"run", "run FIFO --backend reference", "not a regular file (a FIFO)"},
                    FifoRow{"replay", "replay FIFO --backend reference", "not a regular file (a FIFO)"},
                    FifoRow{"certify_expect",
                            "certify --backend reference --level 2_1 --ops SLICE --budget smoke --corpus "
                            "DIR/no-corpus --repro-dir DIR/repros --expect FIFO",
                            "not a regular file (a FIFO)"},
                    FifoRow{"merge", "merge FIFO --report DIR/merged.json", "not a regular file (a FIFO)"}),
    [](const testing::TestParamInfo<FifoRow>& row) { return row.param.name; });

}  // namespace

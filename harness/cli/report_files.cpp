#include "report_files.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "dmlcert/file_writer.h"
#include "dmlcert/text.h"
#include "report_code_coverage.h"

namespace dmlcert::cli {
namespace {

namespace fs = std::filesystem;

// Whole or absent, through a symbolic link if the path is one (write_file_atomically()).
bool write_file(const std::string& path, const std::string& text, bool quiet) {
  std::error_code ec;
  const fs::path p(path);
  if (p.has_parent_path()) fs::create_directories(p.parent_path(), ec);
  const FileWritten written = write_file_atomically(path, text);
  if (!written && !quiet) std::cerr << "dmlcert: " << written.message << "\n";
  return static_cast<bool>(written);
}

std::string dir_of(const std::string& path) {
  fs::path p = fs::absolute(path);
  return p.parent_path().string();
}

// genhtml's pages of the tracefile, in `dir`; false after saying why.
bool run_genhtml(const std::string& tracefile, const std::string& dir, bool quiet) {
  std::vector<std::string> args = {"genhtml",
                                   "--quiet",
                                   "--ignore-errors",
                                   "source",
                                   "--title",
                                   "dmlcert code coverage",
                                   "--output-directory",
                                   dir,
                                   tracefile};
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = -1;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  // genhtml's progress would interleave with dmlcert's own output.
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  const int spawned = ::posix_spawnp(&pid, "genhtml", &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  int status = 0;
  if (spawned != 0) {
    if (!quiet)
      std::cerr << "dmlcert: cannot run genhtml (Debian package lcov) for --coverage-html: "
                << std::strerror(spawned) << "; the tracefile is " << printable(tracefile, 200) << "\n";
    return false;
  }
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return true;
  if (!quiet)
    std::cerr << "dmlcert: genhtml failed on " << printable(tracefile, 200) << " (--coverage-html)\n";
  return false;
}

// Whether `program` is an executable file in a directory of $PATH.
bool on_path(const std::string& program) {
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "/usr/bin:/bin";
  size_t start = 0;
  while (start <= dirs.size()) {
    const size_t end = std::min(dirs.find(':', start), dirs.size());
    const std::string dir = dirs.substr(start, end - start);
    if (!dir.empty() && ::access((fs::path(dir) / program).c_str(), X_OK) == 0) return true;
    start = end + 1;
  }
  return false;
}

}  // namespace

bool write_code_coverage(const cert::Report& r, const ReportFiles& files, bool quiet) {
  const std::string lcov = cert::to_lcov(r);
  if (lcov.empty()) {
    // Not an error of the run: the backend had nothing to show; the reports say why.
    if (!quiet) {
      const std::string line = cert::code_coverage_line(r);
      std::cerr << "dmlcert: no code coverage to write (--coverage-lcov, --coverage-html): "
                << (line.empty() ? "the backend runs in dmlcert's own process" : line) << "\n";
    }
    return true;
  }
  bool ok = true;
  if (!files.coverage_lcov.empty()) ok &= write_file(files.coverage_lcov, lcov, quiet);
  if (!files.coverage_html.empty()) {
    const std::string tracefile = (fs::path(files.coverage_html) / "dmlcert.info").string();
    ok &= write_file(tracefile, lcov, quiet) && run_genhtml(tracefile, files.coverage_html, quiet);
  }
  return ok;
}

void add_report_options(CLI::App& cmd, ReportFiles* files) {
  cmd.add_option("--report", files->json, "Write the JSON report (mergeable across shards)");
  cmd.add_option("--junit", files->junit, "Write a JUnit XML report (one testcase per cell and per rule)");
  cmd.add_option("--markdown", files->markdown, "Write a Markdown report");
  cmd.add_option("--html", files->html, "Write a self-contained HTML report");
  cmd.add_option("--coverage-lcov", files->coverage_lcov,
                 "Write the backend's code coverage as an lcov tracefile (a plugin compiled with "
                 "SanitizerCoverage: docs/coverage.md)");
  cmd.add_option("--coverage-html", files->coverage_html,
                 "Write browsable pages of the backend's code coverage into this directory (lcov's genhtml; "
                 "index.html)");
}

bool can_write_reports(const ReportFiles& files, std::string* why) {
  if (!files.coverage_html.empty()) {
    // A directory genhtml fills, and genhtml itself: both there before the first case runs.
    std::error_code ec;
    fs::create_directories(files.coverage_html, ec);
    const fs::path probe = fs::path(files.coverage_html) / ".dmlcert-write-check";
    if (!fs::is_directory(files.coverage_html, ec) || !std::ofstream(probe)) {
      *why = "cannot write --coverage-html into " + printable(files.coverage_html, 200) +
             ": not a writable directory";
      return false;
    }
    fs::remove(probe, ec);
    if (!on_path("genhtml")) {
      *why = "--coverage-html needs genhtml (Debian package lcov), which is not on PATH";
      return false;
    }
  }
  for (const std::string* path :
       {&files.json, &files.junit, &files.markdown, &files.html, &files.coverage_lcov}) {
    if (path->empty()) continue;
    std::error_code ec;
    // A link is written through (write_file_atomically()): what it names is what must be writable.
    const fs::path p = fs::weakly_canonical(fs::absolute(*path, ec), ec);
    // The report replaces the file by a rename, which a directory in its place would refuse.
    if (fs::is_directory(p, ec)) {
      *why = "cannot write the report " + printable(*path, 200) + ": it is a directory";
      return false;
    }
    if (p.has_parent_path()) fs::create_directories(p.parent_path(), ec);
    const std::string probe = p.string() + ".tmp";
    std::ofstream out(probe, std::ios::app);
    if (!out) {
      *why = "cannot write the report " + printable(*path, 200) + ": " + std::strerror(errno);
      return false;
    }
    out.close();
    fs::remove(probe, ec);
  }
  return true;
}

bool write_reports(const cert::Report& r, const ReportFiles& files, bool quiet) {
  bool ok = true;
  if (!files.json.empty()) ok &= write_file(files.json, cert::to_json(r), quiet);
  if (!files.junit.empty()) ok &= write_file(files.junit, cert::to_junit(r), quiet);
  if (!files.markdown.empty())
    ok &= write_file(files.markdown, cert::to_markdown(r, dir_of(files.markdown)), quiet);
  if (!files.html.empty()) ok &= write_file(files.html, cert::to_html(r, dir_of(files.html)), quiet);
  if (!files.coverage_lcov.empty() || !files.coverage_html.empty())
    ok &= write_code_coverage(r, files, quiet);
  return ok;
}

std::optional<cert::Report> read_report_file(const std::string& command, const std::string& path,
                                             uint64_t max_bytes) {
  std::string text, error;
  if (!read_text_file(path, max_bytes, &text, &error)) {
    std::cerr << "dmlcert " << command << ": " << printable(path) << ": " << printable(error, 200) << "\n";
    return std::nullopt;
  }
  auto r = cert::report_from_json(text, &error);
  if (!r)
    // A case file or anything else that is not a certify report: say so in one line.
    std::cerr << "dmlcert " << command << ": " << printable(path)
              << ": not a `dmlcert certify --report` JSON report (" << printable(error, 200) << ")\n";
  return r;
}

}  // namespace dmlcert::cli

#include "report_files.h"

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "dmlcert/file_writer.h"
#include "dmlcert/text.h"

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

}  // namespace

void add_report_options(CLI::App& cmd, ReportFiles* files) {
  cmd.add_option("--report", files->json, "Write the JSON report (mergeable across shards)");
  cmd.add_option("--junit", files->junit, "Write a JUnit XML report (one testcase per cell and per rule)");
  cmd.add_option("--markdown", files->markdown, "Write a Markdown report");
  cmd.add_option("--html", files->html, "Write a self-contained HTML report");
}

bool can_write_reports(const ReportFiles& files, std::string* why) {
  for (const std::string* path : {&files.json, &files.junit, &files.markdown, &files.html}) {
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

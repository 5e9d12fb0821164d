#include "report_files.h"

#include <filesystem>
#include <fstream>
#include <iostream>

namespace dmlcert::cli {
namespace {

namespace fs = std::filesystem;

bool write_file(const std::string& path, const std::string& text) {
  std::error_code ec;
  fs::path p(path);
  if (p.has_parent_path()) fs::create_directories(p.parent_path(), ec);
  std::ofstream out(path, std::ios::binary);
  out << text;
  if (!out) {
    std::cerr << "dmlcert: cannot write " << path << "\n";
    return false;
  }
  return true;
}

std::string dir_of(const std::string& path) {
  fs::path p = fs::absolute(path);
  return p.parent_path().string();
}

}  // namespace

bool write_reports(const cert::Report& r, const ReportFiles& files) {
  bool ok = true;
  if (!files.json.empty()) ok &= write_file(files.json, cert::to_json(r));
  if (!files.junit.empty()) ok &= write_file(files.junit, cert::to_junit(r));
  if (!files.markdown.empty()) ok &= write_file(files.markdown, cert::to_markdown(r, dir_of(files.markdown)));
  if (!files.html.empty()) ok &= write_file(files.html, cert::to_html(r, dir_of(files.html)));
  return ok;
}

}  // namespace dmlcert::cli

// Case files on disk: .json (one case) and .jsonl (one case per non-empty line), directories of
// them, and atomic writes.
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "dmlcert/case.h"

namespace dmlcert {
namespace fs = std::filesystem;

std::string_view name(CaseClass c) {
  switch (c) {
    case CaseClass::Valid: return "valid";
    case CaseClass::Invalid: return "invalid";
    case CaseClass::Unspecified: return "unspecified";
  }
  return "valid";
}

std::string CaseError::to_string() const {
  std::string s = file + ": " + path + ": " + message;
  // One line, whatever a file name or message holds.
  for (char& ch : s)
    if (ch == '\n' || ch == '\r') ch = ' ';
  return s;
}

namespace {

bool ends_with(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

bool read_file(const std::string& path, std::string* text, std::string* why) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    *why = std::strerror(errno);
    return false;
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) {
    *why = "read error";
    return false;
  }
  *text = std::move(ss).str();
  return true;
}

void load_jsonl(const std::string& path, const std::string& text, LoadedCases& out) {
  size_t line_no = 0, begin = 0;
  while (begin <= text.size()) {
    size_t end = text.find('\n', begin);
    if (end == std::string::npos) end = text.size();
    ++line_no;
    const std::string_view line(text.data() + begin, end - begin);
    if (line.find_first_not_of(" \t\r") != std::string_view::npos) {
      CaseError e;
      if (auto c = parse_case(line, path, &e))
        out.cases.push_back(std::move(*c));
      else {
        e.path = "line " + std::to_string(line_no) + (e.path == "(root)" ? "" : ": " + e.path);
        out.errors.push_back(std::move(e));
      }
    }
    begin = end + 1;
  }
}

}  // namespace

LoadedCases load_case_file(const std::string& path) {
  LoadedCases out;
  std::string text, why;
  if (!read_file(path, &text, &why)) {
    out.errors.push_back(CaseError{path, "(file)", "cannot read the file: " + why});
    return out;
  }
  if (ends_with(path, ".jsonl")) {
    load_jsonl(path, text, out);
  } else {
    CaseError e;
    if (auto c = parse_case(text, path, &e))
      out.cases.push_back(std::move(*c));
    else
      out.errors.push_back(std::move(e));
  }
  return out;
}

LoadedCases load_cases(const std::vector<std::string>& paths) {
  LoadedCases all;
  auto append = [&](LoadedCases&& one) {
    std::move(one.cases.begin(), one.cases.end(), std::back_inserter(all.cases));
    std::move(one.errors.begin(), one.errors.end(), std::back_inserter(all.errors));
  };
  for (const std::string& p : paths) {
    std::error_code ec;
    if (!fs::is_directory(p, ec)) {
      append(load_case_file(p));
      continue;
    }
    std::vector<std::string> files;
    for (auto it = fs::recursive_directory_iterator(p, fs::directory_options::skip_permission_denied, ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
      const std::string f = it->path().string();
      if (it->is_regular_file(ec) && (ends_with(f, ".json") || ends_with(f, ".jsonl"))) files.push_back(f);
    }
    if (ec) all.errors.push_back(CaseError{p, "(file)", "cannot list the directory: " + ec.message()});
    std::sort(files.begin(), files.end());
    for (const std::string& f : files) append(load_case_file(f));
  }
  return all;
}

bool write_case_file(const std::string& path, const Case& c, std::string* error) {
  auto failed = [&](const std::string& why) {
    if (error) *error = path + ": " + why;
    return false;
  };
  // A unique sibling name, so the rename stays within one file system and is atomic.
  static std::atomic<unsigned> counter{0};
  const std::string tmp =
      path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter.fetch_add(1));
  const std::string text = ends_with(path, ".jsonl") ? to_json(c, false) + "\n" : to_json(c, true);
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) return failed("cannot create " + tmp + ": " + std::strerror(errno));
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
    out.flush();
    if (!out) {
      std::remove(tmp.c_str());
      return failed("cannot write " + tmp);
    }
  }
  std::error_code ec;
  fs::rename(tmp, path, ec);
  if (ec) {
    std::remove(tmp.c_str());
    return failed("cannot rename " + tmp + ": " + ec.message());
  }
  return true;
}

}  // namespace dmlcert

// Case files on disk: .json (one case) and .jsonl (one case per non-empty line), directories of
// them, and their writing (file_writer.h). Reading is bounded (ReadLimits) and every path that cannot be read
// is reported, never skipped in silence.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include "dmlcert/case.h"
#include "dmlcert/text.h"

namespace dmlcert {
namespace fs = std::filesystem;

std::string CaseError::to_string() const {
  // The file and the path get bounded shares, the message the rest: a line that floods a terminal
  // or a CI log helps no one (docs/case-format.md, "Malformed files").
  std::string line = printable(file, 160) + ": " + printable(path, 80) + ": ";
  return line + printable(message, kMaxErrorLine - line.size());
}

namespace {

bool ends_with(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

// Opens without waiting (a FIFO would block the open until a writer comes) and reads only regular
// files: a FIFO, a socket or a device is refused by every command, never waited on or read forever.
bool read_text_file(const std::string& path, uint64_t limit, std::string* text, std::string* why) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    *why = std::string("cannot read the file: ") + std::strerror(errno);
    return false;
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    *why = std::string("cannot read the file: ") + std::strerror(errno);
    ::close(fd);
    return false;
  }
  if (S_ISDIR(st.st_mode)) {
    ::close(fd);
    *why =
        "cannot read the file: it is a directory (give a .json or .jsonl file, or pass the directory to "
        "`replay`)";
    return false;
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    *why = std::string("cannot read the file: it is not a regular file (") +
           (S_ISFIFO(st.st_mode)   ? "a FIFO"
            : S_ISSOCK(st.st_mode) ? "a socket"
            : S_ISCHR(st.st_mode)  ? "a character device"
            : S_ISBLK(st.st_mode)  ? "a block device"
                                   : "not a file") +
           ")";
    return false;
  }
  if (static_cast<uint64_t>(st.st_size) > limit) {
    ::close(fd);
    *why = "it has " + std::to_string(st.st_size) + " bytes, more than the limit of " +
           std::to_string(limit) + " (--max-file-bytes)";
    return false;
  }
  text->clear();
  // One allocation, so that reading holds no second copy while it grows.
  text->reserve(static_cast<size_t>(st.st_size) + 1);
  char buf[1 << 16];
  while (true) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      *why = std::string("cannot read the file: ") + std::strerror(errno);
      ::close(fd);
      return false;
    }
    if (n == 0) break;
    text->append(buf, static_cast<size_t>(n));
    if (text->size() > limit) {  // a file that grew while it was read
      ::close(fd);
      *why = "it holds more than the limit of " + std::to_string(limit) + " bytes (--max-file-bytes)";
      return false;
    }
  }
  ::close(fd);
  return true;
}

namespace {

void load_jsonl(const std::string& path, const std::string& text, const ReadLimits& limits,
                LoadedCases& out) {
  size_t line_no = 0, begin = 0, cases = 0;
  while (begin <= text.size()) {
    size_t end = text.find('\n', begin);
    if (end == std::string::npos) end = text.size();
    ++line_no;
    const std::string_view line(text.data() + begin, end - begin);
    if (line.find_first_not_of(" \t\r") != std::string_view::npos) {
      if (++cases > limits.max_cases) {
        out.errors.push_back(
            {path, "line " + std::to_string(line_no),
             "more than " + std::to_string(limits.max_cases) + " cases in one file; the rest is not read"});
        return;
      }
      CaseError e;
      if (auto c = parse_case(line, path, &e)) {
        out.cases.push_back(std::move(*c));
      } else {
        e.path = "line " + std::to_string(line_no) + (e.path == "(root)" ? "" : ": " + e.path);
        out.errors.push_back(std::move(e));
      }
    }
    begin = end + 1;
  }
}

// Every *.json and *.jsonl below dir. A subdirectory that cannot be listed, a dangling link or a
// device named like a case file is an error of its own; the walk goes on with the rest.
void collect_case_files(const fs::path& dir, std::vector<std::string>& files, std::vector<CaseError>& errors,
                        int depth) {
  constexpr int kMaxDepth = 64;  // links can make a directory tree endless
  if (depth > kMaxDepth) {
    errors.push_back(CaseError{dir.string(), "(file)", "nested more than 64 directories deep; not read"});
    return;
  }
  std::error_code ec;
  fs::directory_iterator it(dir, ec), end;
  if (ec) {
    errors.push_back(CaseError{dir.string(), "(file)", "cannot list the directory: " + ec.message()});
    return;
  }
  for (; it != end; it.increment(ec)) {
    const std::string f = it->path().string();
    std::error_code type_ec;
    if (it->is_directory(type_ec)) {
      collect_case_files(it->path(), files, errors, depth + 1);
      continue;
    }
    // A link that leads nowhere may have been a directory of cases: reported whatever its name.
    if (it->is_symlink(type_ec) && !fs::exists(it->path(), type_ec)) {
      errors.push_back(CaseError{f, "(file)", "a link to nothing"});
      continue;
    }
    if (!ends_with(f, ".json") && !ends_with(f, ".jsonl")) continue;
    if (it->is_regular_file(type_ec))
      files.push_back(f);
    else
      errors.push_back(CaseError{f, "(file)", "not a regular file"});
  }
  if (ec)
    errors.push_back(CaseError{dir.string(), "(file)", "cannot list the whole directory: " + ec.message()});
}

}  // namespace

LoadedCases load_case_file(const std::string& path, const ReadLimits& limits) {
  LoadedCases out;
  std::string text, why;
  if (!read_text_file(path, limits.max_file_bytes, &text, &why)) {
    out.errors.push_back(CaseError{path, "(file)", why});
    return out;
  }
  if (ends_with(path, ".jsonl")) {
    load_jsonl(path, text, limits, out);
  } else {
    CaseError e;
    if (auto c = parse_case(text, path, &e))
      out.cases.push_back(std::move(*c));
    else
      out.errors.push_back(std::move(e));
  }
  return out;
}

CaseFileList list_case_files(const std::vector<std::string>& paths) {
  CaseFileList list;
  for (const std::string& p : paths) {
    std::error_code ec;
    if (!fs::is_directory(p, ec)) {
      list.files.push_back(p);  // a path that cannot be read says so when it is loaded
      continue;
    }
    std::vector<std::string> files;
    collect_case_files(p, files, list.errors, 0);
    std::sort(files.begin(), files.end());
    std::move(files.begin(), files.end(), std::back_inserter(list.files));
  }
  return list;
}

LoadedCases load_cases(const std::vector<std::string>& paths, const ReadLimits& limits) {
  CaseFileList list = list_case_files(paths);
  LoadedCases all;
  all.errors = std::move(list.errors);
  for (const std::string& f : list.files) {
    LoadedCases one = load_case_file(f, limits);
    std::move(one.cases.begin(), one.cases.end(), std::back_inserter(all.cases));
    std::move(one.errors.begin(), one.errors.end(), std::back_inserter(all.errors));
  }
  return all;
}

FileWritten write_case_file(const std::string& path, const Case& c) {
  return write_file_atomically(path, ends_with(path, ".jsonl") ? to_json(c, false) + "\n" : to_json(c, true));
}

}  // namespace dmlcert

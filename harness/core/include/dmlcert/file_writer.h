// dmlcert's one way to put a file in place (case files, repro sequences, reports): whole or not at
// all. A reader never finds an empty or partial file, running out of space is told apart from
// other failures (so that a run can say it once and stop writing), and a path that is a symbolic
// link is written through the link.
#pragma once

#include <string>
#include <string_view>

namespace dmlcert {

struct FileWritten {
  enum class Error { None, NoSpace, Other };
  Error error = Error::None;
  std::string message;  // "cannot write PATH: No space left on device"; empty when written
  explicit operator bool() const { return error == Error::None; }
};

// Writes `bytes` to `path`: into a new file beside it, whose space is reserved before anything is
// written (so that a full file system shows before the file is put in place), which then replaces
// `path` in one rename. A symbolic link at `path` is followed (through a chain of them) and the file
// it names is written; the link stays. The directory must exist. On failure the new file is removed
// and `path` is as it was.
FileWritten write_file_atomically(const std::string& path, std::string_view bytes);

}  // namespace dmlcert

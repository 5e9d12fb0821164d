// The in-flight file of an in-process run: the case being executed, on disk before the call, so
// that a crash that takes dmlcert down with the backend leaves it behind (docs/design.md, "The
// engine"). One file per worker, opened once and rewritten in place for every case: no file is
// created, renamed or deleted per case. It holds one line of canonical case JSON, which
// `dmlcert run` reads like any case file. A run that ends normally removes it.
#pragma once

#include <string>

#include "dmlcert/case.h"

namespace dmlcert::engine {

class InFlightFile {
 public:
  explicit InFlightFile(std::string path) : path_(std::move(path)) {}
  ~InFlightFile();
  InFlightFile(const InFlightFile&) = delete;
  InFlightFile& operator=(const InFlightFile&) = delete;

  // Replaces the file's content with `c`. False, with *error set, when it cannot be written; the
  // run goes on (without a record of its case).
  bool write(const Case& c, std::string* error);
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  int fd_ = -1;
};

}  // namespace dmlcert::engine

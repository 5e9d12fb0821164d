#include "in_flight.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

namespace dmlcert::engine {

InFlightFile::~InFlightFile() {
  if (fd_ < 0) return;
  ::close(fd_);
  ::unlink(path_.c_str());
}

bool InFlightFile::write(const Case& c, std::string* error) {
  auto failed = [&](const std::string& what) {
    if (error) *error = path_ + ": " + what + ": " + std::strerror(errno);
    return false;
  };
  if (fd_ < 0) {
    std::error_code ec;
    std::filesystem::create_directories(std::filesystem::path(path_).parent_path(), ec);
    fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd_ < 0) return failed("cannot create it");
  }
  // Compact, not pretty: this file is written before every call and read only after a crash.
  const std::string text = to_json(c, false) + "\n";
  // A write that lands whole before the call is what a crash leaves: the page cache keeps it
  // when the process dies, so no sync is needed (a machine crash is not what this guards).
  for (size_t done = 0; done < text.size();) {
    const ssize_t n = ::pwrite(fd_, text.data() + done, text.size() - done, static_cast<off_t>(done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return failed("cannot write it");
    done += static_cast<size_t>(n);
  }
  // A shorter case than the last one: cut off the end of the last one.
  if (::ftruncate(fd_, static_cast<off_t>(text.size())) != 0) return failed("cannot truncate it");
  return true;
}

}  // namespace dmlcert::engine

#include "dmlcert/file_writer.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include "dmlcert/text.h"

namespace dmlcert {
namespace {

namespace fs = std::filesystem;

bool is_no_space(int e) {
  return e == ENOSPC || e == EDQUOT;
}

FileWritten failed(const std::string& path, int e, std::string_view what = "cannot write") {
  FileWritten w;
  w.error = is_no_space(e) ? FileWritten::Error::NoSpace : FileWritten::Error::Other;
  w.message = std::string(what) + " " + printable(path, 300) + ": " + std::strerror(e);
  return w;
}

// The file a path names once symbolic links are followed (the last component's; directories on the
// way are followed by the system). A link to nothing names the file to create.
bool follow_links(const std::string& path, fs::path* target, int* error) {
  fs::path p = path;
  for (int hops = 0; hops < 40; ++hops) {
    std::error_code ec;
    if (!fs::is_symlink(fs::symlink_status(p, ec))) {
      *target = p;
      return true;
    }
    const fs::path next = fs::read_symlink(p, ec);
    if (ec) {
      *error = ec.value();
      return false;
    }
    p = next.is_absolute() ? next : p.parent_path() / next;
  }
  *error = ELOOP;
  return false;
}

}  // namespace

FileWritten write_file_atomically(const std::string& path, std::string_view bytes) {
  fs::path target;
  int e = 0;
  if (!follow_links(path, &target, &e)) return failed(path, e);
  // A unique name beside the target: the rename stays within one file system, and two writers
  // (threads, processes) never share a temporary file.
  static std::atomic<unsigned> counter{0};
  const fs::path tmp = target.parent_path() / ("." + target.filename().string() + ".tmp." +
                                               std::to_string(::getpid()) + "." + std::to_string(counter++));
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (fd < 0) return failed(path, errno, "cannot create");
  auto give_up = [&](int err) {
    ::close(fd);
    ::unlink(tmp.c_str());
    return failed(path, err);
  };
  // The space first: on a file system that allocates late, a write can succeed and the data still
  // not fit. A file system that cannot reserve space is written as it is.
  if (!bytes.empty()) {
    const int r = ::posix_fallocate(fd, 0, static_cast<off_t>(bytes.size()));
    if (r != 0 && r != EOPNOTSUPP && r != ENOSYS && r != EINVAL) return give_up(r);
  }
  for (size_t done = 0; done < bytes.size();) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return give_up(n < 0 ? errno : EIO);
    done += static_cast<size_t>(n);
  }
  if (::close(fd) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    return failed(path, err);
  }
  if (::rename(tmp.c_str(), target.c_str()) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    return failed(path, err);
  }
  return {};
}

}  // namespace dmlcert

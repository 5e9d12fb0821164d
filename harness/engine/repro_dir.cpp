#include "repro_dir.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>

#include "dmlcert/file_writer.h"

namespace dmlcert::engine {
namespace {

namespace fs = std::filesystem;

// A run directory another run is creating has no marker for a moment; one older than this without
// a marker was left by a run that died in that moment.
constexpr auto kMarkerGrace = std::chrono::minutes(1);

// The marker of `dir`, opened and locked; -1 when another process holds the lock (errno
// EWOULDBLOCK) or it cannot be opened.
int lock_marker(const fs::path& dir) {
  const int fd = ::open((dir / kReproDirMarker).c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return -1;
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    const int e = errno;
    ::close(fd);
    errno = e;
    return -1;
  }
  return fd;
}

// Whether an entry of the repro directory is the directory of a run that is still going on.
bool belongs_to_a_live_run(const fs::path& entry) {
  std::error_code ec;
  if (!fs::is_directory(fs::symlink_status(entry, ec)) || !entry.filename().string().starts_with("run-"))
    return false;
  if (!fs::exists(entry / kReproDirMarker, ec)) {
    const auto age = fs::file_time_type::clock::now() - fs::last_write_time(entry, ec);
    return !ec && age < kMarkerGrace;
  }
  const int fd = ::open((entry / kReproDirMarker).c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const bool held = ::flock(fd, LOCK_SH | LOCK_NB) != 0;
  ::close(fd);
  return held;
}

std::string marker_text(pid_t pid) {
  return "Made by dmlcert (run " + std::to_string(pid) +
         "): each run empties this directory, except what runs still going on write here, and writes its "
         "repro files here.\n";
}

}  // namespace

std::optional<ReproDir> ReproDir::claim(const std::string& dir, std::string* why) {
  std::error_code ec;
  const fs::path target = fs::absolute(dir, ec);
  if (fs::exists(target, ec) && !fs::is_directory(target, ec)) {
    *why = "is not a directory";
    return std::nullopt;
  }
  fs::create_directories(target, ec);
  if (ec) {
    *why = "cannot be created: " + ec.message();
    return std::nullopt;
  }
  if (::access(target.c_str(), W_OK | X_OK) != 0) {
    *why = "cannot be written: " + std::string(std::strerror(errno));
    return std::nullopt;
  }
  if (!fs::exists(target / kReproDirMarker, ec) && !fs::is_empty(target, ec)) {
    *why =
        "is not empty and was not made by dmlcert: name a new or empty directory (dmlcert empties the "
        "repro directories it made at the start of each run)";
    return std::nullopt;
  }
  ReproDir claimed;
  claimed.lock_fd_ = lock_marker(target);
  if (claimed.lock_fd_ >= 0) {
    // Ours: what earlier runs left goes, but not what runs still going on write here.
    for (const auto& entry : fs::directory_iterator(target, ec))
      if (entry.path().filename() != kReproDirMarker && !belongs_to_a_live_run(entry.path()))
        fs::remove_all(entry.path(), ec);
    const std::string text = marker_text(::getpid());
    if (::ftruncate(claimed.lock_fd_, 0) == 0) (void)!::pwrite(claimed.lock_fd_, text.data(), text.size(), 0);
    claimed.path_ = target.string();
    return claimed;
  }
  if (errno != EWOULDBLOCK) {
    *why = "cannot be locked: " + std::string(std::strerror(errno));
    return std::nullopt;
  }
  // Another run is writing here: a directory of this run's own, inside it.
  const fs::path own = target / ("run-" + std::to_string(::getpid()));
  fs::remove_all(own, ec);  // a run of the same pid, long gone
  fs::create_directories(own, ec);
  claimed.lock_fd_ = ec ? -1 : lock_marker(own);
  if (claimed.lock_fd_ < 0) {
    *why = "is in use by another dmlcert run, and " + own.string() +
           " cannot be made: " + (ec ? ec.message() : std::string(std::strerror(errno)));
    return std::nullopt;
  }
  const std::string text = marker_text(::getpid());
  (void)!::pwrite(claimed.lock_fd_, text.data(), text.size(), 0);
  claimed.path_ = own.string();
  claimed.note_ = "is in use by another dmlcert run: this run's repro files go to " + own.string();
  return claimed;
}

ReproDir::ReproDir(ReproDir&& other) noexcept
    : path_(std::move(other.path_)), note_(std::move(other.note_)), lock_fd_(other.lock_fd_) {
  other.lock_fd_ = -1;
}

ReproDir::~ReproDir() {
  if (lock_fd_ >= 0) ::close(lock_fd_);
}

}  // namespace dmlcert::engine

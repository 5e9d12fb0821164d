// A run's repro directory (docs/design.md, "Reports"): the directory a run writes its failures'
// case files to. A run holds a lock on it while it goes on, so that no other run ever removes its
// files: a run that finds the directory in use by a live run writes to a directory of its own
// inside it (run-PID) instead. Starting, a run empties the directory of what earlier runs left
// there, and only that; a directory that dmlcert did not make is refused unless it is empty.
#pragma once

#include <optional>
#include <string>

namespace dmlcert::engine {

inline constexpr const char* kReproDirMarker = ".dmlcert-repros";

class ReproDir {
 public:
  // Claims `dir` (made when missing) for a run that starts now. nullopt, and why, when it cannot be
  // made or written, or holds anything dmlcert did not make.
  static std::optional<ReproDir> claim(const std::string& dir, std::string* why);
  ReproDir(ReproDir&& other) noexcept;
  ReproDir& operator=(ReproDir&&) = delete;
  ReproDir(const ReproDir&) = delete;
  ~ReproDir();  // the lock goes

  // Where this run's files go, absolute: `dir` itself, or its run-PID directory.
  const std::string& path() const { return path_; }
  // Empty, or why the files go elsewhere than asked: "in use by another dmlcert run (...)".
  const std::string& note() const { return note_; }

 private:
  ReproDir() = default;
  std::string path_, note_;
  int lock_fd_ = -1;
};

}  // namespace dmlcert::engine

// What a long run shows while it runs: on a terminal, one status line redrawn in place, with
// failure blocks printed above it so that they never scroll it away; in a log, a status line now
// and then. Safe to call from several threads.
#pragma once

#include <chrono>
#include <mutex>
#include <string>

namespace dmlcert::cli {

class Progress {
 public:
  explicit Progress(std::string what);
  // done of total (0: unknown), failures, seconds elapsed, seconds left (negative: unknown).
  void update(uint64_t done, uint64_t total, uint64_t failures, double elapsed, double left);
  // A block of lines (ending in a newline), printed above the status line.
  void print(const std::string& block);
  // Leaves the last status line in place.
  void finish();

 private:
  void draw_locked();
  std::string what_, line_;
  bool tty_;
  bool drawn_ = false;  // the latest state has been shown
  std::mutex lock_;
  std::chrono::steady_clock::time_point last_draw_{};
};

}  // namespace dmlcert::cli

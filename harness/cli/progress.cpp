#include "progress.h"

#include <unistd.h>

#include <cstdio>
#include <iostream>

namespace dmlcert::cli {

Progress::Progress(std::string what) : what_(std::move(what)), tty_(::isatty(STDERR_FILENO) != 0) {}

void Progress::update(uint64_t done, uint64_t total, uint64_t failures, double elapsed, double left) {
  std::lock_guard<std::mutex> guard(lock_);
  const auto now = std::chrono::steady_clock::now();
  char buf[200];
  const double rate = elapsed > 0 ? static_cast<double>(done) / elapsed : 0;
  std::snprintf(buf, sizeof buf, "%s: %llu%s cases, %.0f/s, %llu failing, %s", what_.c_str(),
                static_cast<unsigned long long>(done), total ? ("/" + std::to_string(total)).c_str() : "",
                rate, static_cast<unsigned long long>(failures),
                left >= 0 ? (std::to_string(static_cast<long long>(left + 0.5)) + " s left").c_str()
                          : (std::to_string(static_cast<long long>(elapsed)) + " s").c_str());
  line_ = buf;
  // A terminal redraws four times a second; a log gets a line every 15 s, and the last one at the end.
  drawn_ = now - last_draw_ >= (tty_ ? std::chrono::milliseconds(250) : std::chrono::milliseconds(15000));
  if (!drawn_) return;
  last_draw_ = now;
  if (tty_)
    draw_locked();
  else
    std::cerr << line_ << "\n" << std::flush;
}

void Progress::draw_locked() {
  std::cerr << "\r\033[K" << line_ << std::flush;
}

void Progress::print(const std::string& block) {
  std::lock_guard<std::mutex> guard(lock_);
  if (tty_) std::cerr << "\r\033[K";
  std::cerr << block;
  if (tty_ && !line_.empty()) draw_locked();
  std::cerr << std::flush;
}

void Progress::finish() {
  std::lock_guard<std::mutex> guard(lock_);
  if (tty_ && !line_.empty()) std::cerr << "\n";
  if (!tty_ && !line_.empty() && !drawn_) std::cerr << line_ << "\n";
  std::cerr << std::flush;
  line_.clear();
}

}  // namespace dmlcert::cli

#include "dmlcert/interrupt.h"

#include <atomic>
#include <chrono>
#include <cstdint>

namespace dmlcert {
namespace {
using Clock = std::chrono::steady_clock;

std::atomic<int> g_signal{0};
static_assert(std::atomic<int>::is_always_lock_free, "read from a signal handler");
// Clock ticks of the bound; 0: none.
std::atomic<int64_t> g_bound{0};
}  // namespace

void request_stop(int signal_number) {
  g_signal.store(signal_number == 0 ? -1 : signal_number);
}
bool stop_requested() {
  return g_signal.load() != 0;
}
int stop_signal() {
  const int s = g_signal.load();
  return s < 0 ? 0 : s;
}

void set_run_time_bound(double seconds) {
  if (seconds <= 0) {
    g_bound.store(0);
    return;
  }
  const auto at =
      Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
  g_bound.store(at.time_since_epoch().count());
}
bool past_run_time_bound() {
  const int64_t bound = g_bound.load(std::memory_order_relaxed);
  return bound != 0 && Clock::now().time_since_epoch().count() >= bound;
}
bool run_must_end() {
  return stop_requested() || past_run_time_bound();
}

}  // namespace dmlcert

#include "dmlcert/interrupt.h"

#include <atomic>

namespace dmlcert {
namespace {
std::atomic<int> g_signal{0};
static_assert(std::atomic<int>::is_always_lock_free, "read from a signal handler");
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

}  // namespace dmlcert

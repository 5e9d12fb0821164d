// A run's stop request (SIGINT, SIGTERM): set from a signal handler, read by long loops and by
// calls waiting on a backend process, which then give up at once instead of finishing.
#pragma once

namespace dmlcert {

// Async-signal-safe.
void request_stop(int signal_number);
bool stop_requested();
// The signal that asked, or 0.
int stop_signal();

}  // namespace dmlcert

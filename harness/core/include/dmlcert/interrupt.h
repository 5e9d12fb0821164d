// A run's stop request (SIGINT, SIGTERM) and its time bound: set from a signal handler or when the
// run starts, read by long loops and by calls waiting on a backend process, which then give up at
// once instead of finishing.
#pragma once

namespace dmlcert {

// Async-signal-safe.
void request_stop(int signal_number);
bool stop_requested();
// The signal that asked, or 0.
int stop_signal();

// The run's time bound, `seconds` from now (<= 0: none). Past it, run_must_end() is true.
void set_run_time_bound(double seconds);
bool past_run_time_bound();
// Whether the run must end now: a stop request, or its time bound passed. What a call, a
// confirmation or a shrink in progress asks; only a stop request changes the exit status.
bool run_must_end();

}  // namespace dmlcert

// Process isolation: a Backend whose every call runs in a child process (dmlcert-plugin-host),
// with the buffers in shared memory behind guard pages (call_memory.h). A crash or a guard-page
// hit in the child comes back as a Fault; so do a call that misses its deadline, a child that
// goes over its memory or CPU-time limit, and a write into a call's bindings after the call
// returned. The child is then replaced by a fresh one on the next call.
//
// The child never outlives the harness: it asks for SIGKILL when its parent dies, and it leads a
// process group of its own, which is killed whole (so a process the plugin forked goes with it).
// What the plugin prints goes to pipes the harness drains while it waits; each call keeps the
// first output_cap bytes and counts the rest.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "dmlcert/backend.h"

namespace dmlcert::plugin {

struct IsolationOptions {
  // A call's deadline: floor_seconds plus its bindings' bytes at bytes_per_second, so that a
  // hang costs seconds and a large case still gets the time it needs.
  double floor_seconds = 5;
  double bytes_per_second = 64.0 * (1 << 20);
  // A fresh process's deadline to load the backend and answer (a large library takes seconds).
  double load_seconds = 15;
  // The child's resident memory; over it, the call ends as Fault::Limit. 0: no limit.
  uint64_t memory_limit_bytes = 0;
  // CPU time one call may use, over all its threads; over it, Fault::Limit. 0: no limit.
  double cpu_seconds_per_call = 0;
  size_t output_cap = 64 << 10;
  std::string host_path;  // empty: find_host()
};

// The default memory limit: an eighth of the machine's physical memory, between 512 MiB and
// 2 GiB. Certification binds at most 16 MiB per tensor, so a backend that holds more than this is
// running away; and a runaway allocation reaches the limit (at about 1 GiB/s of fresh pages on a
// small virtual machine) well before the call's 5 s deadline would call it a hang.
uint64_t default_memory_limit();

// Where dmlcert-plugin-host is: $DMLCERT_PLUGIN_HOST, else next to the running executable, else
// the build tree, else the install tree. Empty when none exists.
std::string find_host();

// `spec` is a built-in name or "plugin:/path/lib.so". Starts the child at once (so that a plugin
// that cannot load is reported here). Returns nullptr and says why on failure.
std::unique_ptr<Backend> make_isolated_backend(const std::string& spec, const IsolationOptions& options,
                                               std::string* error);

// Kills every isolation child this process started that is still alive. Async-signal-safe, for
// a signal handler on the way out.
void kill_all_children();

}  // namespace dmlcert::plugin

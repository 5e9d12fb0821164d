// What the isolation child does with one request frame (wire.h): decode it, map the call's
// bindings from shared memory behind guard pages, run the backend, encode the answer. Everything
// in a request is checked before it is used, so a malformed one is answered with an error status
// and never makes the child touch memory outside its mapping. dmlcert-plugin-host serves these in
// a loop; the wire fuzz target (fuzz/) feeds it arbitrary bytes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "dmlcert/backend.h"
#include "plugin/call_memory.h"

namespace dmlcert::plugin {

// What the host's fault handler needs to know around a call.
class CallWatch {
 public:
  virtual ~CallWatch() = default;
  // The call's bindings are mapped and the backend is about to run.
  virtual void started(uint64_t call, const GuardedView& view) = 0;
  // The backend returned; the arena [begin, begin + bytes), where the call's bindings were, is the
  // caller's to keep or unmap.
  virtual void finished(uint64_t call, uintptr_t begin, uintptr_t bytes, const Bindings& bindings) = 0;
  // What the backend did to its process around the call that the child undid (its fault handlers
  // replaced: signal_guard.h), for the answer; empty when nothing.
  virtual std::string interference() { return {}; }
  // The edges of the plugin's code the call reached that no earlier call of `op` in this process
  // had (edge_counters.h); empty when the plugin has no counters.
  virtual std::vector<uint32_t> edges(OpKind op) {
    (void)op;
    return {};
  }
};

// The answer to one request: a call's status, message, violations, the watch's interference and
// the edges it reached, or the empty answer to a ping (and to a request of an unknown kind).
// `mem_read_only_fd`: see GuardedView::map.
std::string answer_request(Backend& backend, const std::string& request, int mem_fd, uint64_t page,
                           CallWatch& watch, int mem_read_only_fd = -1);

}  // namespace dmlcert::plugin

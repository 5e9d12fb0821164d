// Process isolation: a Backend whose every call runs in a child process (dmlcert-plugin-host),
// with the buffers in shared memory behind guard pages. A crash or a guard-page hit in the child
// comes back as Fault::Crash, Fault::OutOfBounds or Fault::InputWritten; a call that does not
// return in time as Fault::Timeout. The child is then replaced by a fresh one on the next call.
#pragma once

#include <memory>
#include <string>

#include "dmlcert/backend.h"

namespace dmlcert::plugin {

struct IsolationOptions {
  double timeout_seconds = 10;  // per call
  std::string host_path;        // empty: find_host()
};

// Where dmlcert-plugin-host is: $DMLCERT_PLUGIN_HOST, else next to the running executable, else
// the build tree, else the install tree. Empty when none exists.
std::string find_host();

// `spec` is "reference", "optimized" or "plugin:/path/lib.so". Starts the child at once (so that
// a plugin that cannot load is reported here). Returns nullptr and says why on failure.
std::unique_ptr<Backend> make_isolated_backend(const std::string& spec, const IsolationOptions& options,
                                               std::string* error);

}  // namespace dmlcert::plugin

// The other direction of the ABI: exposes a C++ dmlcert::Backend as a dmlcert_backend_v1 table,
// so that a backend written against dmlcert's C++ interface can be shipped and certified as a
// plugin. The optimized and reference plugins (and the misbehaving test plugins) are built this
// way.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "dmlcert/backend.h"
#include "dmlcert/dmlcert_backend_abi.h"

namespace dmlcert::plugin {

// Called around each execute() the wrapped backend accepts; test plugins use it to misbehave.
using ExecuteHook = std::function<void(const OperatorDesc&, FeatureLevel, const Bindings&)>;
struct AdapterHooks {
  ExecuteHook before;  // before the wrapped backend runs
  ExecuteHook after;   // after it returned Ok
  // Maps the DMLCERT_STATUS_* value about to be returned to the one returned (an out-of-enum
  // status, say), with the message that goes with it.
  std::function<uint32_t(uint32_t status, const OperatorDesc&, std::string& message)> status;
  std::function<void()> destroy;  // when the harness destroys the backend
};

// Returns a table that lives until its destroy() is called. `abi_version` is what the harness
// asked for; returns nullptr when it is not DMLCERT_ABI_VERSION.
const dmlcert_backend_v1* export_backend(uint32_t abi_version, std::unique_ptr<Backend> backend,
                                         std::string name, AdapterHooks hooks = {});

}  // namespace dmlcert::plugin

// libtorch through the adapter docs/third-party.md certifies (backends/adapters/torch): the
// certified mapping, its own checks included, called through the C ABI, so what is timed is what
// was certified (compiled only when CMake finds Torch, see DMLCERT_WITH_TORCH).
#pragma once

#include <functional>
#include <string>

#include "workloads.h"

namespace dmlcert::bench {

// Whether the adapter maps the workload's cell.
bool torch_has(const std::string& workload);
// A callable that runs the workload once with libtorch (only for workloads torch_has).
std::function<void()> torch_runner(const Workload& w, Buffers& b);

}  // namespace dmlcert::bench

// libtorch for the workloads it has an operator for (compiled only when CMake finds Torch, see
// DMLCERT_WITH_TORCH).
#pragma once

#include <functional>
#include <string>

#include "workloads.h"

namespace dmlcert::bench {

// Whether libtorch has an operator for the workload.
bool torch_has(const std::string& workload);
// A callable that runs the workload once with libtorch (only for workloads torch_has).
std::function<void()> torch_runner(const Workload& w, Buffers& b);

}  // namespace dmlcert::bench

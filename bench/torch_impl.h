// libtorch for the workloads it has an operator for (compiled only when CMake finds Torch, see
// DMLCERT_WITH_TORCH): one function per workload family, each given the workload's descriptor for
// its sizes, so that another mapping of a workload to libtorch replaces one function.
#pragma once

#include <functional>

#include "workloads.h"

namespace dmlcert::bench {

// Whether libtorch has an operator for the workload's family.
bool torch_has(const Workload& w);
// A callable that runs the workload once with libtorch (only for workloads torch_has).
std::function<void()> torch_runner(const Workload& w, Buffers& b);

}  // namespace dmlcert::bench

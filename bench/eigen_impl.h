// The Eigen Tensor module (unsupported/Eigen/CXX11/Tensor) for the workloads it has an operator
// for: strided slices, reverses, the 4-d window (reverse then stride), sum / max / argmax
// reductions and the L2 norm (square, sum, sqrt). It has no GATHER_ELEMENTS, SCATTER_ND or
// log-sum-exp reduction, so those workloads have no Eigen entry. Eigen runs on a ThreadPoolDevice
// with as many threads as the optimized backend.
#pragma once

#include <functional>

#include "workloads.h"

namespace dmlcert::bench {

// A callable that runs the workload once with Eigen, or an empty function when Eigen has no such
// operator.
std::function<void()> eigen_runner(const Workload& w, Buffers& b);

}  // namespace dmlcert::bench

// The Eigen Tensor module (unsupported/Eigen/CXX11/Tensor) for the workloads it has an operator
// for (one function per workload family): strided slices, reverses, the 4-d window (reverse then stride), sum
// / max / argmax reductions and the L2 norm (square, sum, sqrt). It has no GATHER_ELEMENTS, SCATTER_ND or
// log-sum-exp reduction, so those workloads have no Eigen entry. Eigen runs on a ThreadPoolDevice
// with as many threads as the optimized backend.
#pragma once

#include <functional>

#include "workloads.h"

namespace dmlcert::bench {

// Whether Eigen has an operator for the workload's family.
bool eigen_has(const Workload& w);
// A callable that runs the workload once with Eigen (only for workloads eigen_has), with the sizes
// of the workload's descriptor.
std::function<void()> eigen_runner(const Workload& w, Buffers& b);

}  // namespace dmlcert::bench

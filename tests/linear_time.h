// A complexity guard for inputs that a quadratic step would turn into minutes (a million REDUCE
// axes took 246 s once). Not a speed test: speed is measured in bench/. The guard compares the
// work at n with the same work at n/10 in the same process, so a slow machine, a Debug build or a
// sanitizer moves both alike; the absolute bound is there to name the promise ("a million axes in
// under a second") and is widened where instrumentation slows all code. Both are in CPU time, not
// wall time: on a machine busy with other work (a parallel build beside the tests) the wall clock
// counts the time the process waited for a core, and the verdict would follow the load.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <ctime>
#include <functional>

#include "build_kind.h"

namespace dmlcert::test {

// The CPU time this process has used, in seconds (every thread's).
inline double process_cpu_seconds() {
  timespec t{};
  ::clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

// The best of three CPU timings of work().
inline double best_seconds(const std::function<void()>& work) {
  double best = 1e300;
  for (int i = 0; i < 3; ++i) {
    const double start = process_cpu_seconds();
    work();
    best = std::min(best, process_cpu_seconds() - start);
  }
  return best;
}

// prepare(n) builds an input of size n (untimed) and returns the work to time on it. Linear work
// takes about 10 times as long at n as at n/10, quadratic work 100 times: the bound is 30 times,
// plus 50 ms for timer noise. At n the work must also take under `seconds` in an
// optimized build (ten times that otherwise).
inline void expect_linear(const std::function<std::function<void()>(size_t)>& prepare, size_t n,
                          double seconds) {
  const double small = best_seconds(prepare(n / 10));
  const double large = best_seconds(prepare(n));
  EXPECT_LT(large, 30 * small + 0.05) << "n/10: " << small << " s, n: " << large << " s";
  EXPECT_LT(large, seconds * kSlowdown) << "n: " << large << " s";
}

}  // namespace dmlcert::test

// A complexity guard for inputs that a quadratic step would turn into minutes (a million REDUCE
// axes took 246 s once). Not a speed test: speed is measured in bench/. The guard compares the
// work at n with the same work at n/10 in the same process, so a slow or busy machine, a Debug
// build or a sanitizer moves both alike; the absolute bound is there to name the promise
// ("a million axes in under a second") and is widened where instrumentation slows all code.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <functional>

#include "build_kind.h"

namespace dmlcert::test {

// The best of three timings of work().
inline double best_seconds(const std::function<void()>& work) {
  double best = 1e300;
  for (int i = 0; i < 3; ++i) {
    const auto start = std::chrono::steady_clock::now();
    work();
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  return best;
}

// prepare(n) builds an input of size n (untimed) and returns the work to time on it. Linear work
// takes about 10 times as long at n as at n/10, quadratic work 100 times: the bound is 30 times,
// plus 50 ms for timer and scheduler noise. At n the work must also take under `seconds` in an
// optimized build (ten times that otherwise).
inline void expect_linear(const std::function<std::function<void()>(size_t)>& prepare, size_t n,
                          double seconds) {
  const double small = best_seconds(prepare(n / 10));
  const double large = best_seconds(prepare(n));
  EXPECT_LT(large, 30 * small + 0.05) << "n/10: " << small << " s, n: " << large << " s";
  EXPECT_LT(large, seconds * kSlowdown) << "n: " << large << " s";
}

}  // namespace dmlcert::test

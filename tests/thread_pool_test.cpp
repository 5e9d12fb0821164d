// The optimized backend's thread pool (backends/optimized/thread_pool.h): every job covers its
// range exactly once, whether the workers catch it while they poll after the last job or have gone
// to sleep and must be woken. A lost wakeup hangs a job; each case runs under a deadline so that it
// fails with its name instead.
#include "optimized/thread_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <future>
#include <string>
#include <thread>
#include <vector>

namespace dmlcert {
namespace {

using optimized::ThreadPool;
using namespace std::chrono_literals;

struct PoolCase {
  std::string name;
  unsigned threads;
  int jobs;
  std::chrono::microseconds pause;  // between jobs: past the pool's polling time, workers sleep
  uint64_t items;
};
void PrintTo(const PoolCase& c, std::ostream* os) {
  *os << c.name;
}

const PoolCase kPoolCases[] = {
    {"BackToBackJobs", 2, 2000, 0us, 64},  // the workers are still polling
    {"JobsFarEnoughApartThatWorkersSleep", 2, 20, 2000us, 64},
    {"EightThreadsOnFewCores", 8, 200, 0us, 1000},
    {"MoreThreadsThanItems", 4, 200, 0us, 3},
    {"OneThread", 1, 100, 0us, 64},
};

// Runs c.jobs jobs and returns the number of items that were not covered exactly once.
uint64_t miscovered_items(const PoolCase& c) {
  ThreadPool pool(c.threads);
  std::vector<std::atomic<int>> hits(c.items);
  uint64_t wrong = 0;
  for (int j = 0; j < c.jobs; ++j) {
    for (auto& h : hits) h.store(0);
    pool.parallel_for(c.items, [&](uint64_t b, uint64_t e) {
      for (uint64_t i = b; i < e; ++i) hits[i].fetch_add(1);
    });
    for (auto& h : hits) wrong += h.load() != 1;
    if (c.pause.count() > 0) std::this_thread::sleep_for(c.pause);
  }
  return wrong;
}

// Runs f() and returns its result, or fails the test by `name` and ends the process if f() has not
// returned within 60 s (a hung job's threads cannot be joined).
template <class F>
auto within_deadline(const std::string& name, F f) {
  auto done = std::async(std::launch::async, f);
  if (done.wait_for(60s) != std::future_status::ready) {
    ADD_FAILURE() << name << ": a job did not return within 60 s (a lost wakeup?)";
    std::quick_exit(1);
  }
  return done.get();
}

class ThreadPoolJobs : public ::testing::TestWithParam<PoolCase> {};
TEST_P(ThreadPoolJobs, CoverEveryItemOnceAndReturn) {
  const PoolCase c = GetParam();
  EXPECT_EQ(within_deadline(c.name, [c] { return miscovered_items(c); }), 0u);
}
INSTANTIATE_TEST_SUITE_P(Pool, ThreadPoolJobs, ::testing::ValuesIn(kPoolCases),
                         [](const auto& info) { return info.param.name; });

// A parallel_for from inside a job runs inline on the calling thread: the pool never waits on itself.
TEST(ThreadPool, NestedJobRunsInline) {
  const int inner_items = within_deadline("NestedJobRunsInline", [] {
    ThreadPool pool(2);
    std::atomic<int> items{0};
    pool.parallel_for(4, [&](uint64_t b, uint64_t e) {
      for (uint64_t i = b; i < e; ++i) {
        const std::thread::id outer = std::this_thread::get_id();
        pool.parallel_for(10, [&](uint64_t ib, uint64_t ie) {
          EXPECT_EQ(std::this_thread::get_id(), outer);
          items += static_cast<int>(ie - ib);
        });
      }
    });
    return items.load();
  });
  EXPECT_EQ(inner_items, 40);
}

}  // namespace
}  // namespace dmlcert

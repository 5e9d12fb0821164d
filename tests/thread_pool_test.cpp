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
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "optimized/canonicalize.h"

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
                         [](const auto& row) { return row.param.name; });

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

// Which thread ran each range of a job, and where each thread's first range began.
// `hold(first, is_caller, done)` runs at the start of every range: `first` says whether it is its
// thread's first, `done` counts the ranges finished so far.
struct RangeLog {
  std::mutex m;
  std::map<uint64_t, int> runs;               // range begin -> times run
  std::map<uint64_t, bool> by_caller;         // range begin -> run by the calling thread
  std::map<std::thread::id, uint64_t> first;  // thread -> begin of its first range
  uint64_t caller_first = ~uint64_t{0};
};
template <class Hold>
void log_ranges(RangeLog& log, ThreadPool& pool, uint64_t n, Hold hold) {
  const std::thread::id caller = std::this_thread::get_id();
  std::atomic<uint64_t> done{0};
  pool.parallel_for(n, [&](uint64_t b, uint64_t) {
    const bool is_caller = std::this_thread::get_id() == caller;
    bool first;
    {
      std::lock_guard<std::mutex> lock(log.m);
      first = log.first.emplace(std::this_thread::get_id(), b).second;
      if (first && is_caller) log.caller_first = b;
      ++log.runs[b];
      log.by_caller[b] = is_caller;
    }
    hold(first, is_caller, done);
    done.fetch_add(1);
  });
}

// Polls until pred() holds or 10 s have passed; returns whether it held.
template <class Pred>
bool wait_for(Pred pred) {
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  while (!pred()) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::yield();
  }
  return true;
}

// Each thread starts on a share of its own, the same on every call of the same size: with T
// threads and 16 items, thread t on items [16t/T, 16(t+1)/T), the calling thread on the first, so
// that a thread re-reads what its own caches may still hold (thread_pool.h). Every thread is held
// on its first range until all have started, so none can take another's share first.
class PoolShares : public ::testing::TestWithParam<unsigned> {};
TEST_P(PoolShares, EachThreadStartsOnItsOwnShareOnEveryCall) {
  const unsigned threads = GetParam();
  within_deadline("EachThreadStartsOnItsOwnShareOnEveryCall", [threads] {
    ThreadPool pool(threads);
    std::set<uint64_t> share_starts;
    for (unsigned t = 0; t < threads; ++t) share_starts.insert(16 * t / threads);
    for (int call = 0; call < 3; ++call) {
      RangeLog log;
      std::atomic<bool> all_started{true};  // written by every thread that times out
      log_ranges(log, pool, 16, [&](bool first, bool, const std::atomic<uint64_t>&) {
        if (first && !wait_for([&] {
              std::lock_guard<std::mutex> lock(log.m);
              return log.first.size() == threads;
            }))
          all_started.store(false);
      });
      if (!all_started.load()) {
        ADD_FAILURE() << "call " << call << ": not every thread started a range within 10 s";
        return 0;
      }
      std::set<uint64_t> firsts;
      for (const auto& [thread, begin] : log.first) firsts.insert(begin);
      EXPECT_EQ(firsts, share_starts) << "call " << call;
      EXPECT_EQ(log.caller_first, 0u) << "call " << call;
      EXPECT_EQ(log.runs.size(), 16u) << "call " << call;
      for (const auto& [begin, times] : log.runs) EXPECT_EQ(times, 1) << "range at " << begin;
    }
    return 0;
  });
}
INSTANTIATE_TEST_SUITE_P(Pool, PoolShares, ::testing::Values(2u, 4u),
                         [](const auto& row) { return std::to_string(row.param) + "Threads"; });

// A worker held back while it runs a range delays the call by that range and no more: the caller
// runs its own share and then the rest of the worker's. The worker's first range waits until every
// other range is done, which happens only if they are taken from it.
TEST(ThreadPool, ThreadHeldBackLosesTheRestOfItsShare) {
  RangeLog log;
  bool rest_done = true;
  within_deadline("ThreadHeldBackLosesTheRestOfItsShare", [&] {
    ThreadPool pool(2);
    log_ranges(log, pool, 16, [&](bool first, bool is_caller, const std::atomic<uint64_t>& done) {
      if (first && !is_caller) rest_done = wait_for([&] { return done.load() == 15; });
    });
    return 0;
  });
  EXPECT_TRUE(rest_done) << "the other 15 ranges were not done within 10 s of the worker's first";
  ASSERT_EQ(log.runs.size(), 16u);
  for (const auto& [begin, times] : log.runs) EXPECT_EQ(times, 1) << "range at " << begin;
  int by_caller = 0;
  for (const auto& [begin, caller] : log.by_caller) by_caller += caller;
  // The worker may not have woken before the caller took its whole share: then it ran none.
  EXPECT_GE(by_caller, 15) << "the caller took " << by_caller << " of 16 ranges while the worker was held";
}

// The loops over a nest (optimized/canonicalize.h) call range_done() on the thread that ran a range,
// after the range's last call: the streaming copy fences its stores there, so a call whose work no
// range_done() follows on its own thread could leave stores unfenced when the operator returns.
struct NestCase {
  std::string name;
  bool tiles;  // for_each_tile_parallel, else for_each_run_parallel
  std::vector<uint64_t> sizes;
  uint64_t element_bytes;
  uint64_t calls;  // how many times fn runs: tiles (or blocks of rows), or runs (or chunks)
};
void PrintTo(const NestCase& c, std::ostream* os) {
  *os << c.name;
}

const NestCase kNestCases[] = {
    {"ShortRowsAsWholeTiles", true, {64, 32, 22, 64}, 4, 64 * 32},
    {"TallTilesCutIntoBlocksOfRows", true, {2, 100000, 16}, 4, 2 * 25},  // 4096 rows per block
    {"ManyRuns", false, {1000, 100}, 4, 1000},
    {"FewLongRunsCutIntoChunks", false, {2, 1 << 20}, 4, 2 * 16},  // 256 KiB chunks
};

class ParallelLoops : public ::testing::TestWithParam<NestCase> {};
TEST_P(ParallelLoops, FollowEveryCallWithRangeDoneOnItsThread) {
  const NestCase& c = GetParam();
  optimized::LoopNest nest;
  int64_t stride = 1;
  nest.dims.resize(c.sizes.size());
  for (size_t i = c.sizes.size(); i-- > 0;) {
    nest.dims[i].size = c.sizes[i];
    nest.dims[i].stride[0] = stride;
    stride *= static_cast<int64_t>(c.sizes[i]);
  }
  std::mutex m;
  std::map<std::thread::id, uint64_t> unfinished;  // calls since the thread's last range_done()
  uint64_t calls = 0, dones = 0, empty_dones = 0;
  auto call = [&] {
    std::lock_guard<std::mutex> lock(m);
    ++unfinished[std::this_thread::get_id()];
    ++calls;
  };
  auto range_done = [&] {
    std::lock_guard<std::mutex> lock(m);
    uint64_t& mine = unfinished[std::this_thread::get_id()];
    empty_dones += mine == 0;
    mine = 0;
    ++dones;
  };
  using Offsets = std::array<int64_t, optimized::kMaxStreams>;
  if (c.tiles)
    optimized::for_each_tile_parallel(
        nest, c.element_bytes, [&](const Offsets&, uint64_t, uint64_t, const Offsets*) { call(); },
        range_done);
  else
    optimized::for_each_run_parallel(
        nest, c.element_bytes, [&](const Offsets&, uint64_t, uint64_t) { call(); }, range_done);
  EXPECT_EQ(calls, c.calls);
  EXPECT_GE(dones, 1u);
  EXPECT_EQ(empty_dones, 0u) << "range_done() ran for a range without calls";
  for (const auto& [thread, pending] : unfinished)
    EXPECT_EQ(pending, 0u) << "calls on a thread that no range_done() followed";
}
INSTANTIATE_TEST_SUITE_P(Nests, ParallelLoops, ::testing::ValuesIn(kNestCases),
                         [](const auto& row) { return row.param.name; });

}  // namespace
}  // namespace dmlcert

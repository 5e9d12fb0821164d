// A persistent pool of worker threads for the optimized backend. Operators split their outer
// loops over it; threads are created once (not per call), because a call on a small tensor
// must not pay for thread creation. Between jobs they poll briefly before they sleep, because a
// sequence of large calls must not pay for waking them either (thread_pool.cpp, kSpin).
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>
#include <type_traits>
#include <vector>

namespace dmlcert::optimized {

class ThreadPool {
 public:
  // `threads` counts the calling thread, so ThreadPool(1) runs everything inline.
  explicit ThreadPool(unsigned threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  unsigned size() const { return static_cast<unsigned>(workers_.size()) + 1; }

  // Calls fn(begin, end) on contiguous disjoint ranges that cover [0, n) (empty ranges are
  // skipped) and returns when all are done. [0, n) is cut into up to kRangesPerThread ranges per
  // thread, and each thread has a share of them: thread t (the calling thread is 0, worker i is
  // i + 1) the t-th contiguous run of ranges. A thread runs its own share from the front, then
  // takes ranges from the back of the others' shares, so a thread held back while it runs a range
  // delays the call by that range and not by its whole share. When no thread falls behind, a call
  // of the same size as the last one gives every thread the same items as last time, whose data
  // its own caches may still hold: on one virtual machine whose cores had separate last-level
  // caches, a dynamic hand-out read 64 MiB up to a third slower (thread_pool.cpp). That holds only
  // while the same thread calls and the system keeps each thread on its core (the pool does not
  // pin threads). Callers that need results independent of the thread count or of the timing
  // make each item's result independent of the range it lands in. A call made while the pool is
  // busy (another thread is using it, or from inside fn) runs inline, so the pool can never
  // deadlock on itself.
  template <class F>
  void parallel_for(uint64_t n, F&& fn) {
    using Fn = std::remove_reference_t<F>;
    auto thunk = [](void* ctx, uint64_t b, uint64_t e) { (*static_cast<Fn*>(ctx))(b, e); };
    run(n, thunk, const_cast<void*>(static_cast<const void*>(&fn)));
  }

 private:
  using Thunk = void (*)(void*, uint64_t, uint64_t);
  static constexpr uint64_t kRangesPerThread = 8;
  static constexpr unsigned kMaxThreads = 1u << 16;  // kMaxThreads * kRangesPerThread < 2^32
  // The ranges of one thread's share still to run, [front, back), packed into one word (32 bits
  // each) so that the owner (taking the front) and a thief (taking the back) can race on it with a
  // compare-exchange.
  struct alignas(64) Share {
    std::atomic<uint64_t> bounds{0};
  };
  void run(uint64_t n, Thunk thunk, void* ctx);
  void worker(unsigned index);
  void run_share_then_steal(unsigned index);  // thread `index`'s share, then the others'
  void run_one(uint64_t range);

  std::vector<std::thread> workers_;
  std::mutex busy_;  // held by the caller for the whole of one parallel_for
  std::mutex m_;
  std::condition_variable start_cv_, done_cv_;
  // Written under m_; read without it while a thread spins (thread_pool.cpp says why it spins).
  std::atomic<uint64_t> generation_{0};
  std::atomic<unsigned> pending_{0};
  std::atomic<bool> stop_{false};
  // The current job.
  uint64_t n_ = 0, ranges_ = 0;
  std::vector<Share> shares_;  // one per thread
  Thunk thunk_ = nullptr;
  void* ctx_ = nullptr;
};

// While one of these lives on a thread, that thread's parallel loops run inline. Used for
// outputs whose strides alias (T.OUTPUT_OVERLAP): two threads must never race on one element.
class SerialScope {
 public:
  SerialScope();
  ~SerialScope();
  SerialScope(const SerialScope&) = delete;
  SerialScope& operator=(const SerialScope&) = delete;
  static bool active();

 private:
  bool previous_;
};

// The process-wide pool. Its size is DMLCERT_THREADS when set to a positive number, otherwise
// the number of hardware threads; set_thread_count() (optimized.h) replaces it.
ThreadPool& pool();

// Runs fn(begin, end) over [0, n) on the pool, or inline when the work is small (`bytes` is the
// memory the loop touches; below a threshold threads cost more than they save) or a SerialScope
// is active.
template <class F>
void parallel_for(uint64_t n, uint64_t bytes, F&& fn) {
  constexpr uint64_t kMinParallelBytes = uint64_t{1} << 16;
  if (n <= 1 || bytes < kMinParallelBytes || SerialScope::active()) {
    if (n > 0) fn(uint64_t{0}, n);
    return;
  }
  pool().parallel_for(n, fn);
}

}  // namespace dmlcert::optimized

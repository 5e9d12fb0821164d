#include "optimized/thread_pool.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <memory>

#include "optimized/optimized.h"

namespace dmlcert::optimized {

namespace {

// A thread that has just finished a job (or handed one out) polls for what comes next for this
// long before it sleeps on a condition variable. A sleeping thread is woken by the kernel, which
// takes tens of microseconds under a hypervisor; a caller that runs one large operator after
// another (a benchmark, a model's layers) would pay that twice per call, at the start with one
// thread working and at the end waiting for the other, out of about a millisecond per call for a
// 64 MiB reduction from cache. Short enough that an idle pool costs nothing measurable.
constexpr auto kSpin = std::chrono::microseconds(100);

// Polls done() until it holds or kSpin has passed; returns done().
template <class Done>
bool spin_until(Done done) {
  const auto deadline = std::chrono::steady_clock::now() + kSpin;
  for (unsigned i = 0;; ++i) {
    if (done()) return true;
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
    // The clock costs more than a poll: read it once per 64 polls.
    if (i % 64 == 63 && std::chrono::steady_clock::now() >= deadline) return done();
  }
}

}  // namespace

// At most kMaxThreads: a share's bounds are packed into 32 bits each (thread_pool.h, Share).
ThreadPool::ThreadPool(unsigned threads) : shares_(std::clamp(threads, 1u, kMaxThreads)) {
  for (unsigned i = 1; i < shares_.size(); ++i) workers_.emplace_back([this, i] { worker(i); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard lock(m_);
    stop_.store(true);
  }
  start_cv_.notify_all();
  for (auto& t : workers_) t.join();
}

namespace {

constexpr uint64_t pack(uint64_t front, uint64_t back) {
  return front << 32 | back;
}
constexpr uint64_t front_of(uint64_t bounds) {
  return bounds >> 32;
}
constexpr uint64_t back_of(uint64_t bounds) {
  return bounds & 0xffffffffu;
}

// Take one range of a share: the owner from the front, a thief from the back. False when the share
// is empty. Both ends live in one word, so when one range is left exactly one of them gets it.
template <bool Front>
bool take(std::atomic<uint64_t>& bounds, uint64_t& range) {
  uint64_t seen = bounds.load(std::memory_order_relaxed);
  while (true) {
    const uint64_t front = front_of(seen), back = back_of(seen);
    if (front >= back) return false;
    const uint64_t next = Front ? pack(front + 1, back) : pack(front, back - 1);
    if (bounds.compare_exchange_weak(seen, next, std::memory_order_relaxed)) {
      range = Front ? front : back - 1;
      return true;
    }
  }
}
constexpr auto take_front = take<true>;
constexpr auto take_back = take<false>;

// The pool whose job this thread is running as its caller, if any: a parallel_for from inside
// that job must not try_lock busy_, which this thread already holds (undefined for std::mutex).
thread_local const ThreadPool* calling_into = nullptr;

}  // namespace

void ThreadPool::run_one(uint64_t range) {
  const uint64_t begin = static_cast<uint64_t>((static_cast<unsigned __int128>(n_) * range) / ranges_);
  const uint64_t end = static_cast<uint64_t>((static_cast<unsigned __int128>(n_) * (range + 1)) / ranges_);
  if (begin < end) thunk_(ctx_, begin, end);
}

// Why each thread starts on a share of its own: a virtual machine may place its cores on chips with
// separate last-level caches even when it reports one shared cache. On one 2-core machine that
// reported a single 32 MiB L3, two threads each summing their half of a buffer over and over read
// 64 MiB at 54-63 GB/s when each kept its half, and 39-44 GB/s when the halves swapped every pass
// (24 MiB: 121-150 against 69-73). Later the same day, on the same machine, both ways read alike,
// so where the host puts the cores changes. A dynamic hand-out gives each thread different data on
// every call, so it gets the slower figure where the caches are separate; an OpenMP static
// schedule (libtorch's) gets the faster.
void ThreadPool::run_share_then_steal(unsigned index) {
  uint64_t range = 0;
  while (take_front(shares_[index].bounds, range)) run_one(range);
  const size_t parts = shares_.size();
  for (size_t k = 1; k < parts; ++k) {
    std::atomic<uint64_t>& other = shares_[(index + k) % parts].bounds;
    while (take_back(other, range)) run_one(range);
  }
}

void ThreadPool::run(uint64_t n, Thunk thunk, void* ctx) {
  if (n == 0) return;
  if (calling_into == this || workers_.empty() || n == 1) {
    thunk(ctx, 0, n);
    return;
  }
  std::unique_lock busy(busy_, std::try_to_lock);
  if (!busy.owns_lock()) {
    thunk(ctx, 0, n);
    return;
  }
  const unsigned parts = size();
  {
    std::lock_guard lock(m_);
    n_ = n;
    ranges_ = std::min<uint64_t>(n, uint64_t{parts} * kRangesPerThread);
    for (unsigned t = 0; t < parts; ++t)
      shares_[t].bounds.store(pack(ranges_ * t / parts, ranges_ * (t + 1) / parts),
                              std::memory_order_relaxed);
    thunk_ = thunk;
    ctx_ = ctx;
    pending_.store(parts - 1);
    // This increment publishes the job's fields above (sequentially consistent, so a polling
    // worker that sees the new generation sees them too).
    generation_.fetch_add(1);
  }
  start_cv_.notify_all();  // no system call when every worker is still spinning
  calling_into = this;
  run_share_then_steal(0);
  calling_into = nullptr;
  if (spin_until([&] { return pending_.load() == 0; })) return;
  std::unique_lock lock(m_);
  done_cv_.wait(lock, [&] { return pending_.load() == 0; });
}

void ThreadPool::worker(unsigned index) {
  uint64_t seen = 0;
  while (true) {
    auto ready = [&] { return stop_.load() || generation_.load() != seen; };
    if (!spin_until(ready)) {
      std::unique_lock lock(m_);
      start_cv_.wait(lock, ready);
    }
    if (stop_.load()) return;
    seen = generation_.load();
    run_share_then_steal(index);
    // The last worker out wakes the caller under m_, so that a caller about to sleep (which checks
    // pending_ under m_) cannot miss it.
    if (pending_.fetch_sub(1) == 1) {
      std::lock_guard lock(m_);
      done_cv_.notify_one();
    }
  }
}

namespace {

thread_local bool serial_scope_active = false;

}  // namespace

SerialScope::SerialScope() : previous_(serial_scope_active) {
  serial_scope_active = true;
}
SerialScope::~SerialScope() {
  serial_scope_active = previous_;
}
bool SerialScope::active() {
  return serial_scope_active;
}

namespace {

unsigned default_thread_count() {
  if (const char* env = std::getenv("DMLCERT_THREADS")) {
    const long v = std::strtol(env, nullptr, 10);
    if (v > 0) return static_cast<unsigned>(v);
  }
  const unsigned hw = std::thread::hardware_concurrency();
  return hw == 0 ? 1 : hw;
}

std::mutex pool_mutex;
std::unique_ptr<ThreadPool>& pool_slot() {
  static std::unique_ptr<ThreadPool> slot;
  return slot;
}

}  // namespace

ThreadPool& pool() {
  std::lock_guard lock(pool_mutex);
  auto& slot = pool_slot();
  if (!slot) slot = std::make_unique<ThreadPool>(default_thread_count());
  return *slot;
}

void set_thread_count(unsigned threads) {
  std::lock_guard lock(pool_mutex);
  pool_slot() = std::make_unique<ThreadPool>(threads == 0 ? default_thread_count() : threads);
}

unsigned thread_count() {
  return pool().size();
}

}  // namespace dmlcert::optimized

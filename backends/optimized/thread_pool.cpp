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

ThreadPool::ThreadPool(unsigned threads) {
  if (threads == 0) threads = 1;
  for (unsigned i = 1; i < threads; ++i) workers_.emplace_back([this] { worker(); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard lock(m_);
    stop_.store(true);
  }
  start_cv_.notify_all();
  for (auto& t : workers_) t.join();
}

void ThreadPool::run_ranges() {
  while (true) {
    const uint64_t c = next_.fetch_add(1, std::memory_order_relaxed);
    if (c >= ranges_) return;
    const uint64_t b = static_cast<uint64_t>((static_cast<unsigned __int128>(n_) * c) / ranges_);
    const uint64_t e = static_cast<uint64_t>((static_cast<unsigned __int128>(n_) * (c + 1)) / ranges_);
    if (b < e) thunk_(ctx_, b, e);
  }
}

void ThreadPool::run(uint64_t n, Thunk thunk, void* ctx) {
  if (n == 0) return;
  std::unique_lock busy(busy_, std::try_to_lock);
  if (!busy.owns_lock() || workers_.empty() || n == 1) {
    thunk(ctx, 0, n);
    return;
  }
  const unsigned parts = size();
  {
    std::lock_guard lock(m_);
    n_ = n;
    ranges_ = std::min<uint64_t>(n, uint64_t{parts} * kRangesPerThread);
    next_.store(0, std::memory_order_relaxed);
    thunk_ = thunk;
    ctx_ = ctx;
    pending_.store(parts - 1);
    // This increment publishes the job's fields above (sequentially consistent, so a polling
    // worker that sees the new generation sees them too).
    generation_.fetch_add(1);
  }
  start_cv_.notify_all();  // no system call when every worker is still spinning
  run_ranges();
  if (spin_until([&] { return pending_.load() == 0; })) return;
  std::unique_lock lock(m_);
  done_cv_.wait(lock, [&] { return pending_.load() == 0; });
}

void ThreadPool::worker() {
  uint64_t seen = 0;
  while (true) {
    auto ready = [&] { return stop_.load() || generation_.load() != seen; };
    if (!spin_until(ready)) {
      std::unique_lock lock(m_);
      start_cv_.wait(lock, ready);
    }
    if (stop_.load()) return;
    seen = generation_.load();
    run_ranges();
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

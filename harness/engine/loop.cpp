// The one loop (docs/design.md, "The engine"): every worker takes its share's tasks and runs their
// cases through an engine of its own, until the share is done, the run is asked to stop or enough
// failures are found.
#include <signal.h>
#include <string.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>

#include "dmlcert/interrupt.h"
#include "engine.h"

namespace dmlcert::engine {
namespace {

using Clock = std::chrono::steady_clock;

// What the workers share: the progress line's sums, and whether the run has found enough failures.
class RunState {
 public:
  RunState(const EngineOptions& options, size_t workers) : options_(options), shares_(workers, nullptr) {}

  void attach(size_t worker, const Share& share) {
    std::lock_guard<std::mutex> hold(lock_);
    shares_[worker] = &share;
  }
  void failed(size_t n) { failures_ += n; }
  bool enough_failures() const {
    return options_.stop_after_failures > 0 && failures_.load() >= options_.stop_after_failures;
  }
  // At most every 50 ms (fuzzing runs thousands of cases a second), and always when `force`.
  void progress(bool force) {
    if (!options_.on_progress) return;
    const auto now = Clock::now();
    std::lock_guard<std::mutex> hold(lock_);
    if (!force && now - last_ < std::chrono::milliseconds(50)) return;
    last_ = now;
    uint64_t done = 0, planned = 0;
    for (const Share* s : shares_)
      if (s) done += s->done(), planned += s->planned();
    options_.on_progress(done, planned, failures_.load(),
                         std::chrono::duration<double>(now - start_).count());
  }

 private:
  const EngineOptions& options_;
  std::vector<const Share*> shares_;
  std::atomic<size_t> failures_{0};
  std::mutex lock_;
  const Clock::time_point start_ = Clock::now();
  Clock::time_point last_{};
};

bool ends_task(Outcome o) {
  return o == Outcome::Timeout || o == Outcome::Limit;
}

// One worker: its share's tasks on its own backend.
void work(Plan& plan, unsigned worker, unsigned workers, Backend& under_test, const BackendFactory& open,
          Oracle& oracle, const EngineOptions& options, RunState& state) {
  Share& share = plan.share(worker, workers, under_test);
  state.attach(worker, share);
  std::vector<Listener*> listeners{&share};
  listeners.insert(listeners.end(), options.listeners.begin(), options.listeners.end());
  Engine engine(under_test, oracle, open, options, listeners,
                workers == 1 ? "in-flight" : "in-flight-" + std::to_string(worker));
  size_t counted = 0;
  auto count_failures = [&] {
    state.failed(engine.failures() - counted);
    counted = engine.failures();
  };
  bool interrupted = false;
  while (!state.enough_failures()) {
    if (stop_requested()) {
      interrupted = true;
      break;
    }
    std::optional<Task> task = share.next();
    if (!task) break;
    for (const WorkItem& item : task->cases) {
      if (state.enough_failures()) break;
      const CaseOutcome out = engine.run(item);
      count_failures();
      if (out.interrupted || (out.generated && ends_task(out.report.outcome))) break;
    }
    state.progress(false);
  }
  if (interrupted) share.stopped(interruption());
  if (options.settle_at_end) {
    engine.settle();
    count_failures();
  }
  share.finish();
}

}  // namespace

std::string interruption() {
  const char* sig = sigabbrev_np(stop_signal());
  return "interrupted by SIG" + std::string(sig ? sig : "?") + " before every case had run";
}

bool run(Plan& plan, const BackendFactory& open, Oracle& oracle, const EngineOptions& options,
         std::string* error) {
  const unsigned workers = std::max(1u, options.jobs);
  std::vector<std::unique_ptr<Backend>> backends;
  for (unsigned w = 0; w < workers; ++w) {
    backends.push_back(open());
    if (!backends.back()) {
      *error = "the backend " + options.backend_spec + " could not be opened";
      return false;
    }
  }
  RunState state(options, workers);
  if (workers == 1) {
    work(plan, 0, 1, *backends.front(), open, oracle, options, state);
  } else {
    std::vector<std::thread> threads;
    for (unsigned w = 0; w < workers; ++w)
      threads.emplace_back([&, w] { work(plan, w, workers, *backends[w], open, oracle, options, state); });
    for (std::thread& t : threads) t.join();
  }
  state.progress(true);
  return true;
}

}  // namespace dmlcert::engine

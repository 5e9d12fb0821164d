#include "engine.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <utility>

#include "dmlcert/file_writer.h"
#include "dmlcert/interrupt.h"
#include "dmlcert/text.h"
#include "shrink.h"

namespace dmlcert::engine {
namespace {

namespace fs = std::filesystem;

// The cases of a backend process kept for bisecting a state-dependent failure: the process's
// first calls (a scratch buffer sized by the first call), its latest ones (a plan cache) and the
// latest of each operator and REDUCE function (an accumulator a kernel leaves for its next call).
constexpr size_t kFirstCases = 8, kRecentCases = 56, kRecentOfKernel = 16;
// Trials a bisection may spend, each a fresh process running a few cases.
constexpr int kBisectTrials = 48;
// The latest cases (of the failing case's operator, then of any) tried alone before the
// process's first ones.
constexpr size_t kLatestSingles = 8;
// Calls remembered for naming the case of a late fault. A late write shows in the host's log,
// read after every call; a crash after a call, when the next call finds the process gone.
constexpr size_t kRememberedCalls = 64;
// How often a call runs again because a process died with its threads (the threads of a process
// run in no set order, so another call's late write can end the process before this one's shows).
constexpr int kSuspectReruns = 1;
// How long the last call of a run is watched for a late fault: the test plugins' and the usual
// real case, a thread that outlives its call by milliseconds.
constexpr double kLateSettleSeconds = 0.25;
// How long a confirmation watches its call. The wait ends as soon as the fault shows, so only a
// fault that does not come back costs all of it; on a loaded machine a thread that sleeps 3 ms
// has been seen to write after more than a quarter of a second.
constexpr double kConfirmSettleSeconds = 2.0;
// A load cannot make a correct backend's output wrong, but a backend whose result depends on
// timing (a race between its threads) can be wrong once and right ever after: such a failure,
// when neither the case alone nor any sequence of the cases before it brings it back, is flaky.
// (A timeout is retried with a longer deadline instead: Engine::timeout_was_flaky.) A write out of
// bounds or after the return, a crash or a limit are never the machine's doing, and count whether
// or not they come back.
bool may_be_flaky(Outcome o) {
  return o == Outcome::Failed;
}

// The kernels whose state a case may share with earlier ones, as numbers (every case is
// remembered, so no text): its operator, then its operator and REDUCE function (0 without one).
using StateKeys = std::array<uint32_t, 2>;
StateKeys state_keys(const Case& c) {
  const uint32_t op = (static_cast<uint32_t>(op_kind(c.op)) + 1) << 8;
  const auto f = reduce_function(c.op);
  return {op, f ? op + 1 + static_cast<uint32_t>(*f) : 0};
}

bool is_late_fault(Outcome o) {
  return o == Outcome::LateWrite;
}

// A fault ends the backend's process: the next call starts a fresh one.
bool restarts_process(Outcome o) {
  return o == Outcome::Crash || o == Outcome::Timeout || o == Outcome::Oob || o == Outcome::LateWrite ||
         o == Outcome::Limit;
}

// Quotes a word for a POSIX shell when it needs it.
std::string shell_word(const std::string& s) {
  const bool plain = !s.empty() && s.find_first_not_of(
                                       "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                       "0123456789_-./:=+,@%") == std::string::npos;
  if (plain) return s;
  std::string q = "'";
  for (char ch : s) q += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  return q + "'";
}

}  // namespace

std::string reproduce_command(const std::string& program, const std::string& file, const std::string& backend,
                              const std::string& backend_flags) {
  // A huge case's file (an output of tens of MiB) is past the reader's default limit: the command
  // raises it to the file's size, so that it runs as printed.
  std::error_code ec;
  const uintmax_t bytes = std::filesystem::file_size(file, ec);
  const bool large = !ec && bytes > ReadLimits{}.max_file_bytes;
  return shell_word(program.empty() ? "dmlcert" : program) + " run " + shell_word(file) + " --backend " +
         shell_word(backend) + backend_flags + (large ? " --max-file-bytes " + std::to_string(bytes) : "");
}

std::string file_safe(const std::string& name) {
  std::string out;
  for (char ch : name)
    out += (std::isalnum(static_cast<unsigned char>(ch)) || ch == '.' || ch == '-') ? ch : '_';
  return out.substr(0, 200);
}

Engine::Engine(Backend& under_test, Oracle& oracle, BackendFactory fresh, EngineOptions options,
               std::vector<Listener*> listeners, std::string in_flight_name)
    : under_test_(under_test),
      oracle_(oracle),
      fresh_(std::move(fresh)),
      options_(std::move(options)),
      listeners_(std::move(listeners)),
      runner_(under_test, oracle, options_.run) {
  if (!options_.isolated && options_.in_flight && !options_.repro_dir.empty())
    in_flight_ = std::make_unique<InFlightFile>(path_for(in_flight_name, ".json"));
}

Engine::~Engine() = default;

std::string Engine::path_for(const std::string& stem, const std::string& suffix) const {
  return (fs::path(options_.repro_dir) / (file_safe(stem) + suffix)).string();
}

bool Engine::save_file(const std::string& path, const std::string& text) {
  ReproSpace& space = *options_.repro_space;
  std::string warning;
  {
    std::lock_guard<std::mutex> hold(space.lock);
    if (!space.error.empty()) return false;  // out of space: nothing more is written
    std::error_code ec;
    fs::create_directories(fs::path(path).parent_path(), ec);
    const FileWritten written = write_file_atomically(path, text);
    if (written) return true;
    if (written.error == FileWritten::Error::NoSpace) {
      space.error = "the repro directory ran out of space (" + written.message +
                    "): no case file is written after that, and the failures from then on have none";
      warning = "dmlcert: " + space.error + "\n";
    } else {
      warning = "dmlcert: " + printable(written.message) + "\n";
    }
  }
  tell([&](Listener& l) { l.warning(warning); });
  return false;
}

std::string Engine::repro_error() const {
  std::lock_guard<std::mutex> hold(options_.repro_space->lock);
  return options_.repro_space->error;
}

bool Engine::save(const std::string& path, const Case& c) {
  return save_file(path, to_json(c, true));
}

bool Engine::save_sequence(const std::string& path, const std::vector<Case>& cases) {
  std::string text;
  for (const Case& c : cases) text += to_json(c, false) + "\n";
  return save_file(path, text);
}

CaseOutcome Engine::run(const WorkItem& item) {
  if (item.given) return run_one(*item.given, item, std::nullopt);
  std::optional<rc::Shrinkable<Case>> shrinkable;
  Case c;
  try {
    shrinkable = props::sample(*item.gen, item.seed, item.size);
    c = shrinkable->value();
  } catch (const std::exception& e) {
    CaseOutcome out;
    out.generation_error = e.what();  // a suchThat that gave up: the item is skipped
    out.counts_at = item.id.check();
    tell([&](Listener& l) { l.case_ran(item, out); });
    return out;
  }
  c.name = item.id.to_string();
  c.origin = item.origin;
  return run_one(std::move(c), item, shrinkable);
}

CaseReport Engine::judge(const Case& c, const Classification& cls) {
  try {
    return runner_.run(c, cls);
  } catch (const std::exception& e) {
    CaseReport r;
    r.outcome = Outcome::Failed;
    r.case_class = cls.case_class;
    r.detail = std::string("harness error: ") + e.what();
    return r;
  }
}

CaseOutcome Engine::run_one(Case c, const WorkItem& item,
                            const std::optional<rc::Shrinkable<Case>>& shrinkable) {
  CaseOutcome out;
  out.generated = true;
  out.cls = classify(c.op, c.level, c.data);
  out.counts_at = item.counts_at ? item.counts_at(out.cls) : item.id.check();
  // In-process, a crash takes dmlcert down with the backend: the case must already be on disk.
  if (in_flight_) {
    std::string error;
    if (!in_flight_->write(c, &error) && !in_flight_warned_) {
      tell([&](Listener& l) {
        l.warning("dmlcert: " + printable(error) + " (a crash would leave no case behind)\n");
      });
      in_flight_warned_ = true;
    }
  }
  out.report = judge(c, out.cls);
  out.c = std::move(c);
  if (run_must_end()) {
    out.interrupted = true;
    tell([&](Listener& l) { l.case_ran(item, out); });
    return out;
  }
  note_call(out.report, Call{out.report.exec.call, item.id, out.counts_at, out.c, out.cls, process_, 0,
                             out.report.outcome == Outcome::Passed});
  const Outcome ran = out.report.outcome;  // a timeout found flaky still ended its process
  if (fails_run(ran)) investigate_failure(out, item, shrinkable);
  remember(out.c, out.cls, ran, shrinkable);
  tell([&](Listener& l) { l.case_ran(item, out); });
  rerun_suspects();
  report_late_faults_found();
  return out;
}

void Engine::note_call(const CaseReport& r, const Call& call) {
  for (const LateFault& late : r.exec.late) blame_late_fault(late);
  if (r.exec.call) {
    calls_.push_back(call);
    if (calls_.size() > kRememberedCalls) calls_.pop_front();
  }
  if (restarts_process(r.outcome)) ++process_;
}

void Engine::blame_late_fault(const LateFault& late) {
  if (auto f = failure_of(late)) late_faults_found_.push_back(std::move(*f));
  if (!late.ended_process) return;
  // The process died of that fault, and with it any thread another of its calls had left running,
  // before or after the blamed one: those calls' own late writes show only when they run again.
  // The call that revealed the fault ran again in a fresh process already (Backend::execute).
  for (const Call& other : calls_)
    if (other.process == process_ && other.id != late.call && other.passed && other.reruns < kSuspectReruns) {
      Call again = other;
      again.id = 0;
      again.reruns = other.reruns + 1;
      again.passed = false;
      suspects_.push_back(std::move(again));
    }
  ++process_;
  forget_history();
}

void Engine::rerun_suspects() {
  while (!suspects_.empty() && !run_must_end()) {
    Call suspect = std::move(suspects_.front());
    suspects_.pop_front();
    const CaseReport r = judge(suspect.c, suspect.cls);
    suspect.id = r.exec.call;
    suspect.passed = r.outcome == Outcome::Passed;
    note_call(r, suspect);
    remember(suspect.c, suspect.cls, r.outcome, std::nullopt);
    // Its own thread, caught right after the call (the round trip after it).
    if (r.exec.call && r.exec.fault == Fault::LateWrite)
      if (auto f = failure_of({r.exec.call, r.exec.fault, r.exec.message + ", when run again"}))
        late_faults_found_.push_back(std::move(*f));
  }
}

void Engine::report_late_faults_found() {
  for (const cert::Failure& f : std::exchange(late_faults_found_, {}))
    tell([&](Listener& l) { l.late_fault_found(f); });
}

void Engine::settle() {
  rerun_suspects();
  while (!run_must_end()) {
    const std::vector<LateFault> late = under_test_.settle(kLateSettleSeconds);
    if (late.empty()) break;
    for (const LateFault& l : late) blame_late_fault(l);
    rerun_suspects();
  }
  report_late_faults_found();
}

std::optional<cert::Failure> Engine::failure_of(const LateFault& late) {
  const auto call =
      std::find_if(calls_.begin(), calls_.end(), [&](const Call& c) { return c.id == late.call; });
  if (call == calls_.end()) return std::nullopt;
  cert::Failure f;
  f.id = call->case_id;
  f.counts_at = call->counts_at;
  f.case_name = call->c.name;
  f.op = cert::op_subject(call->c);
  f.outcome = late.fault == Fault::LateWrite ? Outcome::LateWrite : Outcome::Crash;
  const std::string seen = "(seen when a later case ran)";
  f.detail = fault_detail(late.fault, f.outcome, late.message.empty() ? seen : late.message + " " + seen);
  if (!options_.repro_dir.empty()) {
    f.repro = path_for(f.id.to_string(), ".json");
    if (!save(f.repro, call->c)) f.repro.clear();
  }
  const bool known = options_.known && options_.known(f);
  f.expected = known;
  const bool investigated = take_investigation_turn(call->counts_at, f.outcome);
  f.cause_known = investigated && !known && !cause_is_new(f);
  if (options_.confirm && fresh_ && investigated && !known && !f.cause_known && !run_must_end()) {
    // Alone, no later call reveals the fault: the replay waits for it (RunOptions::settle_seconds).
    // Its thread shows as itself, or as a late write (a thread that crashes the process may write
    // first), or, for a late write, as a wrong output: alone, the write can land before the harness
    // reads the output (on a loaded machine the child puts the call's bindings out of reach late).
    const std::optional<Outcome> alone = replay({{&call->c, &call->cls}}, /*settle=*/true);
    const bool again = alone == f.outcome || alone == Outcome::LateWrite ||
                       (f.outcome == Outcome::LateWrite && alone == Outcome::Failed);
    f.confirmation = again ? cert::Confirmation::Reproduced : cert::Confirmation::NotReproduced;
  }
  tell([&](Listener& l) { l.failure_confirmed(f); });
  // Only a file that was written: a reproduce line never names one that does not exist.
  if (!f.repro.empty())
    f.reproduce = reproduce_command(options_.program, f.repro, options_.backend_spec, options_.backend_flags);
  publish(f, investigated);
  return f;
}

bool Engine::cause_is_new(const cert::Failure& f) {
  if (!options_.cause || options_.max_investigated_per_cause <= 0) return true;
  std::lock_guard<std::mutex> hold(options_.causes->lock);
  int& n = options_.causes->investigated[options_.cause(f)];
  if (n >= options_.max_investigated_per_cause) return false;
  ++n;
  return true;
}

bool Engine::take_investigation_turn(const cert::CheckId& check, Outcome outcome) {
  if (options_.max_investigated_per_check <= 0) return true;
  int& n = investigated_[check.to_string() + " " + std::string(name(outcome))];
  if (n >= options_.max_investigated_per_check) return false;
  ++n;
  return true;
}

Case Engine::Remembered::get() const {
  if (given) return *given;
  Case c = shrinkable->value();
  c.name = name;
  c.origin = origin;
  return c;
}

void Engine::forget_history() {
  first_cases_.clear();
  recent_cases_.clear();
  recent_of_kernel_.clear();
  remembered_ = 0;
}

void Engine::remember(const Case& c, const Classification& cls, Outcome outcome,
                      const std::optional<rc::Shrinkable<Case>>& shrinkable) {
  if (!options_.confirm || !fresh_) return;  // nothing is ever bisected
  if (restarts_process(outcome)) {
    forget_history();
    return;
  }
  Remembered r;
  r.order = remembered_++;
  r.cls = cls;
  if (shrinkable) {
    r.shrinkable = shrinkable;
    r.name = c.name;
    r.origin = c.origin;
  } else {
    r.given = c;
  }
  if (first_cases_.size() < kFirstCases) {
    first_cases_.push_back(std::move(r));
    return;
  }
  for (const uint32_t key : state_keys(c)) {
    if (key == 0) continue;
    std::deque<Remembered>& of_kernel = recent_of_kernel_[key];
    of_kernel.push_back(r);
    if (of_kernel.size() > kRecentOfKernel) of_kernel.pop_front();
  }
  recent_cases_.push_back(std::move(r));
  if (recent_cases_.size() > kRecentCases) recent_cases_.pop_front();
}

std::optional<Outcome> Engine::replay(const std::vector<Classified>& cases, bool settle,
                                      const BackendFactory* open) {
  std::unique_ptr<Backend> backend = open ? (*open)() : fresh_();
  if (!backend) return std::nullopt;
  // Only the last case is watched after its call: a late fault of an earlier one shows with the
  // next call anyway, and a wait after each of a bisection's cases cost seconds per trial.
  Runner runner(*backend, oracle_, options_.run);
  RunOptions watched = options_.run;
  watched.settle_seconds = kConfirmSettleSeconds;
  Runner last_runner(*backend, oracle_, watched);
  CaseReport last;
  for (size_t i = 0; i < cases.size() && !run_must_end(); ++i)
    last = (settle && i + 1 == cases.size() ? last_runner : runner).run(*cases[i].c, *cases[i].cls);
  return last.outcome;
}

bool Engine::sequence_fails(const std::vector<Classified>& cases, Outcome outcome, bool settle) {
  return replay(cases, settle) == outcome;
}

std::optional<std::vector<Case>> Engine::bisect(const Case& c, const Classification& cls, Outcome outcome,
                                                bool settle) {
  // The remembered cases in the order they ran, each once.
  std::map<uint64_t, const Remembered*> ran;
  for (const Remembered& h : first_cases_) ran.emplace(h.order, &h);
  for (const Remembered& h : recent_cases_) ran.emplace(h.order, &h);
  const StateKeys kernels = state_keys(c);
  for (const uint32_t key : kernels)
    if (const auto same = recent_of_kernel_.find(key); same != recent_of_kernel_.end())
      for (const Remembered& h : same->second) ran.emplace(h.order, &h);
  std::vector<Case> cases;
  std::vector<uint64_t> order;
  std::vector<Classified> history;
  cases.reserve(ran.size());
  for (const auto& [position, h] : ran) {
    cases.push_back(h->get());
    order.push_back(position);
  }
  size_t at = 0;
  for (const auto& [position, h] : ran) history.push_back({&cases[at++], &h->cls});
  auto with = [&](std::vector<Classified> before) {
    before.push_back({&c, &cls});
    return before;
  };
  auto copies = [](const std::vector<Classified>& sequence) {
    std::vector<Case> out;
    for (const Classified& s : sequence) out.push_back(*s.c);
    return out;
  };
  int trials = 0;
  auto fails = [&](const std::vector<Classified>& before) {
    ++trials;
    return !run_must_end() && sequence_fails(with(before), outcome, settle);
  };
  if (history.empty() || !fails(history)) return std::nullopt;
  // Most state bugs need one earlier call: the latest ones of the kernel first (an accumulator,
  // a plan cache), then those of the operator, then the latest of any, then the process's first ones (a
  // buffer sized by the first call), then the rest, latest first.
  std::vector<size_t> singles;
  std::vector<bool> queued(history.size(), false);
  auto queue = [&](size_t i) {
    if (!queued[i]) singles.push_back(i), queued[i] = true;
  };
  const uint64_t first_after_firsts = first_cases_.size();  // the process's first calls are 0, 1, ...
  for (auto key = kernels.rbegin(); key != kernels.rend(); ++key) {  // the narrowest kernel first
    if (*key == 0) continue;
    size_t n = 0;
    for (size_t i = history.size(); i-- > 0 && n < kLatestSingles;) {
      const StateKeys its = state_keys(*history[i].c);
      if (order[i] >= first_after_firsts && (its[0] == *key || its[1] == *key)) queue(i), ++n;
    }
  }
  for (size_t i = history.size(), n = 0; i-- > 0 && n < kLatestSingles; ++n)
    if (order[i] >= first_after_firsts) queue(i);
  for (size_t i = 0; i < history.size(); ++i)
    if (order[i] < first_after_firsts) queue(i);
  for (size_t i = history.size(); i-- > 0;) queue(i);
  for (size_t i : singles) {
    if (trials >= kBisectTrials) break;
    if (fails({history[i]})) return copies(with({history[i]}));
  }
  // Otherwise drop halves, then quarters, ... of the history while it still fails.
  std::vector<Classified> keep = history;
  for (size_t chunk = keep.size() / 2; chunk >= 1 && trials < kBisectTrials;) {
    bool dropped = false;
    for (size_t start = 0; start < keep.size() && trials < kBisectTrials; start += chunk) {
      std::vector<Classified> trial(keep.begin(), keep.begin() + static_cast<ptrdiff_t>(start));
      trial.insert(trial.end(), keep.begin() + static_cast<ptrdiff_t>(std::min(keep.size(), start + chunk)),
                   keep.end());
      if (fails(trial)) {
        keep = std::move(trial);
        dropped = true;
        break;
      }
    }
    if (!dropped) chunk /= 2;
  }
  return copies(with(keep));
}

void Engine::investigate_failure(CaseOutcome& out, const WorkItem& item,
                                 const std::optional<rc::Shrinkable<Case>>& shrinkable) {
  const Outcome outcome = out.report.outcome;
  const std::string stem = item.id.to_string();
  cert::Failure f;
  f.id = item.id;
  f.counts_at = out.counts_at;
  f.case_name = out.c.name;
  f.op = cert::op_subject(out.c);
  f.outcome = outcome;
  f.detail = out.report.detail;
  f.seed = item.seed;
  f.backend_output = out.report.exec.output_text;
  f.backend_output_dropped = out.report.exec.output_dropped;
  if (!options_.repro_dir.empty()) {
    f.repro = path_for(stem, ".json");
    if (!save(f.repro, out.c)) f.repro.clear();
  }

  // A hang costs a whole deadline per step, a runaway allocation seconds: only the first ones of a
  // run are confirmed and shrunk. A known failure (EngineOptions::known) is neither, and neither is
  // one past the first few of its check (EngineOptions::max_investigated_per_check).
  const bool hang = outcome == Outcome::Timeout || outcome == Outcome::Limit;
  const bool known = options_.known && options_.known(f);
  f.expected = known;
  const bool investigated = take_investigation_turn(out.counts_at, outcome);
  f.cause_known = investigated && !known && !cause_is_new(f);
  const bool affordable =
      !known && investigated && !f.cause_known && (!hang || hang_confirms_ < options_.max_hang_confirms);

  // (1) Confirm alone in a fresh process; (2) bisect the cases before it when it does not fail
  // alone; (3) shrink what fails alone.
  // Watched after the call when the fault showed after the return: a late write, or a process that
  // died after the call had returned. A crash in the call shows in the call.
  const bool settle =
      is_late_fault(outcome) ||
      (outcome == Outcome::Crash && out.report.exec.message.starts_with("after the call returned"));
  // Every timeout is retried (until one comes back), not only the first few of its check: each
  // one that is the machine's would otherwise end its cell.
  const bool retried = outcome == Outcome::Timeout && options_.confirm && options_.patient && !known &&
                       hangs_reproduced_ == 0 && !run_must_end();
  if (retried && timeout_was_flaky(out, f)) {
    tell([&](Listener& l) { l.failure_confirmed(f); });
    if (!f.repro.empty())
      f.reproduce =
          reproduce_command(options_.program, f.repro, options_.backend_spec, options_.backend_flags);
    publish(f, investigated);
    out.failure = std::move(f);
    return;
  }
  if (hang && affordable) ++hang_confirms_;
  if (retried) {
    // Its confirmation: it hung again, alone, with a longer deadline.
  } else if (options_.confirm && fresh_ && affordable && !run_must_end()) {
    if (sequence_fails({{&out.c, &out.cls}}, outcome, settle)) {
      f.confirmation = cert::Confirmation::Reproduced;
    } else if (!hang) {
      if (auto sequence = bisect(out.c, out.cls, outcome, settle)) {
        f.confirmation = cert::Confirmation::StateDependent;
        f.sequence = path_for(stem, ".sequence.jsonl");
        f.sequence_length = sequence->size();
        if (!save_sequence(f.sequence, *sequence)) f.sequence.clear();
      } else {
        f.confirmation = cert::Confirmation::NotReproduced;
      }
    } else {
      f.confirmation = cert::Confirmation::NotReproduced;
    }
    if (f.confirmation == cert::Confirmation::NotReproduced && may_be_flaky(outcome)) {
      f.detail += "; it did not fail again, alone or after the cases before it, in a fresh process";
      f.outcome = out.report.outcome = Outcome::Flaky;
    }
  }
  tell([&](Listener& l) { l.failure_confirmed(f); });
  const bool shrink = shrinkable && affordable && shrinks_ < options_.max_shrinks && !run_must_end() &&
                      f.confirmation != cert::Confirmation::StateDependent &&
                      f.confirmation != cert::Confirmation::NotReproduced;
  if (shrink) {
    ++shrinks_;
    // Candidates run in a fresh backend: a failure that shrinks must still fail on its own.
    std::unique_ptr<Backend> scratch = fresh_ ? fresh_() : nullptr;
    Runner runner(scratch ? *scratch : under_test_, oracle_, options_.run);
    // In-process, a crash while shrinking takes dmlcert down: the candidate is on disk first, in
    // one file rewritten in place (as the in-flight file is), since a shrink tries thousands of
    // candidates and a file created and renamed for each cost most of a shrink's time.
    std::optional<InFlightFile> trial;
    if (!options_.isolated && !options_.repro_dir.empty()) trial.emplace(path_for(stem, ".shrinking.json"));
    bool trial_warned = false;
    const std::string shrunk_name = out.c.name + "/shrunk";
    Case smallest = shrink_failure(
        *shrinkable, out.cls,
        [&](const Case& candidate, const Classification& cls) {
          if (run_must_end()) return false;
          Case named = candidate;
          named.name = shrunk_name;
          std::string error;
          if (trial && !trial->write(named, &error) && !trial_warned) {
            tell([&](Listener& l) {
              l.warning("dmlcert: " + printable(error) +
                        " (a crash while shrinking would leave no case behind)\n");
            });
            trial_warned = true;
          }
          // A fault restarts the scratch process; keep shrinking in the new one.
          return runner.run(named, cls).outcome == outcome;
        },
        hang ? options_.hang_shrink_seconds : options_.shrink_seconds,
        [&](const Case& candidate, const Classification& cls, bool fails) {
          tell([&](Listener& l) { l.shrink_tried(item.id, candidate, cls, fails); });
        });
    trial.reset();  // no candidate file outlives the shrink (InFlightFile removes it)
    if (!(smallest.op == out.c.op && smallest.data == out.c.data)) {
      smallest.name = shrunk_name;
      smallest.origin = out.c.origin + " shrunk";
      f.shrunk = path_for(stem, ".min.json");
      if (!save(f.shrunk, smallest)) f.shrunk.clear();
    }
  }
  // Only a file that was written: a reproduce line never names one that does not exist.
  const std::string& best = !f.sequence.empty() ? f.sequence : !f.shrunk.empty() ? f.shrunk : f.repro;
  if (!best.empty())
    f.reproduce = reproduce_command(options_.program, best, options_.backend_spec, options_.backend_flags);
  publish(f, investigated);
  out.failure = std::move(f);
}

bool Engine::timeout_was_flaky(CaseOutcome& out, cert::Failure& f) {
  const std::optional<Outcome> again = replay({{&out.c, &out.cls}}, /*settle=*/false, &options_.patient);
  if (!again) return false;  // no fresh process: the timeout counts, unconfirmed
  if (fails_run(*again)) {
    f.confirmation = cert::Confirmation::Reproduced;
    if (*again == Outcome::Timeout) ++hangs_reproduced_;
    return false;
  }
  char retry[160];
  std::snprintf(retry, sizeof retry,
                "; it passed when run again alone in a fresh process with %g times the deadline",
                kRetryStretch);
  f.detail += retry;
  f.outcome = out.report.outcome = Outcome::Flaky;
  f.confirmation = cert::Confirmation::NotReproduced;
  return true;
}

void Engine::publish(const cert::Failure& f, bool investigated) {
  // A flaky case is reported, not counted: it does not stop a run that stops at its first failures.
  if (f.outcome != Outcome::Flaky) ++failures_;
  tell([&](Listener& l) { l.cause_found(f, investigated); });
}

}  // namespace dmlcert::engine

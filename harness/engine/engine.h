// The run engine (docs/design.md, "The engine"): the one loop behind `run`, `replay`, `fuzz` and
// `certify`. A command builds a plan; the engine runs it with N workers, each with a backend of its
// own. For every case it classifies the case once, keeps a file of it where a crash could lose it,
// runs and judges it; for every failure it saves the case, confirms it alone in a fresh backend
// process, shrinks it (or, when it only fails after other cases, bisects those to a short
// sequence) and works out the command that reproduces it. What it finds it tells listeners (a
// case ran, a shrink step was tried, a failure was confirmed, a cause was found), as rapidcheck's
// TestListener keeps search, shrinking and reporting apart: the plan counts, a printer prints.
#pragma once

#include <rapidcheck.h>

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "check_id.h"
#include "dmlcert/runner.h"
#include "failure.h"
#include "in_flight.h"

namespace dmlcert::engine {

// One case to run: a generator sampled at (seed, size), or a case given as it is.
struct WorkItem {
  cert::CheckId id;  // unique within a run: names the repro files
  uint64_t seed = 0;
  int size = 0;
  std::optional<rc::Gen<Case>> gen;
  const Case* given = nullptr;
  std::string origin;  // provenance written into the case ("certify seed=... size=...")
  // The check a failure of this item counts against (EngineOptions::known is asked about it),
  // when that depends on how its case classifies: a member of a certification's family counts
  // against its own cell or the rule it breaks, not against its family's cell. Null: id.check().
  std::function<cert::CheckId(const Classification&)> counts_at;
};

// A planned unit of work: cases run back to back in the backend's process (one case, or a family
// of related ones). After a timeout or a limit the rest of it is not run: the cases of a family
// share what hung.
struct Task {
  std::vector<WorkItem> cases;
};

// A fresh instance of the backend under test (a new process for isolated backends), for
// confirming a failure alone, replaying sequences and shrinking.
using BackendFactory = std::function<std::unique_ptr<Backend>()>;

// How much longer a timeout's retry may take than the call's own deadline (EngineOptions::patient):
// the deadline plus a margin of three times it. On two cores shared with a parallel build, a call
// that answers at once alone was seen to miss its 5 s deadline; the retry runs alone in a fresh
// process and, besides, does not count time its process was starved of a CPU
// (backends/plugin/isolated_backend.cpp, kStarvedDeadlineCap).
inline constexpr double kRetryStretch = 4.0;

// How one case of a task ended.
struct CaseOutcome {
  bool generated = false;  // false: the generator gave up on this item (counted as skipped)
  std::string generation_error;
  Case c;
  Classification cls;  // computed once, here, and handed to the runner, the confirmation and the shrinker
  cert::CheckId counts_at;  // WorkItem::counts_at's answer
  CaseReport report;
  std::optional<cert::Failure> failure;
  // The run was asked to stop (SIGINT, SIGTERM) while this case ran: its result means nothing and
  // it counts as not run.
  bool interrupted = false;
};

// What the engine tells about a run, from the worker's thread that found it. Every default does
// nothing.
class Listener {
 public:
  virtual ~Listener() = default;
  // A work item's case ran (or its generator gave up, or the run was stopped while it ran); its
  // failure, if it failed, has been investigated.
  virtual void case_ran(const WorkItem& item, const CaseOutcome& out) { (void)item, (void)out; }
  // A case that ran earlier failed after all: a late fault of its call (a write into its bindings
  // after the call returned, or a crash after it) came to light with a later call or at the end of
  // the run. It counts where that case counted (Failure::counts_at).
  virtual void late_fault_found(const cert::Failure& f) { (void)f; }
  // A smaller case was tried while shrinking the failure of `id`: whether it still fails.
  virtual void shrink_tried(const cert::CheckId& id, const Case& candidate, const Classification& cls,
                            bool still_fails) {
    (void)id, (void)candidate, (void)cls, (void)still_fails;
  }
  // A failure's confirmation is known (unchecked when it was not asked).
  virtual void failure_confirmed(const cert::Failure& f) { (void)f; }
  // A failure is done: saved, confirmed, shrunk or bisected, with the command that reproduces it.
  // `investigated`: among the first failures of its check and outcome
  // (EngineOptions::max_investigated_per_check); the others are reported, not printed.
  virtual void cause_found(const cert::Failure& f, bool investigated) { (void)f, (void)investigated; }
  // Something went wrong around the run that the user should know (a file it could not write).
  virtual void warning(const std::string& text) { (void)text; }
};

// One worker's part of a plan: the tasks it runs, and what it makes of what the engine tells.
class Share : public Listener {
 public:
  // The next task, or nullopt when this share is done (or has its own reason to stop: a time
  // limit, a backend that keeps hanging).
  virtual std::optional<Task> next() = 0;
  // The run was asked to stop (SIGINT, SIGTERM) before this share's tasks had all run: why.
  virtual void stopped(const std::string& why) { (void)why; }
  // No task is left, and late faults have been waited for where the plan asked to.
  virtual void finish() {}
  // Tasks done (skipped ones included) and planned (0: not known), for the progress line.
  virtual uint64_t done() const = 0;
  virtual uint64_t planned() const { return 0; }
};

// What a command asks the engine to run: a share per worker, which the plan keeps (and reads its
// results from once the run is over).
class Plan {
 public:
  virtual ~Plan() = default;
  // Worker `worker` of `workers` (EngineOptions::jobs), with its own backend under test, open for
  // the whole run. Called from that worker's thread, once.
  virtual Share& share(unsigned worker, unsigned workers, Backend& under_test) = 0;
};

// A plan of one worker, whose share is given (`run` and `replay`: cases in order, in one process).
class OneWorker final : public Plan {
 public:
  explicit OneWorker(Share& share) : share_(share) {}
  Share& share(unsigned, unsigned, Backend&) override { return share_; }

 private:
  Share& share_;
};

// Whether the repro directory has run out of space, shared by the engines of one run's workers (they
// write into the same directory): once one finds it full, none writes again and the run says so
// once.
struct ReproSpace {
  std::mutex lock;
  std::string error;  // empty while files are written
};

// Failures investigated per cause (EngineOptions::cause), shared by the engines of one run's workers:
// a cause known to one worker is known to all.
struct CauseTally {
  std::mutex lock;
  std::map<std::string, int> investigated;
};

struct EngineOptions {
  std::string backend_spec;  // as the user named it, with absolute paths (repro lines)
  std::string program;       // the dmlcert executable, absolute (repro lines)
  // The isolation flags the run was given where they differ from the defaults (" --memory-limit
  // 0.5"): a repro line that ran under other limits could end otherwise (a memory hog that met a
  // 0.5 GiB limit at once can run into its deadline before it meets a 2 GiB one).
  std::string backend_flags;
  // The run's own directory for repro files; empty: failures are not saved (`dmlcert run`).
  std::string repro_dir;
  std::shared_ptr<ReproSpace> repro_space = std::make_shared<ReproSpace>();  // copies share it
  RunOptions run;
  // The backend runs in a child process: the harness survives a crash, so case files are
  // written only for failures. In-process runs keep one in-flight file rewritten before every
  // call instead, so that a crash that takes dmlcert down leaves the case behind.
  bool isolated = false;
  bool in_flight = true;  // in-process: keep <repro_dir>/in-flight[-N].json (N: the worker, with several)
  double shrink_seconds = 1;
  int max_shrinks = 10;       // failures shrunk per worker (the first ones)
  int max_hang_confirms = 1;  // hangs confirmed and shrunk per worker: each step may cost a deadline
  double hang_shrink_seconds = 30;
  bool confirm = true;
  // A fresh backend whose calls have kRetryStretch times the deadlines of the backend under test,
  // to run a timeout again before it counts (Engine::timeout_was_flaky). Null: a timeout is
  // confirmed with its own deadline, and is never flaky.
  BackendFactory patient;
  // Whether a failure is already expected (certify --expect: by the check it counts against or by
  // its cause): such a failure is saved and reported but not confirmed, bisected or shrunk, each of
  // which starts fresh backend processes (seconds each for a library as large as libtorch).
  std::function<bool(const cert::Failure& f)> known;
  // Only the first failures of each check and outcome are confirmed, bisected, shrunk and printed;
  // later ones are saved and reported, unchecked. A backend wrong in every call of a cell costs a
  // few fresh processes per cell, not one per case (docs/design.md, "The engine"). 0: no cap.
  int max_investigated_per_check = 2;
  // The cause a failure belongs to (certify: the operator or broken rule and the failure's family;
  // report_summary.h). With a cause, only the first max_investigated_per_cause failures of each are
  // confirmed, bisected and shrunk, whatever their check: a crash whose cause is known costs a
  // process restart, not dozens of fresh processes (a heap corrupted by every call of an operator
  // made every cell's crashes a bisection). Null: causes are not compared.
  std::function<std::string(const cert::Failure& f)> cause;
  int max_investigated_per_cause = 2;
  std::shared_ptr<CauseTally> causes = std::make_shared<CauseTally>();  // copies share it
  // Told of everything every worker finds (a printer), besides each worker's share.
  std::vector<Listener*> listeners;

  // The loop.
  unsigned jobs = 1;  // workers, each with a backend under test of its own
  // Stop once this many failures are found (0: never): a run that stops at its first failure.
  size_t stop_after_failures = 0;
  // At the end, wait briefly for a late fault of each worker's last call, which no later call
  // would reveal.
  bool settle_at_end = false;
  // Called now and then (and once at the end) with the tasks done and planned over every share,
  // the failures and the seconds since the start; from one thread at a time.
  std::function<void(uint64_t done, uint64_t planned, uint64_t failures, double elapsed)> on_progress;
};

// "interrupted by SIGINT before every case had run": why a run that was asked to stop stopped.
std::string interruption();

// Runs every share of the plan, each in a thread of its own with a backend from `open` (opened
// before any runs; the same factory gives the fresh backends confirmation needs). False, with
// *error, when a backend cannot be opened: then nothing ran.
bool run(Plan& plan, const BackendFactory& open, Oracle& oracle, const EngineOptions& options,
         std::string* error);

// One worker: runs cases on one backend under test, investigates their failures.
class Engine {
 public:
  Engine(Backend& under_test, Oracle& oracle, BackendFactory fresh, EngineOptions options,
         std::vector<Listener*> listeners, std::string in_flight_name);
  ~Engine();  // removes the in-flight file
  CaseOutcome run(const WorkItem& item);
  // At the end of a run: waits briefly for a late fault of the last call, which no later call
  // would reveal, and reports its failure and those of the calls that run again because of it.
  void settle();
  size_t failures() const { return failures_; }  // flaky ones not counted
  // Why repro files stopped being written (the repro directory ran out of space), for the report;
  // empty while they are written.
  std::string repro_error() const;

 private:
  // Every step of one case: classify, keep in flight, run, judge, investigate.
  CaseOutcome run_one(Case c, const WorkItem& item, const std::optional<rc::Shrinkable<Case>>& shrinkable);
  CaseReport judge(const Case& c, const Classification& cls);  // the runner, its throws made failures
  void investigate_failure(CaseOutcome& out, const WorkItem& item,
                           const std::optional<rc::Shrinkable<Case>>& shrinkable);
  // A case with the classification it was given.
  struct Classified {
    const Case* c;
    const Classification* cls;
  };
  // Runs cases in order in a fresh backend; how the last one ended (nullopt: no fresh backend).
  // With `settle`, a late fault is waited for after the last call (kConfirmSettleSeconds). `open`:
  // where the fresh backend comes from, when not from the usual factory.
  std::optional<Outcome> replay(const std::vector<Classified>& cases, bool settle,
                                const BackendFactory* open = nullptr);
  // A timeout runs again alone in a fresh process with a longer deadline before it counts
  // (EngineOptions::patient): one that passes then is the machine's, and becomes Outcome::Flaky.
  // True when it did.
  bool timeout_was_flaky(CaseOutcome& out, cert::Failure& f);
  // Whether replay() ends with `outcome` (waiting for a late fault after the last call with `settle`).
  bool sequence_fails(const std::vector<Classified>& cases, Outcome outcome, bool settle);
  // A late fault that names an earlier call: the failure of the case that made that call.
  std::optional<cert::Failure> failure_of(const LateFault& late);
  // What a call's result says about the backend's processes: late faults of earlier calls, or a
  // fault of its own that ended its process.
  struct Call;
  void note_call(const CaseReport& r, const Call& call);
  // Reports a late fault's failure; when it ended the process, the calls whose threads died with
  // it run again (rerun_suspects).
  void blame_late_fault(const LateFault& late);
  // Runs the calls that died with a process again, in the backend under test, as calls of their
  // own cases: a late fault of theirs is theirs. Their other results are not counted again.
  void rerun_suspects();
  // Tells the listeners of the late failures found since the last time (after the case that
  // revealed them).
  void report_late_faults_found();
  // Counts a failure once its repro files are known and tells the listeners.
  void publish(const cert::Failure& f, bool investigated);
  // Whether a failure of `outcome` against `check` is still among the first of its check to be
  // investigated (EngineOptions::max_investigated_per_check); takes its turn when it is.
  bool take_investigation_turn(const cert::CheckId& check, Outcome outcome);
  // Whether a failure's cause (EngineOptions::cause) is still among the first to be investigated;
  // takes its turn when it is.
  bool cause_is_new(const cert::Failure& f);
  // The shortest run of earlier cases (at most a handful) after which `c` fails again.
  std::optional<std::vector<Case>> bisect(const Case& c, const Classification& cls, Outcome outcome,
                                          bool settle);
  std::string path_for(const std::string& stem, const std::string& suffix) const;
  // Puts a repro file in place, whole (write_file_atomically()); once the repro directory is out of
  // space, says so once (repro_error()) and writes nothing more.
  bool save_file(const std::string& path, const std::string& text);
  bool save(const std::string& path, const Case& c);
  bool save_sequence(const std::string& path, const std::vector<Case>& cases);
  void remember(const Case& c, const Classification& cls, Outcome outcome,
                const std::optional<rc::Shrinkable<Case>>& shrinkable);
  template <class Event>
  void tell(Event event) {
    for (Listener* l : listeners_) event(*l);
  }

  Backend& under_test_;
  Oracle& oracle_;
  BackendFactory fresh_;
  EngineOptions options_;
  std::vector<Listener*> listeners_;
  Runner runner_;
  std::unique_ptr<InFlightFile> in_flight_;  // in-process runs only
  bool in_flight_warned_ = false;
  size_t failures_ = 0;
  int shrinks_ = 0, hang_confirms_ = 0;
  // Timeouts that came back when run again with a longer deadline: once one has, the backend is
  // known to hang, and later timeouts count without a retry, which would cost a longer deadline
  // each.
  int hangs_reproduced_ = 0;
  std::map<std::string, int> investigated_;  // check and outcome -> failures investigated there
  // The cases the backend's current process has run: the first few, the latest, and the latest
  // of each operator and of each REDUCE function (a backend keeps its state per operator or per
  // kernel, and between two calls of one kernel a certification interleaves hundreds of others).
  // A generated case is kept as its shrinkable (which gives the same case again when asked), not
  // as a copy of its data: every case is remembered, and few are ever bisected.
  struct Remembered {
    uint64_t order = 0;  // the position of its call in the process
    std::optional<rc::Shrinkable<Case>> shrinkable;
    std::string name, origin;   // what the engine set on the generated case
    std::optional<Case> given;  // a case that was not generated
    Classification cls;
    Case get() const;
  };
  uint64_t remembered_ = 0;
  void forget_history();  // the backend's process is gone
  std::vector<Remembered> first_cases_;
  std::deque<Remembered> recent_cases_;
  std::map<uint32_t, std::deque<Remembered>> recent_of_kernel_;  // by state_keys()
  // The latest calls of the backend under test, across process restarts, so that a late fault
  // can name the case whose call it belongs to.
  struct Call {
    uint64_t id = 0;
    cert::CheckId case_id, counts_at;
    Case c;
    Classification cls;
    uint64_t process = 0;  // which of the backend's processes ran it (process_)
    int reruns = 0;        // how often it ran again because its process died
    bool passed = false;
  };
  std::deque<Call> calls_;
  uint64_t process_ = 0;                          // counts the backend's process restarts
  std::deque<Call> suspects_;                     // calls whose threads died with a process, to run again
  std::vector<cert::Failure> late_faults_found_;  // not yet told (report_late_faults_found)
};

// The shell command that reruns a case file (or a .jsonl sequence, in order, in one process).
// backend_flags (EngineOptions) follow the backend.
std::string reproduce_command(const std::string& program, const std::string& file, const std::string& backend,
                              const std::string& backend_flags = "");
// A file-name-safe form of a name.
std::string file_safe(const std::string& name);

}  // namespace dmlcert::engine

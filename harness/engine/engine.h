// The run engine (docs/design.md, "The engine"): the one pipeline behind `fuzz` and `certify`.
// For every planned work item it makes the case, classifies it once, keeps a file of it where a
// crash could lose it, runs and judges it; for every failure it saves the case, confirms it
// alone in a fresh backend process, shrinks it (or, when it only fails after other cases,
// bisects those to a short sequence) and prints the command that reproduces it.
#pragma once

#include <rapidcheck.h>

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "dmlcert/runner.h"
#include "in_flight.h"

namespace dmlcert::engine {

// One unit of planned work: a generator sampled at (seed, size), or a case given as it is.
struct WorkItem {
  std::string key;  // stable and unique within a run: names the repro file
  uint64_t seed = 0;
  int size = 0;
  std::optional<rc::Gen<Case>> gen;
  const Case* given = nullptr;
  std::string origin;  // provenance written into the case ("certify seed=... size=...")
  // Where a failure of this item counts, as a key of the same form (EngineOptions::known and
  // ::place are asked about it), when that depends on how its case classifies: a member of a
  // certification's sequence counts against its own cell or the rule it breaks, not against its
  // family's cell. Null: at `key`.
  std::function<std::string(const Classification&)> counts_at;
};

// A fresh instance of the backend under test (a new process for isolated backends), for
// confirming a failure alone and for replaying sequences.
using BackendFactory = std::function<std::unique_ptr<Backend>()>;

struct Failure {
  std::string key, case_name;
  std::string counts_at;  // where it counts (WorkItem::counts_at), in the form of `key`
  Outcome outcome = Outcome::Failed;
  std::string detail;
  std::string repro;     // the case file
  std::string shrunk;    // the shrunk case file, when shrinking found a smaller one
  std::string sequence;  // state-dependent failures: the .jsonl of cases that reproduces it in one process
  size_t sequence_length = 0;
  // Whether the failure came back when the case ran alone in a fresh backend process (unknown:
  // not checked, as for a second hang of a run).
  enum class Confirmation {
    Reproduced,
    StateDependent,
    NotReproduced,
    Unchecked
  } confirmation = Confirmation::Unchecked;
  std::string reproduce;  // the command line
  uint64_t seed = 0;
  std::string backend_output;  // what the backend printed during the failing call (capped)
  uint64_t backend_output_dropped = 0;
  // Not confirmed, bisected or shrunk: an earlier failure of the same cause was (EngineOptions::cause).
  bool cause_known = false;
};
std::string_view name(Failure::Confirmation c);

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
  std::string repro_dir;                                                     // the run's own directory
  std::shared_ptr<ReproSpace> repro_space = std::make_shared<ReproSpace>();  // copies share it
  RunOptions run;
  // The backend runs in a child process: the harness survives a crash, so case files are
  // written only for failures. In-process runs keep one in-flight file rewritten before every
  // call instead, so that a crash that takes dmlcert down leaves the case behind.
  bool isolated = false;
  std::string in_flight = "in-flight";  // the in-flight file's name (one per parallel worker)
  double shrink_seconds = 1;
  int max_shrinks = 10;       // failures shrunk per run (the first ones)
  int max_hang_confirms = 1;  // hangs confirmed and shrunk per run: each step may cost a deadline
  double hang_shrink_seconds = 30;
  bool confirm = true;
  // Whether a failure at `key` (WorkItem::counts_at where set; of the case named `case_name`) is
  // already expected (certify --expect): such a failure is saved and reported but not confirmed,
  // bisected or shrunk, each of which starts fresh backend processes (seconds each for a library
  // as large as libtorch).
  std::function<bool(const std::string& key, const std::string& case_name)> known;
  // Where a failure counts (certify: its cell, rule check or corpus case; docs/design.md, "The
  // engine"). With a place, only the first max_investigated_per_place failures of each place and
  // outcome are confirmed, bisected, shrunk and printed; later ones are saved and reported,
  // unchecked. A backend wrong in every call of a cell costs a few fresh processes per cell, not
  // one per case. Null: every failure is investigated.
  std::function<std::string(const std::string& key, const std::string& case_name)> place;
  int max_investigated_per_place = 2;
  // The cause a failure belongs to (certify: its operator or rule check, outcome and kind of detail;
  // report_summary.h). With a cause, only the first max_investigated_per_cause failures of each are
  // confirmed, bisected and shrunk, whatever their place: a crash whose cause is known costs a
  // process restart, not dozens of fresh processes (a heap corrupted by every call of an operator
  // made every cell's crashes a bisection). Null: causes are not compared.
  std::function<std::string(const std::string& key, Outcome outcome, const std::string& detail)> cause;
  int max_investigated_per_cause = 2;
  std::shared_ptr<CauseTally> causes = std::make_shared<CauseTally>();  // copies share it
  // What a failure block is printed with (above any progress line); null: not printed.
  std::function<void(const std::string&)> print;
};

struct CaseOutcome {
  bool generated = false;  // false: the generator gave up on this item (counted as skipped)
  std::string generation_error;
  Case c;
  Classification cls;
  CaseReport report;
  std::optional<Failure> failure;
  // The run was asked to stop (SIGINT, SIGTERM) while this case ran: its result means nothing and
  // it counts as not run.
  bool interrupted = false;
  // Failures of cases run before this one that came to light with it: a late fault (a write into
  // an earlier call's bindings, or a crash after that call had returned) names its call, and the
  // case that made it carries the failure (Failure::key is that case's key).
  std::vector<Failure> earlier;
};

class Engine {
 public:
  Engine(Backend& under_test, Oracle& oracle, BackendFactory fresh, EngineOptions options);
  ~Engine();  // removes the in-flight file
  CaseOutcome run(const WorkItem& item);
  // A case that is not a work item (a corpus case, a case of a sequence), under `key`.
  CaseOutcome run_case(const Case& c, const std::string& key);
  // At the end of a run: waits briefly for a late fault of the last call, which no later call
  // would reveal, and returns its failure and those of the calls that run again because of it.
  std::vector<Failure> settle();
  const EngineOptions& options() const { return options_; }
  size_t failures() const { return failures_; }
  // Why repro files stopped being written (the repro directory ran out of space), for the report;
  // empty while they are written.
  std::string repro_error() const;

 private:
  // `counts_at`: WorkItem::counts_at's answer for this case.
  CaseOutcome execute(Case c, const std::string& key,
                      const std::function<std::string(const Classification&)>& counts_at, uint64_t seed,
                      const std::optional<rc::Shrinkable<Case>>& shrinkable);
  void handle_failure(CaseOutcome& out, const std::string& key, const std::string& counts_at, uint64_t seed,
                      const std::optional<rc::Shrinkable<Case>>& shrinkable);
  // Runs cases in order in a fresh backend; how the last one ended (nullopt: no fresh backend).
  // With `settle`, a late fault is waited for after the last call (kConfirmSettleSeconds).
  std::optional<Outcome> replay(const std::vector<const Case*>& cases, bool settle);
  // Whether replay() ends with `outcome` (waiting for a late fault after the last call with `settle`).
  bool sequence_fails(const std::vector<const Case*>& cases, Outcome outcome, bool settle);
  struct Call;
  // A late fault that names an earlier call: the failure of the case that made that call.
  std::optional<Failure> late_failure(const LateFault& late);
  // What a call's result says about the backend's processes: late faults of earlier calls (their
  // failures go to `found`), or a fault of its own that ended its process.
  void note_call(const CaseReport& r, const std::string& key, const std::string& counts_at, const Case& c,
                 int reruns, std::vector<Failure>& found);
  // A late fault's failure; when it ended the process, the calls whose threads died with it run
  // again (rerun_suspects).
  void late_fault(const LateFault& late, std::vector<Failure>& found);
  // Runs the calls that died with a process again, in the backend under test, as calls of their
  // own cases: a late fault of theirs is theirs. Their other results are not counted again.
  void rerun_suspects(std::vector<Failure>& found);
  // Saves, prints and counts a failure once its repro files are known. A failure past its place's
  // cap is counted, not printed (one line says so, once per place).
  void publish(Failure& f, bool investigated = true);
  // Whether a failure of `outcome` at the place of (counts_at, case_name) is still among the first
  // of its place to be investigated (EngineOptions::place); takes its turn when it is.
  bool investigate(const std::string& counts_at, const std::string& case_name, Outcome outcome);
  // Whether a failure's cause (EngineOptions::cause) is still among the first to be investigated;
  // takes its turn when it is.
  bool cause_is_new(const std::string& key, Outcome outcome, const std::string& detail);
  // The shortest run of earlier cases (at most a handful) after which `c` fails again.
  std::optional<std::vector<Case>> bisect(const Case& c, Outcome outcome, bool settle);
  std::string path_for(const std::string& key, const std::string& suffix) const;
  // Puts a repro file in place, whole (write_file_atomically()); once the repro directory is out of
  // space, says so once (repro_error()) and writes nothing more.
  bool save_file(const std::string& path, const std::string& text);
  bool save(const std::string& path, const Case& c);
  bool save_sequence(const std::string& path, const std::vector<const Case*>& cases);
  void remember(const Case& c, Outcome outcome, const std::optional<rc::Shrinkable<Case>>& shrinkable);

  Backend& under_test_;
  Oracle& oracle_;
  BackendFactory fresh_;
  EngineOptions options_;
  Runner runner_;
  std::unique_ptr<InFlightFile> in_flight_;  // in-process runs only
  bool in_flight_warned_ = false;
  size_t failures_ = 0;
  int shrinks_ = 0, hang_confirms_ = 0;
  std::map<std::string, int> investigated_;  // place and outcome -> failures investigated there
  std::set<std::string> quiet_places_;       // places whose further failures are not printed
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
    std::string key, counts_at;
    Case c;
    uint64_t process = 0;  // which of the backend's processes ran it (process_)
    int reruns = 0;        // how often it ran again because its process died
    bool passed = false;
  };
  std::deque<Call> calls_;
  uint64_t process_ = 0;       // counts the backend's process restarts
  std::deque<Call> suspects_;  // calls whose threads died with a process, to run again
};

// The shell command that reruns a case file (or a .jsonl sequence, in order, in one process).
// backend_flags (EngineOptions) follow the backend.
std::string reproduce_command(const std::string& program, const std::string& file, const std::string& backend,
                              const std::string& backend_flags = "");
// A file-name-safe form of a work item key.
std::string file_safe(const std::string& key);

}  // namespace dmlcert::engine

// What the dmlcert subcommands share besides their options (options.h): exit statuses, the
// backends, the engine's options for given cases, and the JSON form of a case's result.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "dmlcert/backend.h"
#include "dmlcert/case.h"
#include "dmlcert/runner.h"
#include "engine.h"
#include "options.h"
#include "plugin/isolated_backend.h"
#include "repro_dir.h"

namespace dmlcert::cli {

inline constexpr const char* kCertifyExitStatusHelp =
    "Exit status: 0 when the backend is certified for its scope (the operators asked for with --ops,\n"
    "the cells it claims through implements()), or, with --expect, when every failure is a known one\n"
    "and no entry has expired; 1 otherwise (a failure, a cell in the scope that did not run, an\n"
    "incomplete run; a flaky case only with --flaky-fails); 2 for a usage error; 130 or 143 when\n"
    "stopped by SIGINT or SIGTERM (the reports are written, marked incomplete).";

// `dmlcert --help`: both of the above, in one paragraph.
inline constexpr const char* kOverallExitStatusHelp =
    "Exit status: run, replay and fuzz exit 0 when every case that ran passed (unimplemented and\n"
    "skipped cases do not fail a run) and 1 when a case failed; certify and merge exit 0 when the\n"
    "backend is certified for its scope (with --expect: when every failure is a known one and no entry\n"
    "has expired) and 1 otherwise. Every command exits 2 for a usage error or a malformed case file,\n"
    "and 130 or 143 when stopped by SIGINT or SIGTERM (the reports are written, marked incomplete).";

// A subcommand's callback records its exit status here; main() returns it.
void set_exit_status(int status);
int exit_status();

// Says "dmlcert COMMAND: message" on stderr; returns kExitUsage.
int usage_error(std::string_view command, const std::string& message);

// Claims `dir` as the repro directory of a run that starts now (engine/repro_dir.h): locked for the
// run, so that no other run removes its files. Says on stderr why not (nullopt) or where the files
// go instead when another run holds it.
std::optional<engine::ReproDir> claim_repro_dir(std::string_view command, const std::string& dir);

// The dmlcert executable's absolute path, for the commands that reproduce a failure.
std::string program_path();

// How long `run` watches an isolated backend after each call for a late write (RunOptions::
// settle_seconds); `replay`, which runs whole corpora, watches a tenth of that.
inline constexpr double kReplaySettleSeconds = 0.25;

// Whether dir is, or can be made, a directory that can be written; says why not. With create it
// is made now, parents included; without, what was made to find out is removed again.
bool writable_dir(const std::string& dir, bool create, std::string* why);

// A backend spec with a plugin's path made absolute, so that printed commands work from anywhere.
std::string absolute_spec(const std::string& spec);

// The backend under test, the reference oracle, and a way to open a fresh instance.
struct Backends {
  std::string spec;
  plugin::IsolationOptions isolation;
  std::unique_ptr<Backend> under_test;
  std::unique_ptr<Oracle> oracle;
  bool isolated = false;  // under_test runs in a child process
  std::unique_ptr<Backend> open() const;
};
// Returns nullopt when a backend cannot be made, and says why in *why, or with a one-line error on
// stderr when why is null.
std::optional<Backends> open_backends(const std::string& spec, const plugin::IsolationOptions& isolation = {},
                                      std::string* why = nullptr);

// The engine's options for cases given as they are (`run`, `replay`): judged, not investigated
// (no confirmation, no shrinking, no in-flight file), repro lines naming the backend as opened.
// `backend` is the spec as the user gave it (`reference` judges the case's own expected output).
engine::EngineOptions given_case_options(const Backends& backends, const RunOptions& run,
                                         const std::string& backend);
// Runs a plan on the backends: the one under test first, fresh ones after it, the reference
// oracle. False (with a line on stderr) when the backend cannot be opened again.
bool run_plan(engine::Plan& plan, Backends& backends, const engine::EngineOptions& options);

// One case's result: outcome, class, status, output tensor or violations, detail. Without
// output_data the output is only its type and sizes (a caller that streams the data writes it).
nlohmann::ordered_json report_json(const Case& c, const std::string& file, const CaseReport& r,
                                   bool output_data = true);

// Stops a long run cleanly on SIGINT/SIGTERM, however many arrive: the run stops, its reports are
// written, marked incomplete, and the first signal sets the exit status (130, 143). Isolation
// children are killed at once.
void install_stop_handlers();
// 128 + the signal that stopped the run, or 0.
int stopped_exit_status();

}  // namespace dmlcert::cli

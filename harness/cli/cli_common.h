// What the dmlcert subcommands share: exit statuses, the backend options, checked numeric
// options, and the JSON form of a case's result.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "dmlcert/backend.h"
#include "dmlcert/case.h"
#include "dmlcert/runner.h"
#include "plugin/isolated_backend.h"

namespace dmlcert::cli {

// The exit statuses of every subcommand (docs/design.md, "The command").
inline constexpr int kExitPassed = 0;  // every case that ran passed (or the backend is certified)
inline constexpr int kExitFailed = 1;  // a case failed (or the backend is not certified)
inline constexpr int kExitUsage = 2;   // a usage error, a malformed case file, a file that cannot be written
inline constexpr const char* kExitStatusHelp =
    "Exit status: 0 when every case that ran passed (unimplemented and skipped cases do not fail a\n"
    "run), 1 when a case failed (failed, mistrusted, crash, timeout, oob, late-write, limit), 2 for a\n"
    "usage error or a malformed case file (the well-formed cases still run), 130 or 143 when stopped\n"
    "by SIGINT or SIGTERM (the reports written so far are marked incomplete).";

inline constexpr const char* kCertifyExitStatusHelp =
    "Exit status: 0 when the backend is certified for its scope (the operators asked for with --ops,\n"
    "the cells it claims through implements()), or, with --expect, when every failure is a known one\n"
    "and no entry has expired; 1 otherwise (a failure, a cell in the scope that did not run, an\n"
    "incomplete run); 2 for a usage error; 130 or 143 when stopped by SIGINT or SIGTERM (the reports\n"
    "are written, marked incomplete).";

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

// Every operator's name, in registry order, joined by sep ("SLICE, SLICE1, ...").
std::string operator_list(std::string_view sep);

// The dmlcert executable's absolute path, for the commands that reproduce a failure.
std::string program_path();

// Adds --backend to a subcommand, bound to *spec (default "optimized").
void add_backend_option(CLI::App& cmd, std::string* spec);
// Adds --fp16-accumulation (the comparison profile for FLOAT16 reductions) bound to *options.
void add_run_options(CLI::App& cmd, RunOptions* options);
// Adds the isolation child's options (--timeout, --load-timeout, --memory-limit, --cpu-limit).
void add_isolation_options(CLI::App& cmd, plugin::IsolationOptions* options);
// The add_isolation_options flags whose values differ from the defaults, each with a leading
// space (" --memory-limit 0.5"), for repro lines: they rerun a case under the limits it failed under.
std::string isolation_flags(const plugin::IsolationOptions& options);

// How long `run` watches an isolated backend after each call for a late write (RunOptions::
// settle_seconds); `replay`, which runs whole corpora, watches a tenth of that.
inline constexpr double kReplaySettleSeconds = 0.25;

// Every numeric option is checked at the door (docs/design.md, "The command"): a value that is
// negative, NaN, infinite or out of range is a usage error naming the option and the value, never
// a wrap-around, a division by zero or an undefined float-to-integer conversion later on. CLI11
// prefixes the message with the option's name.
// Upper bounds: far beyond any real use, small enough that every conversion downstream (a
// deadline in nanoseconds, GiB in bytes) stays defined.
inline constexpr double kMaxSeconds = 1e6;          // about 11 days, for one call or one shrink
inline constexpr double kMaxMemoryGib = 1 << 20;    // 1 PiB
inline constexpr double kMaxDurationSeconds = 1e8;  // about 3 years of fuzzing
inline constexpr uint64_t kMaxCases = 1'000'000'000'000'000;
inline constexpr uint64_t kMaxFileBytes = uint64_t{1} << 40;  // --max-file-bytes: 1 TiB
// A finite decimal number in [min, max] ("nan", "inf", "0x10" and "1e400" are refused).
CLI::Validator number_in(double min, double max);
// A whole number in [min, max], digits only ("-1", "1.5" and "1e3" are refused).
CLI::Validator integer_in(uint64_t min, uint64_t max);
// "i/n" with 0 <= i < n <= 2^32-1, digits only; text that is empty takes GTEST_SHARD_INDEX and
// GTEST_TOTAL_SHARDS when both are set, else 0/1. False when the text is not such a shard.
bool parse_shard(const std::string& text, uint32_t* index, uint32_t* count, std::string* used);
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

// Runner::run, with anything the harness itself throws turned into a Failed report.
CaseReport run_case(Runner& runner, const Case& c);

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

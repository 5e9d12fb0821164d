// The option layer every dmlcert subcommand is written in: a subcommand is an Args struct its
// options fill and a function of it that returns the exit status; options that several commands
// take (the backend, operators, level, seed, workers, the repro directory, the isolation limits)
// are declared once here, each checked at the door (docs/design.md, "The command").
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "dmlcert/feature_level.h"
#include "dmlcert/operators.h"
#include "dmlcert/runner.h"
#include "plugin/isolated_backend.h"

namespace dmlcert::cli {

void set_exit_status(int status);

// The exit statuses of every subcommand (docs/design.md, "The command").
inline constexpr int kExitPassed = 0;  // every case that ran passed (or the backend is certified)
inline constexpr int kExitFailed = 1;  // a case failed (or the backend is not certified)
inline constexpr int kExitUsage = 2;   // a usage error, a malformed case file, a file that cannot be written
inline constexpr const char* kExitStatusHelp =
    "Exit status: 0 when every case that ran passed (unimplemented and skipped cases do not fail a\n"
    "run), 1 when a case failed (failed, mistrusted, crash, timeout, oob, late-write, limit), 2 for a\n"
    "usage error or a malformed case file (the well-formed cases still run), 130 or 143 when stopped\n"
    "by SIGINT or SIGTERM (the reports written so far are marked incomplete).";

// Registers subcommand `name`: its options fill one Args, and `run(Args&)` gives the exit status
// when it is called. Returns the subcommand (to add options to) and its Args.
template <class Args, class Run>
std::pair<CLI::App*, std::shared_ptr<Args>> add_command(CLI::App& app, const std::string& name,
                                                        const std::string& description, Run run,
                                                        const std::string& footer = kExitStatusHelp) {
  auto args = std::make_shared<Args>();
  CLI::App* cmd = app.add_subcommand(name, description);
  cmd->footer(footer);
  cmd->callback([args, run] { set_exit_status(run(*args)); });
  return {cmd, args};
}

// Every operator's name, in registry order, joined by sep ("SLICE, SLICE1, ...").
std::string operator_list(std::string_view sep);

// Adds --backend to a subcommand, bound to *spec (default "optimized").
void add_backend_option(CLI::App& cmd, std::string* spec);
// Adds --fp16-accumulation (the comparison profile for FLOAT16 reductions) bound to *profile.
void add_fp16_accumulation_option(CLI::App& cmd, AccumulationProfile* profile);
// Adds --fp16-accumulation and --max-case-bytes bound to *options.
void add_run_options(CLI::App& cmd, RunOptions* options);
// Adds the isolation child's options (--timeout, --load-timeout, --memory-limit, --cpu-limit).
void add_isolation_options(CLI::App& cmd, plugin::IsolationOptions* options);
// The add_isolation_options flags whose values differ from the defaults, each with a leading
// space (" --memory-limit 0.5"), for repro lines: they rerun a case under the limits it failed under.
std::string isolation_flags(const plugin::IsolationOptions& options);

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

// --ops: a comma-separated list of operators (every one when the option is not given).
void add_ops_option(CLI::App& cmd, std::vector<OpKind>* ops, const std::string& description);
// --level: a feature level (1_0 ... 6_4). Left as it is when not given.
void add_level_option(CLI::App& cmd, std::optional<FeatureLevel>* level, const std::string& description);
// --seed, any 64-bit number.
void add_seed_option(CLI::App& cmd, uint64_t* seed, const std::string& description);
// --jobs (-j): parallel workers, 1 to 256 (default: the machine's cores).
void add_jobs_option(CLI::App& cmd, unsigned* jobs, const std::string& description);
// --repro-dir: where a run's failing cases are saved.
void add_repro_dir_option(CLI::App& cmd, std::string* dir, const std::string& description);
// The machine's cores, the default of --jobs.
unsigned default_jobs();

}  // namespace dmlcert::cli

// What the dmlcert subcommands share: exit statuses, the --backend option, and the JSON form of
// a case's result.
#pragma once

#include <CLI/CLI.hpp>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "dmlcert/backend.h"
#include "dmlcert/case.h"
#include "dmlcert/runner.h"

namespace dmlcert::cli {

// The exit statuses of every subcommand (DESIGN.md: 0 only when everything passed).
inline constexpr int kExitPassed = 0;  // every case that ran passed
inline constexpr int kExitFailed = 1;  // at least one case failed
inline constexpr int kExitUsage = 2;   // a usage error, or a malformed case file
inline constexpr const char* kExitStatusHelp =
    "Exit status: 0 when every case that ran passed (unimplemented and skipped cases do not\n"
    "fail a run), 1 when a case failed (failed, mistrusted, crash, timeout, oob), 2 for a usage\n"
    "error or a malformed case file (the well-formed cases still run).";

// A subcommand's callback records its exit status here; main() returns it.
void set_exit_status(int status);
int exit_status();

// Adds --backend to a subcommand, bound to *spec (default "optimized").
void add_backend_option(CLI::App& cmd, std::string* spec);
// Adds --fp16-accumulation (the comparison profile for FLOAT16 reductions) bound to *options.
void add_run_options(CLI::App& cmd, RunOptions* options);

// Failed, Mistrusted, Crash, Timeout and Oob fail a run; Unimplemented and Skipped do not.
bool fails_run(Outcome o);
// Runner::run, with anything the harness itself throws turned into a Failed report.
CaseReport run_case(Runner& runner, const Case& c);

// The backend under test and the reference it is judged against. When the spec names the
// reference, both are the same object (so that a case's expected_output judges it directly).
struct Backends {
  std::unique_ptr<Backend> owned_under_test, reference;
  Backend& under_test() { return owned_under_test ? *owned_under_test : *reference; }
};
// Prints a one-line error to stderr and returns nullopt when a backend cannot be made.
std::optional<Backends> open_backends(const std::string& spec);

// Logical data as a JSON array, in the case-file notation: numbers, "nan", "inf", "-inf", -0.0,
// and "0x..." bit patterns for NaNs other than the default quiet NaN.
nlohmann::ordered_json logical_data_json(DataType type, const Bytes& logical);
// One case's result: outcome, class, status, output tensor or violations, detail.
nlohmann::ordered_json report_json(const Case& c, const std::string& file, const CaseReport& r);

// The shell command that reruns one case ("dmlcert run FILE --backend B [--case NAME]").
std::string reproduce_command(const std::string& file, const std::string& backend,
                              const std::string& case_name);

}  // namespace dmlcert::cli

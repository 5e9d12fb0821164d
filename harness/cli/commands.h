// The dmlcert subcommands. Each lives in its own cmd_<name>.cpp and registers itself on the
// application with one add_<name>_command call in main.cpp.
#pragma once

#include <CLI/CLI.hpp>

namespace dmlcert::cli {

void add_run_command(CLI::App& app);       // cmd_run.cpp
void add_replay_command(CLI::App& app);    // cmd_replay.cpp
void add_rules_command(CLI::App& app);     // cmd_rules.cpp
void add_fuzz_command(CLI::App& app);      // cmd_fuzz.cpp
void add_certify_command(CLI::App& app);   // cmd_certify.cpp
void add_merge_command(CLI::App& app);     // cmd_merge.cpp
void add_support_command(CLI::App& app);   // cmd_support.cpp
void add_baseline_command(CLI::App& app);  // cmd_baseline.cpp

}  // namespace dmlcert::cli

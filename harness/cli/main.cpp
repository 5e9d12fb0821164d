// The dmlcert command. Each subcommand registers itself from its own cmd_<name>.cpp.
#include <exception>
#include <iostream>

#include "cli_common.h"
#include "commands.h"

int main(int argc, char** argv) {
  CLI::App app(
      "dmlcert: conformance and differential testing for DirectML-style tensor operators (" +
          dmlcert::cli::operator_list(", ") +
          ").\n"
          "Valid cases must give the reference result (bit-exact, or within an error bound computed "
          "from the data for float reductions), invalid cases must be rejected without writing output, "
          "unspecified cases must not crash and, when executed, give an admissible result.\n"
          "Backends: reference, optimized (the default), plugin:/path/to/libbackend.so (always run in a "
          "child process, inputs read-only, outputs followed by a no-access page), or "
          "isolated:reference / isolated:optimized (a built-in run the same way).",
      "dmlcert");
  app.require_subcommand(1);
  app.footer(std::string(dmlcert::cli::kOverallExitStatusHelp) +
             "\nRun `dmlcert COMMAND --help` for a command's options.");
  dmlcert::cli::add_run_command(app);
  dmlcert::cli::add_replay_command(app);
  dmlcert::cli::add_rules_command(app);
  dmlcert::cli::add_fuzz_command(app);
  dmlcert::cli::add_certify_command(app);
  dmlcert::cli::add_merge_command(app);
  dmlcert::cli::add_support_command(app);
  dmlcert::cli::add_baseline_command(app);
  dmlcert::cli::install_stop_handlers();
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help and --version exit 0; every other parse error is a usage error.
    return app.exit(e) == 0 ? 0 : dmlcert::cli::kExitUsage;
  } catch (const std::exception& e) {
    std::cerr << "dmlcert: internal error: " << e.what() << "\n";
    return dmlcert::cli::kExitFailed;
  }
  if (const int stopped = dmlcert::cli::stopped_exit_status()) return stopped;
  return dmlcert::cli::exit_status();
}

// dmlcert run: one case file against one backend, the result as JSON.
#include <iostream>

#include "cli_common.h"
#include "commands.h"
#include "dmlcert/text.h"
#include "dmlcert/values.h"

namespace dmlcert::cli {
namespace {

struct RunArgs {
  std::string file;
  std::string backend = "optimized";
  std::string case_name;
  ReadLimits limits;
  RunOptions options;
  plugin::IsolationOptions isolation;
};

// One result object, a key a line: tensors stay on one line however long, and each violation
// gets a line of its own. The output tensor's data is written element by element, never held as
// a JSON tree (a tree costs several times the tensor; docs/design.md, "Memory").
void print_result(const nlohmann::ordered_json& j, const TensorDesc& out, const CaseReport& r, bool last,
                  bool in_array) {
  std::cout << "{";
  const char* sep = "\n";
  for (const auto& [key, value] : j.items()) {
    std::cout << sep << "  " << nlohmann::json(key).dump() << ": ";
    if (key == "output" && r.output) {
      std::cout << "{\"type\":" << value["type"].dump() << ",\"sizes\":" << value["sizes"].dump()
                << ",\"data\":[";
      const size_t es = element_size(out.type);
      for (size_t i = 0; i + es <= r.output->size(); i += es)
        std::cout << (i ? "," : "") << element_json(out.type, r.output->data() + i).dump();
      std::cout << "]}";
    } else if (value.is_array() && !value.empty() && value.front().is_object()) {
      std::cout << "[";
      for (size_t i = 0; i < value.size(); ++i)
        std::cout << (i ? ",\n    " : "\n    ")
                  << value[i].dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
      std::cout << "\n  ]";
    } else {
      std::cout << value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    }
    sep = ",\n";
  }
  std::cout << "\n}" << (in_array && !last ? "," : "") << "\n";
}

int run(const RunArgs& a) {
  LoadedCases loaded = load_case_file(a.file, a.limits);
  for (const CaseError& e : loaded.errors) std::cerr << e.to_string() << "\n";
  std::vector<const Case*> selected;
  for (const Case& c : loaded.cases)
    if (a.case_name.empty() || c.name == a.case_name) selected.push_back(&c);
  if (selected.empty()) {
    if (loaded.errors.empty())
      std::cerr << printable(a.file, 200) << ": no case"
                << (a.case_name.empty() ? "" : " named '" + printable(a.case_name, 200) + "'") << "\n";
    return kExitUsage;
  }
  auto backends = open_backends(a.backend, a.isolation);
  if (!backends) return kExitUsage;
  RunOptions options = a.options;
  options.oracle_is_under_test = a.backend == "reference";
  // A late write shows after its call returned; replayed alone, nothing later would reveal it.
  if (backends->isolated) options.settle_seconds = kReplaySettleSeconds;
  Runner runner(*backends->under_test, *backends->oracle, options);

  // Each result is printed as soon as it is known (one object, or a JSON array of them).
  const bool in_array = selected.size() > 1;
  if (in_array) std::cout << "[\n";
  bool failed = false;
  for (size_t i = 0; i < selected.size(); ++i) {
    const Case& c = *selected[i];
    const CaseReport r = run_case(runner, c);
    failed |= fails_run(r.outcome);
    nlohmann::ordered_json j = {{"case", c.name}, {"file", a.file}, {"backend", a.backend}};
    j.update(report_json(c, a.file, r, /*output_data=*/false));
    print_result(j, *tensor(c.op, Role::OUTPUT), r, i + 1 == selected.size(), in_array);
  }
  if (in_array) std::cout << "]\n";
  if (!loaded.errors.empty()) return kExitUsage;
  return failed ? kExitFailed : kExitPassed;
}

}  // namespace

void add_run_command(CLI::App& app) {
  auto args = std::make_shared<RunArgs>();
  CLI::App* cmd = app.add_subcommand(
      "run",
      "Run the case(s) in one case file against a backend and print the result as JSON: the "
      "outcome (passed, failed, unimplemented, skipped, mistrusted, crash, timeout, oob, late-write, "
      "limit), the "
      "validator's class, the backend's status, and either the output tensor in logical row-major "
      "order (numbers, \"nan\", \"inf\", \"-inf\", \"0x...\" NaN bit patterns) or the violations "
      "it reported with their rule IDs. A .jsonl file runs every line in order in one backend "
      "process (a JSON array is printed) unless --case picks one: that is how a state-dependent "
      "failure's sequence file (*.sequence.jsonl) reproduces it.");
  cmd->add_option("CASE", args->file, "A case file (.json, or .jsonl with one case per line)")->required();
  add_backend_option(*cmd, &args->backend);
  cmd->add_option("--case", args->case_name, "Run only the case with this name (for .jsonl files)");
  add_run_options(*cmd, &args->options);
  add_isolation_options(*cmd, &args->isolation);
  cmd->add_option("--max-file-bytes", args->limits.max_file_bytes, "Refuse a case file larger than this")
      ->check(integer_in(1, kMaxFileBytes))
      ->capture_default_str();
  cmd->footer(kExitStatusHelp);
  cmd->callback([args] { set_exit_status(run(*args)); });
}

}  // namespace dmlcert::cli

// dmlcert run: one case file against one backend, the result as JSON.
#include <iostream>

#include "cli_common.h"
#include "commands.h"
#include "dmlcert/text.h"
#include "dmlcert/values.h"
#include "engine.h"

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

// The cases of the file, in order, in one backend process; each result printed as soon as it is
// known (one object, or a JSON array of them).
class PrintedCases final : public engine::Share {
 public:
  PrintedCases(std::vector<const Case*> cases, const RunArgs& args) : cases_(std::move(cases)), args_(args) {}

  std::optional<engine::Task> next() override {
    if (next_ == cases_.size()) return std::nullopt;
    if (next_ == 0 && in_array()) std::cout << "[\n";
    engine::WorkItem item;
    item.id = cert::CheckId::given(cases_[next_]->name);
    item.given = cases_[next_++];
    return engine::Task{{std::move(item)}};
  }
  void case_ran(const engine::WorkItem& item, const engine::CaseOutcome& out) override {
    if (out.interrupted) return;
    failed_ |= fails_run(out.report.outcome);
    nlohmann::ordered_json j = {{"case", item.given->name}, {"file", args_.file}, {"backend", args_.backend}};
    j.update(report_json(*item.given, args_.file, out.report, /*output_data=*/false));
    print_result(j, *tensor(item.given->op, Role::OUTPUT), out.report, next_ == cases_.size(), in_array());
  }
  uint64_t done() const override { return next_; }
  bool in_array() const { return cases_.size() > 1; }
  bool failed() const { return failed_; }

 private:
  std::vector<const Case*> cases_;
  const RunArgs& args_;
  size_t next_ = 0;
  bool failed_ = false;
};

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
  engine::EngineOptions options = given_case_options(*backends, a.options, a.backend);
  // A late write shows after its call returned; replayed alone, nothing later would reveal it.
  if (backends->isolated) options.run.settle_seconds = kReplaySettleSeconds;
  PrintedCases cases(std::move(selected), a);
  engine::OneWorker plan(cases);
  if (!run_plan(plan, *backends, options)) return kExitUsage;
  if (cases.in_array()) std::cout << "]\n";
  if (!loaded.errors.empty()) return kExitUsage;
  return cases.failed() ? kExitFailed : kExitPassed;
}

}  // namespace

void add_run_command(CLI::App& app) {
  auto [cmd, args] = add_command<RunArgs>(
      app, "run",
      "Run the case(s) in one case file against a backend and print the result as JSON: the "
      "outcome (passed, failed, unimplemented, skipped, mistrusted, crash, timeout, oob, late-write, "
      "limit), the "
      "validator's class, the backend's status, and either the output tensor in logical row-major "
      "order (numbers, \"nan\", \"inf\", \"-inf\", \"0x...\" NaN bit patterns) or the violations "
      "it reported with their rule IDs. A .jsonl file runs every line in order in one backend "
      "process (a JSON array is printed) unless --case picks one: that is how a state-dependent "
      "failure's sequence file (*.sequence.jsonl) reproduces it.",
      run);
  cmd->add_option("CASE", args->file, "A case file (.json, or .jsonl with one case per line)")->required();
  add_backend_option(*cmd, &args->backend);
  cmd->add_option("--case", args->case_name, "Run only the case with this name (for .jsonl files)");
  add_run_options(*cmd, &args->options);
  add_isolation_options(*cmd, &args->isolation);
  cmd->add_option("--max-file-bytes", args->limits.max_file_bytes, "Refuse a case file larger than this")
      ->check(integer_in(1, kMaxFileBytes))
      ->capture_default_str();
}

}  // namespace dmlcert::cli

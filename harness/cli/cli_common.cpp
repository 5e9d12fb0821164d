#include "cli_common.h"

#include <signal.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <iostream>

#include "dmlcert/interrupt.h"
#include "dmlcert/text.h"
#include "dmlcert/values.h"
#include "reference/reference.h"
#include "registry.h"

namespace dmlcert::cli {
namespace {

namespace fs = std::filesystem;

int g_exit_status = kExitPassed;

void on_stop_signal(int sig) {
  if (stop_requested()) {
    plugin::kill_all_children();
    ::_exit(128 + sig);
  }
  request_stop(sig);
  plugin::kill_all_children();
}

}  // namespace

void set_exit_status(int status) {
  g_exit_status = status;
}
int exit_status() {
  return g_exit_status;
}

std::string operator_list(std::string_view sep) {
  std::string out;
  for (OpKind op : all_ops()) {
    if (!out.empty()) out += sep;
    out += name(op);
  }
  return out;
}

std::string program_path() {
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  return ec ? std::string("dmlcert") : self.string();
}

void add_backend_option(CLI::App& cmd, std::string* spec) {
  cmd.add_option("--backend,-b", *spec,
                 "The backend under test: reference, optimized, plugin:/path/to/libbackend.so (run in a "
                 "child process behind guard pages), or isolated:reference / isolated:optimized (a "
                 "built-in run the same way)")
      ->capture_default_str();
}

void add_run_options(CLI::App& cmd, RunOptions* options) {
  cmd.add_option_function<std::string>(
         "--fp16-accumulation",
         [options](const std::string& v) {
           options->profile = v == "float16" ? AccumulationProfile::Relaxed : AccumulationProfile::Default;
         },
         "The accumulation precision FLOAT16 reductions are judged by: float32 (the default profile) or "
         "float16 (the relaxed profile, with wider error bounds)")
      ->check(CLI::IsMember({"float32", "float16"}))
      ->default_str("float32");
}

CLI::Validator finite_at_least(double min) {
  return CLI::Validator(
      [min](std::string& text) -> std::string {
        char* end = nullptr;
        const double v = std::strtod(text.c_str(), &end);
        if (end == text.c_str() || *end != '\0' || !std::isfinite(v) || v < min)
          return "'" + text + "' is not a finite number of at least " + std::to_string(min).substr(0, 4);
        return {};
      },
      "NUMBER>=" + std::to_string(min).substr(0, 4));
}

CLI::Validator positive_integer() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos || text.size() > 18 ||
            std::stoull(text) == 0)
          return "'" + text + "' is not a positive integer";
        return {};
      },
      "INTEGER>0");
}

void add_isolation_options(CLI::App& cmd, plugin::IsolationOptions* options) {
  options->memory_limit_bytes = plugin::default_memory_limit();
  cmd.add_option("--timeout", options->floor_seconds,
                 "Seconds every call may take before it counts as a timeout; large cases get more in "
                 "proportion to their bytes")
      ->check(finite_at_least(0.1))
      ->capture_default_str();
  cmd.add_option_function<double>(
         "--memory-limit",
         [options](double gib) { options->memory_limit_bytes = static_cast<uint64_t>(gib * (1 << 30)); },
         "GiB the backend's process may hold in memory; over it, the case ends as `limit` (default: a "
         "quarter of "
         "this machine's memory; 0: none)")
      ->check(finite_at_least(0));
  cmd.add_option(
         "--cpu-limit", options->cpu_seconds_per_call,
         "CPU seconds one call may use over all its threads; over it, the case ends as `limit` (0: none)")
      ->check(finite_at_least(0))
      ->capture_default_str();
}

std::string absolute_spec(const std::string& spec) {
  if (!spec.starts_with("plugin:")) return spec;
  std::error_code ec;
  const fs::path p = fs::absolute(spec.substr(7), ec);
  return ec ? spec : "plugin:" + p.lexically_normal().string();
}

std::unique_ptr<Backend> Backends::open() const {
  std::string error;
  return backends::open(spec, isolation, &error);
}

std::optional<Backends> open_backends(const std::string& spec, const plugin::IsolationOptions& isolation) {
  Backends b;
  b.spec = absolute_spec(spec);
  b.isolation = isolation;
  std::string error;
  b.under_test = backends::open(b.spec, b.isolation, &error);
  if (!b.under_test) {
    std::cerr << "dmlcert: " << printable(error.empty() ? "cannot open backend '" + spec + "'" : error)
              << "\n";
    return std::nullopt;
  }
  b.isolated = b.spec.starts_with("plugin:") || b.spec.starts_with("isolated:");
  b.oracle = reference::make_oracle();
  return b;
}

CaseReport run_case(Runner& runner, const Case& c) {
  try {
    return runner.run(c);
  } catch (const std::exception& e) {
    CaseReport r;
    r.outcome = Outcome::Failed;
    r.detail = std::string("harness error: ") + e.what();
    return r;
  }
}

nlohmann::ordered_json report_json(const Case& c, const std::string& file, const CaseReport& r) {
  nlohmann::ordered_json j;
  j["case"] = c.name;
  j["file"] = file;
  j["outcome"] = name(r.outcome);
  j["class"] = name(r.case_class);
  j["expect"] = name(c.expect);
  // A case judged before the call (mistrusted, unimplemented, skipped) never reached the backend.
  j["status"] =
      r.executed ? nlohmann::ordered_json(name(r.exec.status)) : nlohmann::ordered_json("not-called");
  if (r.exec.fault != Fault::None) j["fault"] = name(r.exec.fault);
  if (!r.exec.message.empty()) j["message"] = r.exec.message;
  if (!r.detail.empty()) j["detail"] = r.detail;
  if (r.output) {
    const TensorDesc& out = *tensor(c.op, Role::OUTPUT);
    j["output"] = {{"type", name(out.type)}, {"sizes", out.sizes}, {"data", data_json(out.type, *r.output)}};
  }
  if (!r.exec.violations.empty()) {
    auto& vs = j["violations"] = nlohmann::ordered_json::array();
    for (const Violation& v : r.exec.violations) vs.push_back({{"rule", v.rule}, {"message", v.message}});
  }
  if (!r.exec.output_text.empty()) {
    j["backend_printed"] = r.exec.output_text;
    if (r.exec.output_dropped) j["backend_printed_dropped_bytes"] = r.exec.output_dropped;
  }
  return j;
}

void install_stop_handlers() {
  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  ::sigaction(SIGINT, &sa, nullptr);
  ::sigaction(SIGTERM, &sa, nullptr);
}

int stopped_exit_status() {
  return stop_requested() ? 128 + stop_signal() : 0;
}

}  // namespace dmlcert::cli

#include "cli_common.h"

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
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

// Every SIGINT or SIGTERM asks the run to stop and kills the isolation children; none exits on the
// spot, so that any number of them (GNU timeout sends one to dmlcert, then one to its group) still
// ends in reports written whole, marked incomplete. The first signal decides the exit status.
void on_stop_signal(int sig) {
  if (!stop_requested()) request_stop(sig);
  plugin::kill_all_children();
}

}  // namespace

int usage_error(std::string_view command, const std::string& message) {
  std::cerr << "dmlcert " << command << ": " << message << "\n";
  return kExitUsage;
}

void set_exit_status(int status) {
  g_exit_status = status;
}
int exit_status() {
  return g_exit_status;
}

std::string program_path() {
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  return ec ? std::string("dmlcert") : self.string();
}

bool writable_dir(const std::string& dir, bool create, std::string* why) {
  std::error_code ec;
  const fs::path target = fs::absolute(dir, ec);
  // The nearest ancestor that exists: what a probe made below it must be removed again.
  fs::path existing = target;
  while (!fs::exists(existing, ec) && existing.has_parent_path() && existing != existing.parent_path())
    existing = existing.parent_path();
  if (fs::exists(target, ec) && !fs::is_directory(target, ec)) {
    *why = "is not a directory";
    return false;
  }
  // Making the directory is the only sure test: permission bits say nothing about /proc, a
  // read-only mount or an ACL.
  fs::create_directories(target, ec);
  if (ec) {
    *why = "cannot be created: " + ec.message();
    return false;
  }
  bool ok = ::access(target.c_str(), W_OK | X_OK) == 0;
  if (!ok) *why = "cannot be written: " + std::string(std::strerror(errno));
  if (!create)
    for (fs::path p = target; p != existing && p.has_parent_path(); p = p.parent_path()) fs::remove(p, ec);
  return ok;
}

std::optional<engine::ReproDir> claim_repro_dir(std::string_view command, const std::string& dir) {
  std::string why;
  std::optional<engine::ReproDir> claimed = engine::ReproDir::claim(dir, &why);
  const std::string named = "dmlcert " + std::string(command) + ": --repro-dir '" + printable(dir, 200) + "'";
  if (!claimed)
    std::cerr << named << ": " << why << "\n";
  else if (!claimed->note().empty())
    std::cerr << named << " " << claimed->note() << "\n";
  return claimed;
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

std::optional<Backends> open_backends(const std::string& spec, const plugin::IsolationOptions& isolation,
                                      std::string* why) {
  Backends b;
  b.spec = absolute_spec(spec);
  b.isolation = isolation;
  std::string error;
  b.under_test = backends::open(b.spec, b.isolation, &error);
  if (!b.under_test) {
    if (error.empty()) error = "cannot open backend '" + spec + "'";
    if (why)
      *why = error;
    else
      std::cerr << "dmlcert: " << printable(error) << "\n";
    return std::nullopt;
  }
  b.isolated = b.spec.starts_with("plugin:") || b.spec.starts_with("isolated:");
  b.oracle = reference::make_oracle();
  return b;
}

engine::EngineOptions given_case_options(const Backends& backends, const RunOptions& run,
                                         const std::string& backend) {
  engine::EngineOptions o;
  o.backend_spec = backends.spec;
  o.backend_flags = isolation_flags(backends.isolation);
  o.program = program_path();
  o.run = run;
  o.run.oracle_is_under_test = backend == "reference";
  o.isolated = backends.isolated;
  o.in_flight = false;
  o.confirm = false;
  o.max_investigated_per_check = 0;
  return o;
}

bool run_plan(engine::Plan& plan, Backends& backends, const engine::EngineOptions& options) {
  std::unique_ptr<Backend> first = std::move(backends.under_test);
  const engine::BackendFactory open = [&]() -> std::unique_ptr<Backend> {
    return first ? std::move(first) : backends.open();
  };
  std::string error;
  if (engine::run(plan, open, *backends.oracle, options, &error)) return true;
  std::cerr << "dmlcert: " << printable(error) << "\n";
  return false;
}

nlohmann::ordered_json report_json(const Case& c, const std::string& file, const CaseReport& r,
                                   bool output_data) {
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
    j["output"] = {{"type", name(out.type)}, {"sizes", out.sizes}};
    if (output_data) j["output"]["data"] = data_json(out.type, *r.output);
  }
  if (!r.exec.violations.empty()) {
    auto& vs = j["violations"] = nlohmann::ordered_json::array();
    for (const Violation& v : r.exec.violations) vs.push_back({{"rule", v.rule}, {"message", v.message}});
  }
  if (!r.exec.interference.empty()) j["interference"] = r.exec.interference;
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

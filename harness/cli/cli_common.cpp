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
  cmd.add_option("--max-case-bytes", options->max_case_bytes,
                 "Skip, without allocating, a case whose buffers (all bindings about four times over: "
                 "the backend's, their pristine copies, the oracle's, the isolation child's) would "
                 "need more bytes than this")
      ->check(integer_in(1, UINT64_MAX))
      ->capture_default_str();
}

namespace {

// A number as the usage message and the repro lines print it: 0.1, 0.5, 1e+06.
std::string number_text(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

}  // namespace

CLI::Validator number_in(double min, double max) {
  const std::string range = "from " + number_text(min) + " to " + number_text(max);
  return CLI::Validator(
      [min, max, range](std::string& text) -> std::string {
        char* end = nullptr;
        errno = 0;
        const double v = std::strtod(text.c_str(), &end);
        // strtod also takes "nan", "inf" and "0x1p3"; only the finite decimal values in range pass.
        const bool decimal = text.find_first_not_of("0123456789.eE+-") == std::string::npos;
        if (text.empty() || !decimal || end != text.c_str() + text.size() || errno == ERANGE ||
            !std::isfinite(v) || v < min || v > max)
          return "'" + printable(text, 60) + "' is not a number " + range;
        return {};
      },
      "NUMBER " + range);
}

CLI::Validator integer_in(uint64_t min, uint64_t max) {
  const std::string range = "from " + std::to_string(min) + " to " + std::to_string(max);
  return CLI::Validator(
      [min, max, range](std::string& text) -> std::string {
        uint64_t v = 0;
        const char* end = text.data() + text.size();
        // Digits only: from_chars alone would take nothing else either, but say so for "-1" and "1e3".
        const auto [ptr, ec] = std::from_chars(text.data(), end, v);
        if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos || ec != std::errc() ||
            ptr != end || v < min || v > max)
          return "'" + printable(text, 60) + "' is not a whole number " + range;
        return {};
      },
      "INTEGER " + range);
}

bool parse_shard(const std::string& text, uint32_t* index, uint32_t* count, std::string* used) {
  std::string s = text;
  if (s.empty()) {
    // The GoogleTest sharding variables CI systems already set.
    const char* i = std::getenv("GTEST_SHARD_INDEX");
    const char* n = std::getenv("GTEST_TOTAL_SHARDS");
    if (!i || !n) {
      *index = 0, *count = 1;
      return true;
    }
    s = std::string(i) + "/" + n;
  }
  *used = s;
  const auto slash = s.find('/');
  if (slash == std::string::npos) return false;
  uint64_t i = 0, n = 0;
  const char* mid = s.data() + slash;
  const char* end = s.data() + s.size();
  // Digits only, so that "1/-1" is not taken as 1/4294967295, and n fits 32 bits, so that
  // "0/4294967296" does not wrap to a division by zero.
  const auto [pi, ei] = std::from_chars(s.data(), mid, i);
  const auto [pn, en] = std::from_chars(mid + 1, end, n);
  if (slash == 0 || slash + 1 == s.size() || s.find_first_not_of("0123456789/") != std::string::npos ||
      ei != std::errc() || en != std::errc() || pi != mid || pn != end || n == 0 || n > 0xFFFFFFFFull ||
      i >= n)
    return false;
  *index = static_cast<uint32_t>(i), *count = static_cast<uint32_t>(n);
  return true;
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

void add_isolation_options(CLI::App& cmd, plugin::IsolationOptions* options) {
  options->memory_limit_bytes = plugin::default_memory_limit();
  cmd.add_option("--timeout", options->floor_seconds,
                 "Seconds every call may take before it counts as a timeout; large cases get more in "
                 "proportion to their bytes")
      ->check(number_in(0.1, kMaxSeconds))
      ->capture_default_str();
  cmd.add_option_function<double>(
         "--memory-limit",
         [options](double gib) { options->memory_limit_bytes = static_cast<uint64_t>(gib * (1 << 30)); },
         "GiB the backend's process may hold in memory; over it, the case ends as `limit` (default: an "
         "eighth of this machine's memory, between 0.5 and 2 GiB; 0: none)")
      ->check(number_in(0, kMaxMemoryGib));
  cmd.add_option("--load-timeout", options->load_seconds,
                 "Seconds a backend process may take to load the backend and answer (a large library "
                 "takes seconds to load); past it, the backend did not start")
      ->check(number_in(0.1, kMaxSeconds))
      ->capture_default_str();
  cmd.add_option(
         "--cpu-limit", options->cpu_seconds_per_call,
         "CPU seconds one call may use over all its threads; over it, the case ends as `limit` (0: none)")
      ->check(number_in(0, kMaxSeconds))
      ->capture_default_str();
}

std::string isolation_flags(const plugin::IsolationOptions& options) {
  const plugin::IsolationOptions defaults;
  std::string flags;
  if (options.floor_seconds != defaults.floor_seconds)
    flags += " --timeout " + number_text(options.floor_seconds);
  if (options.memory_limit_bytes != plugin::default_memory_limit())
    flags += " --memory-limit " + number_text(static_cast<double>(options.memory_limit_bytes) / (1 << 30));
  if (options.load_seconds != defaults.load_seconds)
    flags += " --load-timeout " + number_text(options.load_seconds);
  if (options.cpu_seconds_per_call != defaults.cpu_seconds_per_call)
    flags += " --cpu-limit " + number_text(options.cpu_seconds_per_call);
  return flags;
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

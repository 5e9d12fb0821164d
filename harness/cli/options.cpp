#include "options.h"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include "dmlcert/text.h"

namespace dmlcert::cli {

std::string operator_list(std::string_view sep) {
  std::string out;
  for (OpKind op : all_ops()) {
    if (!out.empty()) out += sep;
    out += name(op);
  }
  return out;
}

void add_backend_option(CLI::App& cmd, std::string* spec) {
  cmd.add_option("--backend,-b", *spec,
                 "The backend under test: reference, optimized, plugin:/path/to/libbackend.so (run in a "
                 "child process behind guard pages), or isolated:reference / isolated:optimized (a "
                 "built-in run the same way)")
      ->capture_default_str();
}

void add_fp16_accumulation_option(CLI::App& cmd, AccumulationProfile* profile) {
  cmd.add_option_function<std::string>(
         "--fp16-accumulation",
         [profile](const std::string& v) {
           *profile = v == "float16" ? AccumulationProfile::Relaxed : AccumulationProfile::Default;
         },
         "The accumulation precision FLOAT16 reductions are judged by: float32 (the default profile) or "
         "float16 (the relaxed profile, with wider error bounds)")
      ->check(CLI::IsMember({"float32", "float16"}))
      ->default_str("float32");
}

void add_run_options(CLI::App& cmd, RunOptions* options) {
  add_fp16_accumulation_option(cmd, &options->profile);
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

void add_isolation_options(CLI::App& cmd, plugin::IsolationOptions* options) {
  options->memory_limit_bytes = plugin::default_memory_limit();
  cmd.add_option("--timeout", options->floor_seconds,
                 "Seconds every call may take before it counts as a timeout; large cases get more in "
                 "proportion to their bytes, and time the backend's process waited for a CPU on a busy "
                 "machine does not count (up to 4 times the deadline in all)")
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

void add_ops_option(CLI::App& cmd, std::vector<OpKind>* ops, const std::string& description) {
  const CLI::Validator known(
      [](std::string& word) -> std::string {
        if (parse_op(word)) return {};
        return "unknown operator '" + printable(word, 60) + "' (expected one of " + operator_list(", ") + ")";
      },
      "OPERATOR");
  cmd.add_option_function<std::vector<std::string>>(
         "--ops",
         [ops](const std::vector<std::string>& words) {
           ops->clear();
           for (const std::string& w : words) ops->push_back(*parse_op(w));
         },
         description + " (" + operator_list(",") + ")")
      ->delimiter(',')
      ->check(known);
}

void add_level_option(CLI::App& cmd, std::optional<FeatureLevel>* level, const std::string& description) {
  const CLI::Validator known(
      [](std::string& text) -> std::string {
        if (parse_feature_level(text)) return {};
        return "unknown feature level '" + printable(text, 60) + "' (expected 1_0 ... 6_4)";
      },
      "LEVEL");
  auto* option =
      cmd.add_option_function<std::string>(
             "--level", [level](const std::string& text) { *level = parse_feature_level(text); }, description)
          ->check(known);
  if (*level) option->default_str(std::string(name(**level)));
}

void add_seed_option(CLI::App& cmd, uint64_t* seed, const std::string& description) {
  cmd.add_option("--seed", *seed, description)->check(integer_in(0, UINT64_MAX))->capture_default_str();
}

unsigned default_jobs() {
  return std::max(1u, std::thread::hardware_concurrency());
}

void add_jobs_option(CLI::App& cmd, unsigned* jobs, const std::string& description) {
  cmd.add_option("--jobs,-j", *jobs, description)->check(integer_in(1, 256))->capture_default_str();
}

void add_repro_dir_option(CLI::App& cmd, std::string* dir, const std::string& description) {
  cmd.add_option("--repro-dir", *dir, description)->capture_default_str();
}

}  // namespace dmlcert::cli

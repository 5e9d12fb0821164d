#include "cli_common.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>

namespace dmlcert::cli {
namespace {

int g_exit_status = kExitPassed;

// Quotes a word for a POSIX shell when it needs it.
std::string shell_word(const std::string& s) {
  const bool plain = !s.empty() && s.find_first_not_of(
                                       "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                       "0123456789_-./:=+,@%") == std::string::npos;
  if (plain) return s;
  std::string q = "'";
  for (char ch : s) q += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  return q + "'";
}

// The shortest decimal that reads back (through double, then one rounding to T) as v.
template <class T>
double shortest(T v) {
  char buf[64];
  for (int digits = 1; digits <= 17; ++digits) {
    std::snprintf(buf, sizeof buf, "%.*g", digits, static_cast<double>(v));
    const double d = std::strtod(buf, nullptr);
    T back;
    if constexpr (std::is_same_v<T, half>)
      back = round_to_half(d);
    else
      back = static_cast<T>(d);
    if (std::memcmp(&back, &v, sizeof(T)) == 0) return d;
  }
  return static_cast<double>(v);
}

template <class T>
bool is_default_quiet_nan(const std::byte* p) {
  const T canonical = std::numeric_limits<T>::quiet_NaN();
  return std::memcmp(&canonical, p, sizeof(T)) == 0;
}

}  // namespace

void set_exit_status(int status) {
  g_exit_status = status;
}
int exit_status() {
  return g_exit_status;
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

bool fails_run(Outcome o) {
  return o != Outcome::Passed && o != Outcome::Unimplemented && o != Outcome::Skipped;
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

std::optional<Backends> open_backends(const std::string& spec) {
  Backends b;
  std::string error;
  b.reference = make_backend("reference", &error);
  if (!b.reference) {
    std::cerr << "dmlcert: cannot make the reference backend: " << error << "\n";
    return std::nullopt;
  }
  if (spec == "reference") return b;
  b.owned_under_test = make_backend(spec, &error);
  if (!b.owned_under_test) {
    if (spec == "optimized")
      std::cerr << "dmlcert: the optimized backend is not built into this dmlcert; use --backend reference "
                   "or --backend plugin:/path/to/libbackend.so\n";
    else
      std::cerr << "dmlcert: " << (error.empty() ? "cannot make backend '" + spec + "'" : error) << "\n";
    return std::nullopt;
  }
  return b;
}

nlohmann::ordered_json logical_data_json(DataType type, const Bytes& logical) {
  nlohmann::ordered_json data = nlohmann::ordered_json::array();
  const size_t es = element_size(type);
  for (size_t off = 0; off + es <= logical.size(); off += es) {
    const std::byte* p = logical.data() + off;
    dispatch(type, [&](auto tag) {
      using T = typename decltype(tag)::type;
      const T v = load<T>(p);
      if constexpr (is_float_v<T>) {
        const double d = static_cast<double>(v);
        if (std::isnan(d)) {
          if (is_default_quiet_nan<T>(p)) {
            data.push_back("nan");
          } else {
            uint64_t bits = 0;
            std::memcpy(&bits, p, sizeof(T));
            char buf[24];
            std::snprintf(buf, sizeof buf, "0x%0*llX", static_cast<int>(2 * sizeof(T)),
                          static_cast<unsigned long long>(bits));
            data.push_back(buf);
          }
        } else if (std::isinf(d)) {
          data.push_back(d > 0 ? "inf" : "-inf");
        } else {
          data.push_back(shortest(v));
        }
      } else {
        data.push_back(v);
      }
    });
  }
  return data;
}

nlohmann::ordered_json report_json(const Case& c, const std::string& file, const CaseReport& r) {
  nlohmann::ordered_json j;
  j["case"] = c.name;
  j["file"] = file;
  j["outcome"] = name(r.outcome);
  j["class"] = name(r.case_class);
  j["expect"] = name(c.expect);
  j["status"] = name(r.exec.status);
  if (r.exec.fault != Fault::None) j["fault"] = name(r.exec.fault);
  if (!r.exec.message.empty()) j["message"] = r.exec.message;
  if (!r.detail.empty()) j["detail"] = r.detail;
  if (r.output) {
    const TensorDesc& out = *tensor(c.op, Role::OUTPUT);
    j["output"] = {
        {"type", name(out.type)}, {"sizes", out.sizes}, {"data", logical_data_json(out.type, *r.output)}};
  }
  if (!r.exec.violations.empty()) {
    auto& vs = j["violations"] = nlohmann::ordered_json::array();
    for (const Violation& v : r.exec.violations) vs.push_back({{"rule", v.rule}, {"message", v.message}});
  }
  return j;
}

std::string reproduce_command(const std::string& file, const std::string& backend,
                              const std::string& case_name) {
  std::string cmd = "dmlcert run " + shell_word(file) + " --backend " + shell_word(backend);
  if (!case_name.empty()) cmd += " --case " + shell_word(case_name);
  return cmd;
}

}  // namespace dmlcert::cli

// dmlcert certify: certifies a backend at a feature level (DESIGN.md, "Certification of a plugin
// backend"); prints the support matrix and writes the reports.
#include <cstdlib>
#include <iostream>

#include "certify_engine.h"
#include "cli_common.h"
#include "commands.h"
#include "report_files.h"

namespace dmlcert::cli {
namespace {

struct CertifyArgs {
  CertifyOptions options;
  std::string level = "5_0", budget = "quick", shard, ops;
  ReportFiles files;
};

// "i/n", or GTEST_SHARD_INDEX / GTEST_TOTAL_SHARDS when --shard is absent.
std::optional<cert::Shard> parse_shard(const std::string& text) {
  std::string s = text;
  if (s.empty()) {
    const char* index = std::getenv("GTEST_SHARD_INDEX");
    const char* total = std::getenv("GTEST_TOTAL_SHARDS");
    if (!index || !total) return cert::Shard{0, 1};
    s = std::string(index) + "/" + total;
  }
  unsigned i = 0, n = 0;
  char extra;
  if (std::sscanf(s.c_str(), "%u/%u%c", &i, &n, &extra) != 2 || n == 0 || i >= n) return std::nullopt;
  return cert::Shard{i, n};
}

int certify(CertifyArgs& a) {
  CertifyOptions& o = a.options;
  auto level = parse_feature_level(a.level);
  auto budget = budget_named(a.budget);
  auto shard = parse_shard(a.shard);
  if (!level || !budget || !shard) {
    std::cerr << "dmlcert certify: "
              << (!level    ? "unknown level " + a.level
                  : !budget ? "unknown budget " + a.budget
                            : "bad --shard " + a.shard + " (expected i/n with i < n)")
              << "\n";
    return kExitUsage;
  }
  o.level = *level, o.budget = *budget, o.shard = *shard;
  for (size_t start = 0; start < a.ops.size();) {
    size_t end = a.ops.find(',', start);
    std::string word = a.ops.substr(start, end == std::string::npos ? std::string::npos : end - start);
    auto op = parse_op(word);
    if (!op) {
      std::cerr << "dmlcert certify: unknown operator '" << word << "'\n";
      return kExitUsage;
    }
    o.ops.push_back(*op);
    start = end == std::string::npos ? a.ops.size() : end + 1;
  }
  std::string error;
  auto report = run_certification(o, &error);
  if (!report) {
    std::cerr << "dmlcert certify: " << error << "\n";
    return kExitUsage;
  }
  std::cout << cert::to_text(*report);
  if (!write_reports(*report, a.files)) return kExitFailed;
  if (o.shard.count > 1) {
    // A shard alone cannot certify; it passes when nothing it ran failed or was unimplemented.
    bool clean = report->failures.empty();
    for (const auto& c : report->cells) clean &= cert::status(c.counts) != Outcome::Unimplemented;
    return clean ? kExitPassed : kExitFailed;
  }
  return cert::certified(*report) ? kExitPassed : kExitFailed;
}

}  // namespace

void add_certify_command(CLI::App& app) {
  auto args = std::make_shared<CertifyArgs>();
  CLI::App* cmd = app.add_subcommand(
      "certify",
      "Certify a backend at a feature level: replay the corpus, run valid cases for every "
      "support-table cell (exact and random data), invalid cases for every rule, unspecified "
      "cases for every U rule and out-of-range index cases. Every call runs in an isolation "
      "child process with guarded buffers, so crashes, hangs and out-of-bounds accesses are "
      "reported per case. Each case is written to the repro directory before the call and kept "
      "(with a shrunk copy) when it fails. Prints the support matrix; exit status 0 only when "
      "the backend is certified.");
  CertifyOptions& o = args->options;
  add_backend_option(*cmd, &o.backend);
  cmd->add_option("--level", args->level, "Feature level to certify (1_0 ... 6_4)")->capture_default_str();
  cmd->add_option("--budget", args->budget, "quick (about a minute), standard or thorough")
      ->check(CLI::IsMember({"quick", "standard", "thorough"}))
      ->capture_default_str();
  cmd->add_option("--shard", args->shard,
                  "i/n: run only shard i of n (default: GTEST_SHARD_INDEX/GTEST_TOTAL_SHARDS, else all); "
                  "merge the shards' JSON reports with `dmlcert merge`");
  cmd->add_option("--timeout", o.timeout_seconds, "Seconds one call may take before it counts as a TIMEOUT")
      ->capture_default_str();
  cmd->add_option("--repro-dir", o.repro_dir, "Where case files of failures are kept")->capture_default_str();
  cmd->add_option("--corpus", o.corpus,
                  "Corpus directory to replay (default: DMLCERT_CORPUS, the installed or "
                  "source corpora/)");
  cmd->add_option("--ops", args->ops,
                  "Comma-separated operators to certify (default: all), e.g. SLICE,REDUCE");
  cmd->add_option("--seed", o.seed, "Mixed into every case's seed")->capture_default_str();
  cmd->add_option("--stop-after-failures", o.stop_after_failures,
                  "Stop after N failures (0: run everything); the report's totals then count the cases "
                  "run up to the last failure")
      ->capture_default_str();
  cmd->add_option("--report", args->files.json, "Write the JSON report (mergeable across shards)");
  cmd->add_option("--junit", args->files.junit,
                  "Write a JUnit XML report (one testcase per cell and per rule)");
  cmd->add_option("--markdown", args->files.markdown, "Write a Markdown report");
  cmd->add_option("--html", args->files.html, "Write a self-contained HTML report with the coloured matrix");
  cmd->footer(kExitStatusHelp);
  cmd->callback([args] { set_exit_status(certify(*args)); });
}

}  // namespace dmlcert::cli

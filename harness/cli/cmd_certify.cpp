// dmlcert certify: certifies a backend at a feature level (docs/design.md, "Certification") on the
// engine (harness/engine/certify.h); prints the support matrix and writes the reports.
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <iostream>

#include "certify.h"
#include "cli_common.h"
#include "commands.h"
#include "dmlcert/interrupt.h"
#include "dmlcert/text.h"
#include "expectations.h"
#include "failure_printer.h"
#include "plugin/containment.h"
#include "progress.h"
#include "registry.h"
#include "report_files.h"
#include "report_summary.h"
#include "repro_dir.h"

namespace dmlcert::cli {
namespace {

namespace fs = std::filesystem;

struct CertifyArgs {
  std::string backend = "optimized";
  std::optional<FeatureLevel> level = FeatureLevel::L5_0;
  std::string budget = "quick", shard, corpus;
  std::vector<OpKind> ops;
  std::string repro_dir = "dmlcert-repros";
  uint64_t seed = 0;
  int stop_after_failures = 0;
  unsigned jobs = default_jobs();
  int max_timeouts = 10;
  bool flaky_fails = false;
  bool unexpected_passes_fail = false;
  double time_limit = -1;  // not given: the budget's time bound
  std::string expect;
  AccumulationProfile profile = AccumulationProfile::Default;
  plugin::IsolationOptions isolation;
  ReportFiles files;
};

int certify(CertifyArgs& a) {
  engine::CertifyOptions o;
  if (!parse_shard(a.shard, &o.shard.index, &o.shard.count, &a.shard))
    return usage_error("certify",
                       "--shard '" + printable(a.shard, 60) + "' is not i/n with 0 <= i < n <= 4294967295");
  o.level = *a.level, o.budget = *engine::budget_named(a.budget), o.seed = a.seed, o.jobs = a.jobs;
  o.ops = a.ops;
  o.stop_after_failures = a.stop_after_failures;
  o.max_timeouts = a.max_timeouts;
  o.flaky_fails = a.flaky_fails;
  o.time_limit_is_budgets = a.time_limit < 0;
  o.time_limit_seconds = o.time_limit_is_budgets ? o.budget.time_bound_seconds : a.time_limit;
  // Everything that can be checked before the first case: the corpus, the repro directory, the
  // report files (docs/design.md, "The command").
  std::string corpus_dir = a.corpus;
  if (std::error_code ec; !corpus_dir.empty() && !fs::is_directory(corpus_dir, ec))
    return usage_error("certify", "--corpus '" + printable(corpus_dir, 200) + "' is not a directory" +
                                      (fs::exists(corpus_dir, ec) ? "" : " (it does not exist)"));
  const std::optional<engine::ReproDir> repro_dir = claim_repro_dir("certify", a.repro_dir);
  if (!repro_dir) return kExitUsage;
  if (std::string why; !can_write_reports(a.files, &why)) return usage_error("certify", why);
  std::optional<cert::Expectations> expectations;
  if (!a.expect.empty()) {
    std::string why;
    expectations = cert::load_expectations(a.expect, &why);
    if (!expectations) return usage_error("certify", "--expect: " + why);
  }
  // Failures it already expects are reported, not investigated: no fresh process confirms,
  // bisects or shrinks them.
  if (expectations)
    o.engine.known = [&expectations, today = cert::today_utc()](const cert::Failure& f) {
      return cert::expects(*expectations, f, today);
    };
  // Known failures are held against every report the run writes, its last one included.
  auto finish_report = [&](cert::Report& report) {
    if (expectations) {
      report.expectations = cert::check_expectations(*expectations, report, cert::today_utc());
      report.expectations->unexpected_passes_fail = a.unexpected_passes_fail;
    }
  };
#ifdef DMLCERT_SOURCE_CORPUS_DIR
  if (corpus_dir.empty()) corpus_dir = engine::find_corpus(DMLCERT_SOURCE_CORPUS_DIR);
#else
  if (corpus_dir.empty()) corpus_dir = engine::find_corpus();
#endif
  if (corpus_dir.empty()) {
    std::cerr << "dmlcert certify: no corpus found (set --corpus or DMLCERT_CORPUS); the corpus replay is "
                 "skipped\n";
  } else {
    LoadedCases loaded = load_cases({corpus_dir});
    for (const CaseError& e : loaded.errors)
      std::cerr << "dmlcert certify: corpus: " << e.to_string() << "\n";
    o.corpus = std::move(loaded.cases);
  }

  // Built-ins and plugins alike run in the isolation child, behind guard pages.
  std::string spec = a.backend;
  if (!spec.starts_with("plugin:") && !spec.starts_with("isolated:")) spec = "isolated:" + spec;
  std::string open_error;
  auto backends = open_backends(spec, a.isolation, &open_error);
  if (!backends) {
    std::cerr << "dmlcert certify: " << printable(open_error, 2000) << "\n";
    // A plugin that is there but does not load (it crashed, hung or refused in
    // dmlcert_get_backend) is the backend failing its certification: a report says so.
    std::error_code ec;
    if (!spec.starts_with("plugin:") || !fs::is_regular_file(spec.substr(7), ec)) return kExitUsage;
    o.backend = absolute_spec(spec);
    cert::Report report = engine::stopped_report(
        o, "", stop_requested() ? engine::interruption() : "the backend could not be loaded: " + open_error);
    finish_report(report);
    std::cout << cert::to_text(report);
    if (!write_reports(report, a.files)) return kExitUsage;
    return kExitFailed;
  }
  o.backend = backends->spec;
  o.containment = plugin::containment().statement;
  o.engine.backend_spec = backends->spec;
  // A repro judges as the run did: the profile travels with the backend's flags.
  o.engine.backend_flags = isolation_flags(backends->isolation) +
                           (a.profile == AccumulationProfile::Relaxed ? " --fp16-accumulation float16" : "");
  o.engine.run.profile = a.profile;
  o.engine.program = program_path();
  o.engine.repro_dir = repro_dir->path();
  o.engine.isolated = true;
  // No cap on bindings below the case's footprint (--max-case-bytes, checked before anything is
  // allocated): the huge items of every budget bind outputs of 56 MiB, past the caches. An invalid
  // case that declares a huge TotalTensorSizeInBytes still binds at most kInvalidCaseBindingCap
  // (case_buffers.h) and is rejected without its declared bytes being touched.
  o.engine.run.max_buffer_bytes = o.engine.run.max_case_bytes;
  o.engine.hang_shrink_seconds = 6 * a.isolation.floor_seconds;
  // A timeout runs again alone with longer deadlines before it counts (docs/design.md, "Isolation", Hangs).
  plugin::IsolationOptions patient = backends->isolation;
  patient.floor_seconds *= engine::kRetryStretch;
  patient.bytes_per_second /= engine::kRetryStretch;
  o.engine.patient = [spec = backends->spec, patient]() -> std::unique_ptr<Backend> {
    std::string error;
    return backends::open(spec, patient, &error);
  };
  Progress progress("certify");
  engine::FailurePrinter printer([&](const std::string& block) { progress.print(block); });
  o.engine.listeners.push_back(&printer);
  o.engine.on_progress = [&](uint64_t done, uint64_t total, uint64_t failures, double elapsed) {
    // Too early to tell before 1% has run: a backend that hangs in its first calls would show a
    // wait of days, though the run stops after a few timeouts.
    const double left = done > 0 && done * 100 >= total
                            ? elapsed / static_cast<double>(done) * static_cast<double>(total - done)
                            : -1;
    progress.update(done, total, failures, elapsed, left);
  };
  // A run that is killed from outside (a CI time limit) leaves the report so far behind.
  o.on_checkpoint = [&](const cert::Report& so_far) {
    cert::Report marked = so_far;
    finish_report(marked);
    // The code coverage is the whole run's, written once at its end.
    ReportFiles during = a.files;
    during.coverage_lcov.clear(), during.coverage_html.clear();
    write_reports(marked, during, /*quiet=*/true);
  };
  // The backend opened above serves the run; confirmations open fresh ones.
  std::unique_ptr<Backend> first = std::move(backends->under_test);
  const Backends& opened = *backends;
  // From here on, the time bound ends whatever is under way: a call, a confirmation, a shrink.
  set_run_time_bound(o.time_limit_seconds);
  std::string error;
  auto report = engine::run_certification(
      o, [&]() -> std::unique_ptr<Backend> { return first ? std::move(first) : opened.open(); },
      *opened.oracle, &error);
  progress.finish();
  if (!report) return usage_error("certify", error);
  finish_report(*report);
  std::cout << cert::to_text(*report);
  if (!write_reports(*report, a.files)) return kExitUsage;
  if (const int stopped = stopped_exit_status()) return stopped;
  if (o.shard.count > 1)  // a shard alone cannot certify; it passes when nothing it ran failed
    return cert::missing_cells(*report).empty() && cert::failing_keys(*report).empty()
               ? kExitPassed
               : cert::exit_status(*report);
  return cert::exit_status(*report);
}

}  // namespace

void add_certify_command(CLI::App& app) {
  auto [cmd, args] = add_command<CertifyArgs>(
      app, "certify",
      "Certify a backend at a feature level: replay the corpus, run valid cases for every "
      "support-table cell (exact and random data), invalid cases for every rule, unspecified "
      "cases for every U rule and out-of-range index cases. Every call runs in an isolation "
      "child process with guarded buffers, so crashes, hangs, out-of-bounds accesses, late writes "
      "and runaway memory are reported per case. A failing case is saved, confirmed alone in a "
      "fresh process, shrunk, and printed with the command that reproduces it (the first two of "
      "each cell or rule check; later ones are saved and reported). Prints the support matrix.",
      certify, kCertifyExitStatusHelp);
  add_backend_option(*cmd, &args->backend);
  add_level_option(*cmd, &args->level, "Feature level to certify (1_0 ... 6_4)");
  cmd->add_option("--budget", args->budget,
                  "How many cases: quick (about 128,000; 35 s on two cores), standard (about 730,000; "
                  "under three minutes), thorough (3.5 million; about fifteen minutes), or smoke (8,000 in "
                  "seconds, for the tests of a CI pipeline)")
      ->check(CLI::IsMember({"smoke", "quick", "standard", "thorough"}))
      ->capture_default_str();
  cmd->add_option("--shard", args->shard,
                  "i/n: run only shard i of n (default: GTEST_SHARD_INDEX/GTEST_TOTAL_SHARDS, else all); "
                  "merge the shards' JSON reports with `dmlcert merge`");
  add_isolation_options(*cmd, &args->isolation);
  add_fp16_accumulation_option(*cmd, &args->profile);
  cmd->add_option("--max-timeouts", args->max_timeouts,
                  "Stop calling the backend after this many timeouts in the run (0: never). After a "
                  "timeout the rest of its cell or rule check is not run, after 3 in one operator the "
                  "rest of that operator; the report marks every case not run and why")
      ->check(integer_in(0, 1 << 30))
      ->capture_default_str();
  cmd->add_flag("--flaky-fails", args->flaky_fails,
                "Count flaky cases against the verdict. A timeout runs again alone in a fresh process "
                "with 4 times its deadline before it counts, and a wrong result that comes back neither "
                "alone nor after the cases before it is not a failure either: each is reported as flaky, "
                "by name, in every report, and by default does not fail the run");
  cmd->add_option("--time-limit", args->time_limit,
                  "Stop after this many seconds and write the reports, marked incomplete, saying what did "
                  "not run (0: no limit). Default: the budget's time bound, whatever the backend does: "
                  "smoke 120 s, quick 540 s, standard 1800 s, thorough 7200 s. The reports are also "
                  "rewritten every 10 s while the run goes on")
      ->check(number_in(0, kMaxDurationSeconds));
  add_repro_dir_option(*cmd, &args->repro_dir, "Where case files of failures are kept");
  cmd->add_option("--corpus", args->corpus,
                  "Corpus directory to replay (default: DMLCERT_CORPUS, the installed or source corpora/)");
  add_ops_option(*cmd, &args->ops, "Comma-separated operators to certify (default: all)");
  add_seed_option(*cmd, &args->seed, "Mixed into every case's seed");
  add_jobs_option(*cmd, &args->jobs,
                  "Parallel workers, each a shard of the run with a backend process of its own, their "
                  "results merged into one report (default: the cores; 1 with --stop-after-failures)");
  cmd->add_option("--stop-after-failures", args->stop_after_failures,
                  "Stop after N failures (0: run everything); the report's totals then count the cases "
                  "run up to the last failure. One worker runs, so that the order is always the same")
      ->check(integer_in(0, 1 << 30))
      ->capture_default_str();
  cmd->add_option(
      "--expect", args->expect,
      "Known failures: a file of `KEY-PATTERN [status=S] [expires=YYYY-MM-DD] REASON` lines (cell "
      "keys such as REDUCE.SUM/input/FLOAT16/r3, rule checks such as invalid/SLICE1.WINDOW_BOUNDS, "
      "corpus/CASE, `*` for any text) and `cause \"NAME\" [status=S] ...` lines (a cause as the "
      "reports name it, whichever cells it fails: what `dmlcert baseline REPORT.json` writes), "
      "S one of fail, crash, flaky, either (the default); or an earlier JSON report, read as "
      "its baseline. Known failures do not fail the run and print as known, new ones do, "
      "entries that now pass are reported, expired entries fail");
  cmd->add_flag("--unexpected-passes-fail", args->unexpected_passes_fail,
                "With --expect: an entry that covers no failure (its bug is fixed, or no longer found) "
                "fails the run, so that the list is kept to what still fails");
  add_report_options(*cmd, &args->files);
}

}  // namespace dmlcert::cli

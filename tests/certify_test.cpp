// `dmlcert certify` against plugins that misbehave in one way each (tests/plugins/): the run
// finishes in bounded time, blames exactly the right cells (every other cell passes), keeps its
// own output readable, writes its report, leaves no process behind, and its repro files replay.
// Also: a run stopped by SIGINT or killed from outside still leaves a report, and shard reports
// merge to the unsharded totals.
#include "certify.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <thread>

#include "report_summary.h"
#include "scratch_dir.h"

extern char** environ;

namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;
using Clock = std::chrono::steady_clock;

struct Command {
  int exit_code = -1;
  std::string out, err;
  double seconds = 0;
};

fs::path scratch(const std::string& name) {
  return dmlcert::test::scratch_dir("certify_test_" + name);
}

std::string slurp(const fs::path& p) {
  std::stringstream s;
  s << std::ifstream(p).rdbuf();
  return s.str();
}

// Runs `dmlcert ARGS` (or any command line) with its output in files under dir. Killed after 5
// minutes, so that a run that never ends (a dmlcert stopped by a signal, say) fails its test
// instead of hanging the suite.
Command run_in(const fs::path& dir, const std::string& command_line) {
  const auto start = Clock::now();
  const int raw = std::system(("cd " + dir.string() + " && timeout -k 5 300 " + command_line + " >" +
                               (dir / "stdout.txt").string() + " 2>" + (dir / "stderr.txt").string())
                                  .c_str());
  Command c;
  c.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  c.exit_code = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  c.out = slurp(dir / "stdout.txt");
  c.err = slurp(dir / "stderr.txt");
  return c;
}
Command dmlcert(const fs::path& dir, const std::string& args) {
  return run_in(dir, std::string(DMLCERT_CLI) + " " + args);
}

json read_json(const fs::path& p) {
  std::ifstream in(p);
  return json::parse(in);
}

// Processes still running whose command line names `needle` (a plugin's path): an isolation
// child, or anything it forked, that outlived the run. Waits up to a second for them to go.
std::vector<std::string> survivors(const std::string& needle) {
  std::vector<std::string> found;
  for (int attempt = 0; attempt < 20; ++attempt) {
    found.clear();
    for (const auto& entry : fs::directory_iterator("/proc")) {
      const std::string pid = entry.path().filename();
      if (pid.find_first_not_of("0123456789") != std::string::npos) continue;
      std::string cmdline = slurp(entry.path() / "cmdline");
      std::replace(cmdline.begin(), cmdline.end(), '\0', ' ');
      if (cmdline.find(needle) != std::string::npos) found.push_back(pid + ": " + cmdline);
    }
    if (found.empty()) return found;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return found;
}

// A copy of the plugin in the test's own directory: its path names this test's processes alone,
// whatever other tests run beside it.
std::string own_copy(const fs::path& dir, const std::string& plugin) {
  const fs::path copy = dir / fs::path(plugin).filename();
  fs::copy_file(plugin, copy, fs::copy_options::overwrite_existing);
  return copy.string();
}

std::string certify_args(const fs::path& dir, const std::string& plugin, const std::string& args) {
  // An empty corpus: the generated cases do the catching, and the run stays short.
  fs::create_directories(dir / "no-corpus");
  return "certify --backend plugin:" + plugin + " " + args + " --budget smoke --corpus " +
         (dir / "no-corpus").string() + " --repro-dir " + (dir / "repros").string() + " --report " +
         (dir / "report.json").string() + " --junit " + (dir / "junit.xml").string() + " --html " +
         (dir / "report.html").string();
}

struct PluginRun {
  Command command;
  json report;
  fs::path dir;
};

struct MisbehaviourRow {
  std::string name;
  std::string plugin;
  std::string args;  // level, operators, limits
  int exit_code = 1;
  // The status every support-table cell must end with (a regular expression: "passed",
  // "timeout|stopped").
  std::function<std::string(const json& cell)> cell_status;
  double max_seconds = 90;
  std::function<void(const PluginRun&)> more;  // what else this misbehaviour must leave behind
  bool replays = true;                         // the first failure's repro fails again, alone
};

std::ostream& operator<<(std::ostream& os, const MisbehaviourRow& r) {
  return os << r.name;
}

class CertifyMisbehaviour : public testing::TestWithParam<MisbehaviourRow> {};

TEST_P(CertifyMisbehaviour, EndsInBoundedTimeBlamingExactlyTheAffectedCells) {
  const MisbehaviourRow& m = GetParam();
  PluginRun run;
  run.dir = scratch(m.name);
  const std::string plugin = own_copy(run.dir, m.plugin);
  run.command = dmlcert(run.dir, certify_args(run.dir, plugin, m.args));
  const Command& c = run.command;
  EXPECT_EQ(c.exit_code, m.exit_code) << c.out << c.err.substr(0, 4000);
  EXPECT_LT(c.seconds, m.max_seconds) << "hangs and runaways must cost seconds, not hours";
  EXPECT_TRUE(survivors(plugin).empty()) << "a process outlived dmlcert";
  ASSERT_TRUE(fs::exists(run.dir / "report.json")) << c.out << c.err.substr(0, 4000);
  EXPECT_TRUE(fs::exists(run.dir / "junit.xml"));
  EXPECT_TRUE(fs::exists(run.dir / "report.html"));
  run.report = read_json(run.dir / "report.json");
  EXPECT_EQ(run.report["certified"].get<bool>(), m.exit_code == 0);

  for (const json& cell : run.report["cells"]) {
    const std::string status = cell["status"].get<std::string>(), want = m.cell_status(cell);
    EXPECT_TRUE(std::regex_match(status, std::regex(want)))
        << cell["key"].get<std::string>() << " is " << status << ", expected " << want;
    if (status == "stopped") {
      EXPECT_FALSE(cell["not_run"]["reason"].get<std::string>().empty());
    }
  }
  if (m.more) m.more(run);

  // The first failure of a case (a robustness check's has no case file) replays: it fails on the
  // plugin the same way, and passes on the reference.
  const auto first = std::find_if(run.report["failures"].begin(), run.report["failures"].end(),
                                  [](const json& f) { return !f["reproduce"].get<std::string>().empty(); });
  if (!m.replays || first == run.report["failures"].end()) return;
  const json& f = *first;
  const fs::path replay_dir = run.dir / "replay";
  fs::create_directories(replay_dir);
  const Command again = run_in(replay_dir, f["reproduce"].get<std::string>());
  EXPECT_EQ(again.exit_code, 1) << f["reproduce"] << "\n" << again.out;
  EXPECT_NE(again.out.find("\"outcome\": \"" + f["outcome"].get<std::string>() + "\""), std::string::npos)
      << again.out;
  EXPECT_EQ(dmlcert(replay_dir, "run " + f["repro"].get<std::string>() + " --backend reference").exit_code,
            0);
}

std::function<std::string(const json&)> where(std::function<bool(const json&)> affected, std::string bad,
                                              std::string good = "passed") {
  return [=](const json& cell) { return affected(cell) ? bad : good; };
}
bool op_is(const json& cell, const char* op) {
  return cell["op"] == op;
}
std::function<std::string(const json&)> everywhere(std::string status) {
  return [=](const json&) { return status; };
}
int input_rank(const std::string& case_file) {
  return static_cast<int>(read_json(case_file)["tensors"]["input"]["sizes"].size());
}
bool some_cell_is(const PluginRun& run, const std::string& status) {
  for (const json& cell : run.report["cells"])
    if (cell["status"] == status) return true;
  return false;
}
// The status of the robustness check BACKEND.DESTROY, or "not checked".
std::string destroy_status(const PluginRun& run) {
  for (const json& rule : run.report["rules"])
    if (rule["rule"] == "BACKEND.DESTROY") return rule["status"];
  return "not checked";
}
bool some_failure_says(const PluginRun& run, const std::string& text) {
  for (const json& f : run.report["failures"])
    if (f["detail"].get<std::string>().find(text) != std::string::npos) return true;
  return false;
}
// The status of a robustness check, or "not checked".
std::string robustness_status(const PluginRun& run, const std::string& check) {
  for (const json& rule : run.report["rules"])
    if (rule["rule"] == check && rule["section"] == "robustness") return rule["status"];
  return "not checked";
}
// Every failure a late write of a rank-2 case, some of them confirmed alone.
void expect_late_writes_of_rank_2(const PluginRun& run) {
  ASSERT_FALSE(run.report["failures"].empty());
  int confirmed = 0;
  for (const json& f : run.report["failures"]) {
    if (f["where"].get<std::string>().starts_with("robustness/")) continue;
    EXPECT_EQ(f["outcome"], "late-write") << f["detail"];
    EXPECT_EQ(input_rank(f["repro"]), 2) << f["where"] << " was blamed";
    const std::string c = f["confirmation"];
    EXPECT_TRUE(c == "reproduced alone" || c == "unchecked") << f["where"] << ": " << c;
    confirmed += c == "reproduced alone";
  }
  EXPECT_GT(confirmed, 0) << "no late write was confirmed alone";
}
// No cause (report_summary.h: operator or rule check, outcome, kind of detail) is confirmed,
// bisected or shrunk in fresh processes more than twice (EngineOptions::cause).
void expect_each_cause_investigated_at_most_twice(const PluginRun& run) {
  std::map<std::string, int> investigated;
  for (const json& f : run.report["failures"]) {
    if (f["confirmation"] == "unchecked") continue;
    const auto outcome = dmlcert::parse_outcome(f["outcome"].get<std::string>());
    ASSERT_TRUE(outcome.has_value()) << f["outcome"];
    const auto id = dmlcert::cert::CheckId::parse(f["where"].get<std::string>());
    ASSERT_TRUE(id.has_value()) << f["where"];
    EXPECT_LE(++investigated[dmlcert::cert::cause_key(*id, *outcome, f["detail"], f.value("operator", ""))],
              2)
        << f["where"] << ": " << f["detail"];
  }
}

// Exactly one flaky case, whose detail says `why`, named as such in every report format, and no
// timeout or failure counted; the verdict fails on it only with --flaky-fails.
void expect_one_flaky(const PluginRun& run, const std::string& why, bool flaky_fails) {
  const json& totals = run.report["totals"];
  EXPECT_EQ(totals["flaky"], 1) << totals;
  EXPECT_EQ(totals["timeout"], 0) << totals;
  EXPECT_EQ(totals["failed"], 0) << totals;
  bool some_check_flaky = some_cell_is(run, "flaky");
  for (const json& rule : run.report["rules"]) some_check_flaky |= rule["status"] == "flaky";
  EXPECT_TRUE(some_check_flaky) << "no cell or rule check reads flaky";
  EXPECT_EQ(run.report["flaky_fails"], flaky_fails);
  ASSERT_EQ(run.report["flaky"].size(), 1u) << run.report["flaky"];
  const json& flaky = run.report["flaky"][0];
  const std::string where = flaky["where"], case_name = flaky["case"];
  EXPECT_THAT(where, testing::HasSubstr("GATHER")) << where;
  EXPECT_NE(flaky["detail"].get<std::string>().find(why), std::string::npos) << flaky["detail"];
  EXPECT_EQ(run.report["verdict"].get<std::string>().find("(--flaky-fails)") != std::string::npos,
            flaky_fails)
      << run.report["verdict"];
  // By name in the terminal summary, Markdown, HTML and JUnit (JSON above).
  for (const auto& [format, text] :
       std::map<std::string, std::string>{{"text", run.command.out},
                                          {"markdown", slurp(run.dir / "report.md")},
                                          {"html", slurp(run.dir / "report.html")},
                                          {"junit", slurp(run.dir / "junit.xml")}}) {
    EXPECT_NE(text.find(case_name), std::string::npos) << format << " does not name " << case_name;
    EXPECT_NE(text.find(format == "junit" ? (flaky_fails ? "<failure type=\"flaky\"" : "<flakyFailure")
                                          : "Flaky (1 case"),
              std::string::npos)
        << format << " does not say flaky";
  }
}

// Each plugin is certified at the lowest level (2_1 has rank 4 only) and over the fewest operators
// that still show both the cells it breaks and cells it must pass; failing calls cost a restart
// of the isolation child each.
INSTANTIATE_TEST_SUITE_P(
    Plugins, CertifyMisbehaviour,
    testing::Values(
        MisbehaviourRow{"segfault_on_rank3_inputs", DMLCERT_CRASH_RANK3_PLUGIN,
                        "--level 3_0 --ops SLICE1,GATHER_ELEMENTS", 1,
                        where([](const json& c) { return c["rank"] == 3; }, "crash")},
        // After a timeout the rest of a cell is not run; after 3 in an operator, the rest of it.
        MisbehaviourRow{"hang_on_gather_elements", DMLCERT_HANG_GATHER_PLUGIN,
                        "--level 2_1 --ops SLICE,GATHER_ELEMENTS --timeout 0.5", 1,
                        where([](const json& c) { return op_is(c, "GATHER_ELEMENTS"); }, "timeout|stopped"),
                        60, [](const PluginRun& run) { EXPECT_TRUE(some_cell_is(run, "timeout")); }},
        MisbehaviourRow{"hang_on_every_call", DMLCERT_HANG_ALWAYS_PLUGIN,
                        "--level 2_1 --ops SLICE,REDUCE --timeout 0.5", 1, everywhere("timeout|stopped"), 60,
                        [](const PluginRun& run) {
                          EXPECT_TRUE(some_cell_is(run, "timeout"));
                          for (const json& rule : run.report["rules"]) {
                            if (rule["section"] == "robustness" && rule["rule"].get<std::string>().starts_with("BACKEND."))
                              continue;  // checked around the calls, not by a case
                            EXPECT_TRUE(rule["status"] == "timeout" || rule["status"] == "stopped")
                                << rule["rule"] << " " << rule["status"];
                          }
                        }},
        MisbehaviourRow{"write_one_element_past_output", DMLCERT_OOB_WRITE_PLUGIN,
                        "--level 2_1 --ops SLICE,SLICE1", 1,
                        where([](const json& c) { return op_is(c, "SLICE1"); }, "oob")},
        // The canary in front of the binding catches it, and the failure says where and how much.
        MisbehaviourRow{
            "write_one_byte_before_output", DMLCERT_UNDERRUN_WRITE_PLUGIN, "--level 2_1 --ops SLICE,SLICE1",
            1, where([](const json& c) { return op_is(c, "SLICE1"); }, "oob"), 90,
            [](const PluginRun& run) {
              // The summary names the cause once, with what the first failure wrote: "SLICE1: wrong
              // output, memory fault or hang x96: wrote 1 byte ...".
              EXPECT_TRUE(std::regex_search(run.command.out,
                                            std::regex("\nFailures by cause \\(.*\n  SLICE1: .* x[0-9]+: wrote 1 "
                                                       "byte before the output binding")))
                  << run.command.out;
            }},
        MisbehaviourRow{"write_into_input", DMLCERT_INPUT_WRITE_PLUGIN, "--level 2_1 --ops SLICE,SCATTER_ND",
                        1, where([](const json& c) { return op_is(c, "SCATTER_ND"); }, "oob")},
        // 10 MiB printed per call stay out of dmlcert's own output and in the report, capped.
        MisbehaviourRow{"print_10_mib_per_call", DMLCERT_FLOOD_PLUGIN, "--level 2_1 --ops SLICE", 0,
                        everywhere("passed"), 90,
                        [](const PluginRun& run) {
                          EXPECT_LT(run.command.out.size() + run.command.err.size(), 1u << 20);
                          const json& printed = run.report["backend_output"];
                          EXPECT_GE(printed["bytes"].get<uint64_t>(),
                                    printed["calls"].get<uint64_t>() * (10u << 20));
                          ASSERT_FALSE(printed["samples"].empty());
                          EXPECT_EQ(printed["samples"][0]["text"].get<std::string>().size(), 64u << 10);
                          EXPECT_GT(printed["samples"][0]["dropped_bytes"].get<uint64_t>(), 0u);
                        }},
        // 30 GiB asked for, stopped at a 0.5 GiB limit: `limit`, and the rest of the operator
        // stopped after 3 of them.
        MisbehaviourRow{"allocate_30_gib", DMLCERT_MEMORY_HOG_PLUGIN,
                        "--level 2_1 --ops SLICE,SLICE1 --memory-limit 0.5", 1,
                        where([](const json& c) { return op_is(c, "SLICE1"); }, "limit|stopped"), 90,
                        [](const PluginRun& run) {
                          EXPECT_TRUE(some_cell_is(run, "limit"));
                          EXPECT_TRUE(some_failure_says(run, "over its memory limit of 512 MiB"));
                          // The repro line reruns it under the same limit (the replay below
                          // checks that it then ends the same way).
                          ASSERT_FALSE(run.report["failures"].empty());
                          EXPECT_THAT(run.report["failures"][0]["reproduce"].get<std::string>(),
                                      testing::EndsWith(" --memory-limit 0.5"));
                        }},
        // A thread writes into the output after its call returned: blamed on the case that made
        // the call, never a later one. The first failures of the cause are confirmed, and
        // reproduce alone; the later ones are reported unchecked.
        MisbehaviourRow{"thread_writes_after_return", DMLCERT_LATE_WRITE_PLUGIN, "--level 3_0 --ops SLICE", 1,
                        where([](const json& c) { return c["rank"] == 2; }, "late-write"), 120,
                        [](const PluginRun& run) { expect_late_writes_of_rank_2(run); }},
        MisbehaviourRow{"status_outside_the_enum", DMLCERT_BAD_STATUS_PLUGIN,
                        "--level 2_1 --ops SLICE,SLICE1,GATHER_ELEMENTS", 1,
                        where([](const json& c) { return !op_is(c, "GATHER_ELEMENTS"); }, "failed"), 90,
                        [](const PluginRun& run) {
                          EXPECT_TRUE(some_failure_says(run,
                                                        "unknown status 7 (not a DMLCERT_STATUS_* value): "
                                                        "vendor status 7: command queue lost"));
                          EXPECT_TRUE(some_failure_says(run,
                                                        "unknown status 7 (not a DMLCERT_STATUS_* value): "
                                                        "no message"));
                        }},
        // Every call passes; the crash at destroy is a robustness check of its own.
        MisbehaviourRow{"abort_in_destroy", DMLCERT_ABORT_ON_DESTROY_PLUGIN, "--level 2_1 --ops SLICE", 1,
                        everywhere("passed"), 60,
                        [](const PluginRun& run) { EXPECT_EQ(destroy_status(run), "crash"); },
                        /*replays=*/false},
        // The child gets 5 s (kExitGraceSeconds, isolated_backend.cpp) to exit once dmlcert is
        // done with it; a destroy that never returns fails the check after that, and the child is
        // killed.
        MisbehaviourRow{"hang_in_destroy", DMLCERT_HANG_ON_DESTROY_PLUGIN, "--level 2_1 --ops SLICE", 1,
                        everywhere("passed"), 60,
                        [](const PluginRun& run) {
                          EXPECT_EQ(destroy_status(run), "crash");
                          EXPECT_TRUE(some_failure_says(run, "did not exit within 5 s of its last call"));
                          EXPECT_GE(run.command.seconds, 5.0) << "the grace period was cut short";
                        },
                        /*replays=*/false},
        MisbehaviourRow{"fork_a_grandchild", DMLCERT_FORK_GRANDCHILD_PLUGIN, "--level 2_1 --ops SLICE", 0,
                        everywhere("passed")},
        // Nothing can run: a report that marks every cell, and says why.
        MisbehaviourRow{"crash_in_get_backend", DMLCERT_CRASH_ON_LOAD_PLUGIN, "--level 2_1 --ops SLICE", 1,
                        everywhere("stopped"), 30,
                        [](const PluginRun& run) {
                          EXPECT_NE(run.report["stopped"].get<std::string>().find("could not be loaded"),
                                    std::string::npos);
                        },
                        /*replays=*/false},
        // What runtimes and drivers do to the process around them (docs/design.md, "Isolation").
        // A fault handler of the plugin's own that recovers from a write past the output (longjmp,
        // or mprotect and retry), or an mprotect of the guard page first: still `oob`, and the
        // replaced handler fails BACKEND.SIGNAL_HANDLERS.
        MisbehaviourRow{"own_segv_handler_that_longjmps", DMLCERT_HANDLER_LONGJMP_PLUGIN,
                        "--level 2_1 --ops SLICE,SLICE1", 1,
                        where([](const json& c) { return op_is(c, "SLICE1"); }, "oob"), 90,
                        [](const PluginRun& run) {
                          EXPECT_EQ(robustness_status(run, "BACKEND.SIGNAL_HANDLERS"), "failed");
                          EXPECT_TRUE(
                              some_failure_says(run, "replaced dmlcert's SIGSEGV handler while loading"));
                        }},
        MisbehaviourRow{"own_segv_handler_that_mprotects_and_retries", DMLCERT_HANDLER_MPROTECT_PLUGIN,
                        "--level 2_1 --ops SLICE,SLICE1", 1,
                        where([](const json& c) { return op_is(c, "SLICE1"); }, "oob"), 90,
                        [](const PluginRun& run) {
                          EXPECT_EQ(robustness_status(run, "BACKEND.SIGNAL_HANDLERS"), "failed");
                        }},
        MisbehaviourRow{"mprotect_the_guard_page_then_write", DMLCERT_MPROTECT_GUARD_PLUGIN,
                        "--level 2_1 --ops SLICE,SLICE1", 1,
                        where([](const json& c) { return op_is(c, "SLICE1"); }, "oob"), 90,
                        [](const PluginRun& run) {
                          EXPECT_EQ(robustness_status(run, "BACKEND.SIGNAL_HANDLERS"), "passed");
                        }},
        // The handler and a thread that writes after the call returned: `late-write` still, blamed
        // on the right case, and the run stays fast (no thread piles up).
        MisbehaviourRow{"own_segv_handler_and_a_late_writing_thread", DMLCERT_HANDLER_LATE_WRITE_PLUGIN,
                        "--level 3_0 --ops SLICE", 1,
                        where([](const json& c) { return c["rank"] == 2; }, "late-write"), 120,
                        [](const PluginRun& run) {
                          expect_late_writes_of_rank_2(run);
                          EXPECT_EQ(robustness_status(run, "BACKEND.SIGNAL_HANDLERS"), "failed");
                        }},
        // The plugin cannot reach dmlcert: its parent is not dmlcert, and signals from inside its
        // PID namespace do not reach the namespace's first process.
        MisbehaviourRow{"sigkill_its_parent", DMLCERT_KILL_PARENT_PLUGIN, "--level 2_1 --ops SLICE", 0,
                        everywhere("passed")},
        MisbehaviourRow{"sigstop_its_parent_every_call", DMLCERT_STOP_PARENT_PLUGIN,
                        "--level 2_1 --ops SLICE", 0, everywhere("passed")},
        // Nothing the plugin starts outlives the run, in a session or a process group of its own.
        MisbehaviourRow{"fork_a_daemon_in_its_own_session", DMLCERT_SETSID_GRANDCHILD_PLUGIN,
                        "--level 2_1 --ops SLICE", 0, everywhere("passed")},
        MisbehaviourRow{"fork_an_orphan_in_its_own_process_group", DMLCERT_SETPGID_GRANDCHILD_PLUGIN,
                        "--level 2_1 --ops SLICE", 0, everywhere("passed")},
        // Every REDUCE call runs over a heap buffer sized by the first: the process dies of it now
        // and then, in any operator's call. Each cause is investigated at most twice in fresh
        // processes (EngineOptions::cause), not once per crash.
        MisbehaviourRow{"heap_corrupted_by_every_larger_reduce", DMLCERT_REDUCE_STAGING_PLUGIN,
                        "--level 2_1 --ops SLICE,REDUCE", 1, everywhere("passed|crash"), 90,
                        [](const PluginRun& run) {
                          EXPECT_TRUE(some_cell_is(run, "crash"));
                          expect_each_cause_investigated_at_most_twice(run);
                        },
                        /*replays=*/false},
        // All operators at 5_0: about 4,000 calls in each worker's process, so a crash in each
        // process every 200; none reproduces alone or after the few cases a bisection keeps.
        MisbehaviourRow{"abort_every_200th_call", DMLCERT_CRASH_EVERY_200_PLUGIN, "--level 5_0", 1,
                        everywhere("passed|crash"), 90,
                        [](const PluginRun& run) {
                          EXPECT_TRUE(some_cell_is(run, "crash"));
                          expect_each_cause_investigated_at_most_twice(run);
                        },
                        /*replays=*/false},
        // 4 s per call: the run ends at its time bound, says what did not run and why, and calls
        // the backend slow with its time per call. The bound ends the calls in progress too.
        MisbehaviourRow{"four_seconds_per_call", DMLCERT_SLOW_PLUGIN,
                        "--level 2_1 --ops SLICE --time-limit 10", 1, everywhere("passed|stopped"), 30,
                        [](const PluginRun& run) {
                          EXPECT_NE(run.report["stopped"].get<std::string>().find("time limit of 10 s"),
                                    std::string::npos);
                          EXPECT_THAT(run.report["verdict"].get<std::string>(),
                                      testing::ContainsRegex("[0-9]+ of [0-9]+ planned cases did not run: the backend is "
                                                             "slow, [0-9.]+ s per call on average over [0-9]+ calls "
                                                             "\\(slowest 4"));
                          EXPECT_TRUE(run.report["backend_time"]["slow"].get<bool>());
                          EXPECT_THAT(run.command.out, testing::HasSubstr("SLOW: the backend took "));
                        },
                        /*replays=*/false},
        MisbehaviourRow{"twenty_seconds_to_load", DMLCERT_SLOW_LOAD_PLUGIN,
                        "--level 2_1 --ops SLICE --load-timeout 1", 1, everywhere("stopped"), 30,
                        [](const PluginRun& run) {
                          EXPECT_THAT(
                              run.report["stopped"].get<std::string>(),
                              testing::HasSubstr("no answer within 1.0 s of starting (--load-timeout)"));
                        },
                        /*replays=*/false},
        MisbehaviourRow{"write_into_descriptors_3_to_10", DMLCERT_CHANNEL_GARBAGE_PLUGIN,
                        "--level 2_1 --ops SLICE", 1, everywhere("passed|crash"), 60,
                        [](const PluginRun& run) {
                          EXPECT_TRUE(some_failure_says(run, "the backend wrote into dmlcert's channel"));
                        },
                        /*replays=*/false},
        // Limits raised to infinity (a core file too) before 30 GiB: still `limit`, never a timeout;
        // and a crash after that writes no core file (in the run's directory, dmlcert's own).
        MisbehaviourRow{"raise_its_limits_then_allocate_30_gib_or_abort", DMLCERT_RLIMIT_MEMORY_HOG_PLUGIN,
                        "--level 2_1 --ops SLICE,SLICE1 --memory-limit 0.5", 1,
                        [](const json& c) { return op_is(c, "SLICE1") ? "limit|stopped" : "passed|crash"; },
                        90,
                        [](const PluginRun& run) {
                          EXPECT_TRUE(some_cell_is(run, "limit"));
                          EXPECT_TRUE(some_cell_is(run, "crash"));
                          EXPECT_FALSE(some_cell_is(run, "timeout"));
                          for (const auto& entry : fs::directory_iterator(run.dir))
                            EXPECT_FALSE(entry.path().filename().string().starts_with("core"))
                                << entry.path() << ": the backend process dumped core";
                        }},
        // No verdict from load alone (docs/design.md, "Isolation", Hangs): a call that misses its deadline once
        // and answers when run again alone, with a longer deadline, is flaky, named in every report,
        // and does not fail the run; with --flaky-fails it does. (hang_on_every_call above: a hang
        // that comes back is still a timeout.)
        MisbehaviourRow{"hang_once_is_flaky", DMLCERT_HANG_ONCE_PLUGIN,
                        "--level 2_1 --ops GATHER_ELEMENTS --timeout 0.5 --markdown report.md", 0,
                        everywhere("passed|flaky"), 60,
                        [](const PluginRun& run) { expect_one_flaky(run, "passed when run again alone", false); },
                        /*replays=*/false},
        MisbehaviourRow{"hang_once_fails_with_flaky_fails", DMLCERT_HANG_ONCE_PLUGIN,
                        "--level 2_1 --ops GATHER_ELEMENTS --timeout 0.5 --markdown report.md --flaky-fails", 1,
                        everywhere("passed|flaky"), 60,
                        [](const PluginRun& run) { expect_one_flaky(run, "passed when run again alone", true); },
                        /*replays=*/false},
        // A flaky case is not one of the failures a run stops at (--stop-after-failures).
        MisbehaviourRow{"hang_once_does_not_stop_the_run",
                        DMLCERT_HANG_ONCE_PLUGIN,
                        "--level 2_1 --ops GATHER_ELEMENTS --timeout 0.5 --markdown report.md --stop-after-failures 1",
                        0,
                        everywhere("passed|flaky"),
                        60,
                        [](const PluginRun& run) { expect_one_flaky(run, "passed when run again alone", false); },
                        /*replays=*/false},
        // A wrong output that comes back neither alone nor after the cases before it.
        MisbehaviourRow{"wrong_once_is_flaky", DMLCERT_WRONG_ONCE_PLUGIN,
                        "--level 2_1 --ops GATHER_ELEMENTS --markdown report.md", 0, everywhere("passed|flaky"), 60,
                        [](const PluginRun& run) {
                          expect_one_flaky(run, "did not fail again, alone or after the cases before it", false);
                        },
                        /*replays=*/false}),
    [](const testing::TestParamInfo<MisbehaviourRow>& row) { return row.param.name; });

// Starts `dmlcert ARGS` in the background, in a process group of its own (as a shell's job).
pid_t spawn_dmlcert(const fs::path& dir, const std::string& args) {
  const std::string line =
      "exec " + std::string(DMLCERT_CLI) + " " + args + " >" + (dir / "stdout.txt").string() + " 2>&1";
  const char* argv[] = {"/bin/sh", "-c", line.c_str(), nullptr};
  posix_spawnattr_t attr;
  ::posix_spawnattr_init(&attr);
  ::posix_spawnattr_setpgroup(&attr, 0);
  ::posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
  pid_t pid = -1;
  ::posix_spawn(&pid, "/bin/sh", nullptr, &attr, const_cast<char**>(argv), environ);
  ::posix_spawnattr_destroy(&attr);
  return pid;
}

// Waits up to `seconds` for pid; its exit status, or -1 when it did not end.
int wait_for(pid_t pid, double seconds) {
  const auto until = Clock::now() + std::chrono::duration<double>(seconds);
  while (Clock::now() < until) {
    int status = 0;
    if (::waitpid(pid, &status, WNOHANG) == pid)
      return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return -1;
}

TEST(CertifyStopped, SigintEndsTheRunWithAnIncompleteReportAndNoProcessLeft) {
  const fs::path dir = scratch("sigint");
  const std::string plugin = own_copy(dir, DMLCERT_HANG_ALWAYS_PLUGIN);
  const pid_t pid = spawn_dmlcert(dir, certify_args(dir, plugin, "--level 5_0 --timeout 2"));
  std::this_thread::sleep_for(std::chrono::seconds(3));  // inside a hung call
  ::kill(pid, SIGINT);
  const int status = wait_for(pid, 10);
  if (status < 0) ::kill(pid, SIGKILL);
  EXPECT_EQ(status, 130) << slurp(dir / "stdout.txt");
  EXPECT_TRUE(survivors(plugin).empty());
  ASSERT_TRUE(fs::exists(dir / "report.json"));
  const json report = read_json(dir / "report.json");
  EXPECT_FALSE(report["certified"].get<bool>());
  EXPECT_NE(report["stopped"].get<std::string>().find("interrupted by SIGINT"), std::string::npos)
      << report["stopped"];
}

// A CI time limit kills dmlcert without warning: the report rewritten every 10 s is there, marked
// as a run still going, and the isolation child dies with its parent. The kill comes once the first
// rewrite is there (the 10 s are the run's own; on a loaded machine a sanitized build reaches its
// first rewrite later, so a fixed wait of 13 s was a race), and whenever it lands, the file is whole.
TEST(CertifyStopped, AKilledRunHasAlreadyWrittenAReportAndTakesItsChildAlong) {
  const fs::path dir = scratch("killed");
  const std::string plugin = own_copy(dir, DMLCERT_HANG_ALWAYS_PLUGIN);
  const pid_t pid = spawn_dmlcert(dir, certify_args(dir, plugin, "--level 5_0 --timeout 1 --max-timeouts 0"));
  const auto give_up = Clock::now() + std::chrono::seconds(90);
  while (!fs::exists(dir / "report.json") && Clock::now() < give_up)
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // into the next rewrite, or a call
  ::kill(pid, SIGKILL);
  wait_for(pid, 10);
  EXPECT_TRUE(survivors(plugin).empty());
  ASSERT_TRUE(fs::exists(dir / "report.json"));
  const json report = read_json(dir / "report.json");
  EXPECT_FALSE(report["certified"].get<bool>());
  EXPECT_NE(report["stopped"].get<std::string>().find("still running"), std::string::npos)
      << report["stopped"];
}

// Signals sent to a run of a correct plugin: however many, and wherever they land, the run ends
// with its report written, marked incomplete, no failure counted (dmlcert's own kill of its children
// is nothing the backend did), the exit status of the first signal, and no process left.
struct SignalRow {
  std::string name;
  double first_after;        // seconds after the start
  std::vector<int> signals;  // sent one after the other, 20 ms apart; negative: to the process group
  int exit_code;
};
void PrintTo(const SignalRow& r, std::ostream* os) {
  *os << r.name;
}

class CertifySignalled : public testing::TestWithParam<SignalRow> {};

TEST_P(CertifySignalled, LeavesACompleteIncompleteReportAndBlamesNothing) {
  const SignalRow& row = GetParam();
  const fs::path dir = scratch("signalled_" + row.name);
  const std::string plugin = own_copy(dir, DMLCERT_REFERENCE_PLUGIN);
  const std::string args = std::regex_replace(certify_args(dir, plugin, "--level 5_0 --ops SLICE,SLICE1"),
                                              std::regex("--budget smoke"), "--budget quick");
  const pid_t pid = spawn_dmlcert(dir, args);
  std::this_thread::sleep_for(std::chrono::duration<double>(row.first_after));
  for (int sig : row.signals) {
    ::kill(sig < 0 ? -pid : pid, std::abs(sig));
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  const int status = wait_for(pid, 30);
  if (status < 0) ::kill(pid, SIGKILL);
  EXPECT_EQ(status, row.exit_code) << slurp(dir / "stdout.txt");
  EXPECT_TRUE(survivors(plugin).empty());
  ASSERT_TRUE(fs::exists(dir / "report.json")) << slurp(dir / "stdout.txt");
  const json report = read_json(dir / "report.json");
  EXPECT_FALSE(report["certified"].get<bool>());
  EXPECT_THAT(report["stopped"].get<std::string>(), testing::HasSubstr("interrupted by SIG"));
  EXPECT_TRUE(report["failures"].empty()) << report["failures"].dump(1).substr(0, 2000);
  EXPECT_TRUE(fs::exists(dir / "junit.xml"));
  EXPECT_TRUE(fs::exists(dir / "report.html"));
}

INSTANTIATE_TEST_SUITE_P(
    Signals, CertifySignalled,
    testing::Values(SignalRow{"one_sigterm_at_once", 0.3, {SIGTERM}, 143},
                    SignalRow{"one_sigterm_a_little_later", 1.5, {SIGTERM}, 143},
                    // GNU timeout: SIGTERM to the command, then to its process group.
                    SignalRow{"sigterm_twice_as_gnu_timeout_sends_them", 1.0, {SIGTERM, -SIGTERM}, 143},
                    SignalRow{"five_sigints", 1.0, {SIGINT, SIGINT, SIGINT, SIGINT, SIGINT}, 130}),
    [](const testing::TestParamInfo<SignalRow>& row) { return row.param.name; });

TEST(CertifyStopped, ATimeLimitStopsTheRunAndSaysSo) {
  const fs::path dir = scratch("time_limit");
  const Command c =
      dmlcert(dir, certify_args(dir, DMLCERT_HANG_ALWAYS_PLUGIN, "--level 5_0 --timeout 1 --time-limit 3"));
  EXPECT_EQ(c.exit_code, 1);
  EXPECT_LT(c.seconds, 15);
  const json report = read_json(dir / "report.json");
  EXPECT_NE(report["stopped"].get<std::string>().find("time limit of 3 s"), std::string::npos)
      << report["stopped"];
  EXPECT_NE(c.out.find("INCOMPLETE: stopped at the time limit"), std::string::npos) << c.out;
}

// The report says how the backend's processes were contained: in a PID namespace where the system
// allows one; in a process group, saying what that leaves open, where it does not (asked for here
// with DMLCERT_CONTAINMENT=process-group).
TEST(CertifyContainment, TheReportSaysHowAndWhatIsLeftOpen) {
  const fs::path dir = scratch("containment");
  for (const bool fallback : {false, true}) {
    const Command c =
        run_in(dir, std::string(fallback ? "env DMLCERT_CONTAINMENT=process-group " : "") + DMLCERT_CLI +
                        " " + certify_args(dir, DMLCERT_SLICE_ONLY_PLUGIN, "--level 2_1 --ops SLICE"));
    EXPECT_EQ(c.exit_code, 0) << c.out << c.err;
    const std::string said = read_json(dir / "report.json")["containment"].get<std::string>();
    if (fallback) {
      EXPECT_THAT(said, testing::HasSubstr("process group of its own, killed whole"));
      EXPECT_THAT(said, testing::HasSubstr("can outlive the run"));
    } else {
      EXPECT_THAT(said, testing::AnyOf(testing::HasSubstr("PID namespace of its own"),
                                       testing::HasSubstr("can outlive the run")));
    }
    EXPECT_THAT(c.out, testing::HasSubstr("Containment: " + said));
  }
}

// A budget's time bound is the default --time-limit (certify.h, Budget::time_bound_seconds):
// quick's leaves a certification under 10 minutes on two cores whatever the backend does.
TEST(CertifyTimeBound, EveryBudgetHasOneAndTheRunUsesItUnlessTold) {
  for (const char* budget : {"smoke", "quick", "standard", "thorough"}) {
    const auto b = dmlcert::engine::budget_named(budget);
    ASSERT_TRUE(b.has_value()) << budget;
    EXPECT_GT(b->time_bound_seconds, 0) << budget;
  }
  EXPECT_LE(dmlcert::engine::budget_named("quick")->time_bound_seconds, 540);
  // Stopped by SIGINT after a second, the report says which bound the run had.
  const fs::path dir = scratch("time_bound");
  const std::string plugin = own_copy(dir, DMLCERT_HANG_ALWAYS_PLUGIN);
  const pid_t pid = spawn_dmlcert(dir, certify_args(dir, plugin, "--level 2_1 --ops SLICE"));
  std::this_thread::sleep_for(std::chrono::seconds(1));
  ::kill(pid, SIGINT);
  EXPECT_EQ(wait_for(pid, 20), 130);
  const json report = read_json(dir / "report.json");
  EXPECT_EQ(report["time_limit"]["seconds"].get<double>(), 120);
  EXPECT_EQ(report["time_limit"]["from"], "the budget");
}

// Writes that land milliseconds after the call returned and repair the last element of a large
// output (late_repair_plugin.cpp): judged as the output stood at the instant of return, and caught.
TEST(CertifyLateWrite, ARepairJustAfterReturnOnALargeOutputIsCaught) {
  const fs::path dir = scratch("late_repair");
  fs::create_directories(dir / "corpus");
  // SLICE of a 256 x 1024 UINT8 input, whole: a 256 KiB output (the plugin acts from 64 KiB).
  json c = {{"format", 1},
            {"name", "large-slice"},
            {"op", "SLICE"},
            {"feature_level", "5_0"},
            {"params", {{"offsets", {0, 0}}, {"sizes", {256, 1024}}, {"strides", {1, 1}}}},
            {"tensors",
             {{"input", {{"type", "UINT8"}, {"sizes", {256, 1024}}, {"data", json::array()}}},
              {"output", {{"type", "UINT8"}, {"sizes", {256, 1024}}}}}},
            {"expect", "valid"}};
  for (int i = 0; i < 256 * 1024; ++i) c["tensors"]["input"]["data"].push_back((i * 7 + 3) % 251);
  std::ofstream(dir / "corpus" / "large-slice.json") << c.dump();
  const std::string plugin = own_copy(dir, DMLCERT_LATE_REPAIR_PLUGIN);

  for (int attempt = 0; attempt < 3; ++attempt) {  // every run must catch it
    const Command run =
        dmlcert(dir, "run " + (dir / "corpus" / "large-slice.json").string() + " --backend plugin:" + plugin);
    EXPECT_EQ(run.exit_code, 1) << run.out << run.err;
    EXPECT_THAT(run.out, testing::ContainsRegex("\"outcome\": \"(late-write|failed)\"")) << run.out;
  }
  const Command cert = dmlcert(
      dir, "certify --backend plugin:" + plugin + " --level 5_0 --ops SLICE --budget smoke --corpus " +
               (dir / "corpus").string() + " --repro-dir " + (dir / "repros").string() + " --report " +
               (dir / "report.json").string());
  EXPECT_EQ(cert.exit_code, 1) << cert.out;
  const json report = read_json(dir / "report.json");
  EXPECT_EQ(report["corpus"]["status"] == "late-write" || report["corpus"]["status"] == "failed", true)
      << report["corpus"];
  // Generated cases of 64 KiB and more (sizes across magnitudes) can meet the repair too: such a
  // cell is late-write, and nothing else fails.
  for (const json& cell : report["cells"])
    EXPECT_TRUE(cell["status"] == "passed" || cell["status"] == "late-write")
        << cell["key"] << cell["status"];
}

#ifdef DMLCERT_MUTATION_PLUGIN_DIR
std::string xml_unescaped(std::string s) {
  const std::pair<const char*, const char*> entities[] = {
      {"&quot;", "\""}, {"&apos;", "'"}, {"&lt;", "<"}, {"&gt;", ">"}, {"&amp;", "&"}};
  for (const auto& [entity, ch] : entities)
    for (size_t at; (at = s.find(entity)) != std::string::npos;)
      s.replace(at, std::string(entity).size(), ch);
  return s;
}

// What a CI dashboard shows of a failing run: every failing testcase (a cause, a cell, a rule check,
// a corpus case) carries the command that reproduces it, and each such command, run as it is
// written, fails the backend again.
TEST(CertifyJUnit, EveryFailingTestcaseCarriesACommandThatReproduces) {
  const fs::path dir = scratch("junit_repros");
  const std::string plugin =
      own_copy(dir, DMLCERT_MUTATION_PLUGIN_DIR
               "/pair_gather_elements_negative_index_unsigned_and_slice1_window_end_off_by_one.so");
  // The first failures suffice: every operator is reached early (the plan is interleaved).
  const Command run = dmlcert(dir, certify_args(dir, plugin, "--level 5_0 --stop-after-failures 12"));
  ASSERT_EQ(run.exit_code, 1) << run.out;
  const std::string xml = slurp(dir / "junit.xml");
  std::set<std::string> commands;
  size_t failing = 0;
  for (size_t at = 0; (at = xml.find("<testcase ", at)) != std::string::npos; ++at) {
    const size_t end = xml.find("</testcase>", at), next = xml.find("<testcase ", at + 1);
    if (end == std::string::npos || (next != std::string::npos && next < end)) continue;  // <testcase .../>
    const std::string body = xml.substr(at, end - at);
    if (body.find("<failure ") == std::string::npos) continue;
    ++failing;
    const size_t line = body.find("reproduce: ");
    ASSERT_NE(line, std::string::npos) << body.substr(0, 600);
    commands.insert(xml_unescaped(body.substr(line + 11, body.find('\n', line) - line - 11)));
  }
  EXPECT_GE(failing, 4u) << "both bugs, each in its cause and its checks";
  EXPECT_NE(xml.find("dmlcert.cells\" name=\"SLICE1/"), std::string::npos) << "the SLICE1 bug is among them";
  EXPECT_NE(xml.find("dmlcert.cells\" name=\"GATHER_ELEMENTS/"), std::string::npos)
      << "the GATHER_ELEMENTS bug is among them";
  ASSERT_FALSE(commands.empty());
  size_t n = 0;
  for (const std::string& command : commands) {
    const fs::path replay = dir / ("replay" + std::to_string(n++));
    fs::create_directories(replay);
    const Command again = run_in(replay, command);
    EXPECT_EQ(again.exit_code, 1) << command << "\n" << again.out << again.err;
  }
}
#endif

TEST(CertifyShards, MergedShardReportsEqualTheUnshardedRun) {
  fs::path dir = scratch("shards");
  const std::string common = "certify --backend plugin:" + std::string(DMLCERT_REFERENCE_PLUGIN) +
                             " --level 3_0 --ops SLICE,REDUCE --budget smoke --repro-dir " +
                             (dir / "repros").string();
  Command whole = dmlcert(dir, common + " --report " + (dir / "whole.json").string());
  Command a = dmlcert(dir, common + " --shard 0/2 --report " + (dir / "a.json").string());
  Command b = dmlcert(dir, common + " --shard 1/2 --report " + (dir / "b.json").string());
  EXPECT_EQ(whole.exit_code, 0) << whole.out;
  Command merged = dmlcert(dir, "merge " + (dir / "a.json").string() + " " + (dir / "b.json").string() +
                                    " --report " + (dir / "merged.json").string());
  EXPECT_EQ(merged.exit_code, 0) << merged.out;

  json w = read_json(dir / "whole.json"), m = read_json(dir / "merged.json");
  json sa = read_json(dir / "a.json");
  EXPECT_FALSE(sa["complete"].get<bool>()) << "one shard alone is not the whole run";
  EXPECT_TRUE(m["complete"].get<bool>());
  EXPECT_EQ(m["totals"], w["totals"]);
  EXPECT_EQ(m["certified"], w["certified"]);
  ASSERT_EQ(m["cells"].size(), w["cells"].size());
  for (size_t i = 0; i < w["cells"].size(); ++i)
    EXPECT_EQ(m["cells"][i]["counts"], w["cells"][i]["counts"]) << i;
}

}  // namespace

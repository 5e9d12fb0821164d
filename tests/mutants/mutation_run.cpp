#include "mutation_run.h"

#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <sstream>

#include "dmlcert/case.h"
#include "dmlcert/support.h"

namespace dmlcert::mutants {
namespace {

namespace fs = std::filesystem;

std::string shell_quoted(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// Runs a shell command with its output appended to `log`; returns the exit status.
int run(const std::string& command, const std::string& log) {
  const int status = std::system((command + " >>" + shell_quoted(log) + " 2>&1").c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::string corpus_option(const MutationSetup& s);

// The whole run (--shard 0/1), even when a sharded test runner's GTEST_SHARD_* variables are set.
std::string certify_command(const MutationSetup& s, const std::string& plugin, const fs::path& dir) {
  std::ostringstream timeout;
  timeout << s.timeout_seconds;
  return shell_quoted(s.cli) + " certify --backend " + shell_quoted("plugin:" + plugin) + " --level " +
         s.level + " --budget " + s.budget + " --shard 0/1 --timeout " + timeout.str() + " --report " +
         shell_quoted((dir / "report.json").string()) + " --repro-dir " +
         shell_quoted((dir / "repros").string()) + corpus_option(s) +
         (s.ops.empty() ? "" : " --ops " + shell_quoted(s.ops));
}

// certify's --corpus: none (an empty directory) unless the setup asks for the corpus.
std::string corpus_option(const MutationSetup& s) {
  if (s.corpus) return "";
  const fs::path empty = fs::path(s.work_dir) / "empty-corpus";
  fs::create_directories(empty);
  return " --corpus " + shell_quoted(empty.string());
}

fs::path fresh_dir(const MutationSetup& s, const std::string& id) {
  const fs::path dir = fs::path(s.work_dir) / id;
  std::error_code ec;
  fs::remove_all(dir, ec);
  fs::create_directories(dir);
  return dir;
}

// Cases that ran: every outcome but skipped (a skipped item generated no case).
uint64_t cases_run(const nlohmann::json& totals) {
  uint64_t n = 0;
  for (const auto& [outcome, count] : totals.items())
    if (outcome != "skipped") n += count.get<uint64_t>();
  return n;
}

// How often `needle` occurs in a file (0 when it cannot be read).
size_t occurrences(const fs::path& file, const std::string& needle) {
  std::ifstream in(file);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  size_t n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

}  // namespace

Detection detect(const MutationSetup& s, const std::string& plugin, const std::string& id) {
  Detection d;
  const fs::path dir = fresh_dir(s, id);
  d.log = (dir / "log.txt").string();
  const auto start = std::chrono::steady_clock::now();
  run(certify_command(s, plugin, dir) + " --stop-after-failures " + std::to_string(s.stop_after_failures) +
          " --markdown " + shell_quoted((dir / "report.md").string()) + " --html " +
          shell_quoted((dir / "report.html").string()) + " --junit " +
          shell_quoted((dir / "report.xml").string()),
      d.log);
  d.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  std::ifstream in(dir / "report.json");
  if (!in) return d;
  const nlohmann::json report = nlohmann::json::parse(in, nullptr, false);
  if (report.is_discarded() || !report.contains("failures")) return d;
  d.ran = true;
  d.cases = cases_run(report.at("totals"));
  for (const auto& cause : report.value("causes", nlohmann::json::array())) {
    ++d.causes_json;
    d.cause_names += (d.cause_names.empty() ? "" : "; ") + cause.value("cause", "") + " x" +
                     std::to_string(cause.value("failures", 0)) + " (" + cause.value("example", "") + ")";
  }
  d.causes_markdown = occurrences(dir / "report.md", "\n### ");
  d.causes_html = occurrences(dir / "report.html", "id=\"cause-");
  d.causes_junit = occurrences(dir / "report.xml", "classname=\"dmlcert.causes\"");
  // The first failure that counts: a flaky one (docs/design.md, "Isolation", Hangs) did not come back.
  const nlohmann::json& failures = report.at("failures");
  const auto counted = std::find_if(failures.begin(), failures.end(), [](const nlohmann::json& f) {
    return f.value("outcome", "") != "flaky";
  });
  if (counted == failures.end()) return d;
  const nlohmann::json& f = *counted;
  d.caught = true;
  d.where = f.value("where", "");
  d.outcome = f.value("outcome", "");
  d.detail = f.value("detail", "");
  d.shrunk = !f.value("shrunk", "").empty();
  d.repro = d.shrunk ? f.value("shrunk", "") : f.value("repro", "");

  // A huge case's file (an output of tens of MiB) is read, and replayed, with the limit raised to
  // its size, as the reproduce line certify prints does.
  std::error_code ec;
  ReadLimits limits;
  limits.max_file_bytes = std::max<uint64_t>(limits.max_file_bytes, fs::file_size(d.repro, ec));
  const LoadedCases loaded = load_case_file(d.repro, limits);
  if (!loaded.cases.empty()) {
    const Case& c = loaded.cases.front();
    const TensorDesc& out = *tensor(c.op, Role::OUTPUT);
    d.rank = out.rank();
    if (const auto row = support(op_kind(c.op), reduce_function(c.op), Role::OUTPUT, c.level))
      d.min_rank = row->min_rank;
    d.output_elements = element_count(out.sizes).value_or(0);
  }
  const std::string replay = shell_quoted(s.cli) + " replay " + shell_quoted(d.repro) + " --max-file-bytes " +
                             std::to_string(limits.max_file_bytes) + " --backend ";
  d.replay_fails_on_plugin = run(replay + shell_quoted("plugin:" + plugin), d.log) == 1;
  d.replay_passes_on_reference = run(replay + "reference", d.log) == 0;
  d.confirmation = f.value("confirmation", "");
  d.sequence = f.value("sequence", "");
  if (!d.sequence.empty()) {
    d.sequence_length = load_case_file(d.sequence).cases.size();
    // The documented replay of a sequence: `dmlcert run` runs a .jsonl in order in one process.
    const std::string in_order = shell_quoted(s.cli) + " run " + shell_quoted(d.sequence) + " --backend ";
    d.sequence_fails_on_plugin = run(in_order + shell_quoted("plugin:" + plugin), d.log) == 1;
    d.sequence_passes_on_reference = run(in_order + "reference", d.log) == 0;
  }
  return d;
}

bool certifies(const MutationSetup& s, const std::string& plugin, const std::string& id, std::string* log) {
  const fs::path dir = fresh_dir(s, id);
  *log = (dir / "log.txt").string();
  MutationSetup with_corpus = s;  // a legitimate variant must pass everything, the corpus included
  with_corpus.corpus = true;
  return run(certify_command(with_corpus, plugin, dir), *log) == 0;
}

}  // namespace dmlcert::mutants

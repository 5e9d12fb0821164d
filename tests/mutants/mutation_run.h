// Certifies one plugin with `dmlcert certify --budget quick` and judges the result the way the
// mutation test and docs/mutation-score.md need it: was the plugin caught, where, after how many
// cases, and does the (shrunk) repro file replay. Shared by mutation_test.cpp and
// mutation_score.cpp.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>

namespace dmlcert::mutants {

struct MutationSetup {
  std::string cli;       // the dmlcert executable
  std::string work_dir;  // reports and repro files go below it, one directory per plugin
  std::string level = "5_0";
  std::string budget = "quick";
  double timeout_seconds = 2;  // per call: hang mutants cost this much per hang
  // Replay the corpus first (as certify does by default). Off for the zoo: the hand-written corpus
  // would catch some mutants before the generators do, with repros that were never shrunk, and
  // the zoo is there to show that the generated cases and the shrinker have teeth.
  bool corpus = false;
  // certify's --ops, empty for every operator. A mutant's bug lives in one operator: certifying
  // only that one finds it in the same cases and keeps the zoo's run short.
  std::string ops;
  // certify's --stop-after-failures for detect(): 1 finds the first failure; more let the run go on
  // through failures of every kind of item (they are interleaved) to see how many causes it reports.
  int stop_after_failures = 1;
};

// What a certification of a plugin that should fail found.
struct Detection {
  bool ran = false;     // certify ran and wrote its report
  bool caught = false;  // certification failed with at least one failing case
  std::string where;    // the cell or rule that caught it ("cells/REDUCE.SUM/input/FLOAT16/r2/random/0")
  std::string outcome;  // "failed", "crash", "timeout", "oob", ...
  std::string detail;
  uint64_t cases = 0;     // cases run up to and including the failure the run stopped at
  std::string repro;      // the shrunk repro file when there is one, else the original
  bool shrunk = false;    // whether `repro` is the shrunk file
  uint32_t rank = 0;      // the repro's output rank
  uint32_t min_rank = 1;  // the lowest output rank the repro's operator takes at the repro's level
  uint64_t output_elements = 0;
  bool replay_fails_on_plugin = false;      // `dmlcert replay REPRO --backend plugin:P` fails
  bool replay_passes_on_reference = false;  // `dmlcert replay REPRO --backend reference` passes
  // "reproduced alone", "state-dependent", ... (the engine's confirmation of the failure)
  std::string confirmation;
  // State-dependent failures: the .jsonl the engine bisected, its length, and whether
  // `dmlcert run SEQUENCE --backend plugin:P` fails (on its last case) while the reference passes it.
  std::string sequence;
  size_t sequence_length = 0;
  bool sequence_fails_on_plugin = false;
  bool sequence_passes_on_reference = false;
  double seconds = 0;
  std::string log;  // where certify's output went
  // The causes each report format lists (report_summary.h): the JSON report's `causes`, the
  // Markdown report's "### " sections, the HTML report's cause anchors, the JUnit report's
  // testcases of the causes suite; and the JSON report's names for them.
  size_t causes_json = 0, causes_markdown = 0, causes_html = 0, causes_junit = 0;
  std::string cause_names;
};

// Certifies the plugin, stopping at its first failure (setup.stop_after_failures), then replays the
// first failure's repro.
Detection detect(const MutationSetup& setup, const std::string& plugin_path, const std::string& id);

// Certifies the plugin in full, corpus included; true when it is certified for its scope (exit
// status 0). *log names the file with certify's output.
bool certifies(const MutationSetup& setup, const std::string& plugin_path, const std::string& id,
               std::string* log);

// Whether the repro is small enough: output rank <= 3 (or the lowest rank its level allows, 4 for
// SLICE below 3_0) and <= 64 output elements.
inline bool small_repro(const Detection& d) {
  return d.rank <= std::max(3u, d.min_rank) && d.output_elements <= 64;
}

}  // namespace dmlcert::mutants

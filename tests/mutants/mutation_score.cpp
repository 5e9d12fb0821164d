// Writes docs/mutation-score.md: certifies every mutant of the zoo (stopping at its first
// failure) and every legitimate variant with `dmlcert certify --budget quick`, and tabulates what
// caught each mutant, after how many cases, and how small its repro is.
//   dmlcert_mutation_score --work-dir DIR --out docs/mutation-score.md [--jobs N]
#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <iterator>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "mutant_catalog.h"
#include "mutation_run.h"
#include "variant_catalog.h"

namespace dmlcert::mutants {
namespace {

std::string plugin(std::string_view prefix, std::string_view id) {
  return std::string(DMLCERT_MUTATION_PLUGIN_DIR) + "/" + std::string(prefix) + "_" + std::string(id) + ".so";
}

// Where a failure was found, from its item key: "cells/REDUCE.SUM/input/FLOAT16/r2/random/0" ->
// "cell `REDUCE.SUM/input/FLOAT16/r2` (random data)"; "levels/3_0/..." adds "at 3_0";
// "sequences/CELL/MODE/REP/MEMBER" names the family's member; "invalid/RULE/REP" -> "`invalid/RULE`".
std::string caught_by(const Detection& d) {
  if (!d.caught) return "**survived**";
  std::string w = d.where, level;
  if (w.starts_with("levels/")) {
    const size_t slash = w.find('/', 7);
    level = " at " + w.substr(7, slash - 7);
    w = w.substr(slash + 1);
  }
  auto words = [](const std::string& key) {
    std::vector<std::string> out;
    for (size_t start = 0, end; start <= key.size(); start = end + 1) {
      end = std::min(key.find('/', start), key.size());
      out.push_back(key.substr(start, end - start));
    }
    return out;
  };
  const std::vector<std::string> parts = words(w);
  std::string out;
  if ((parts[0] == "cells" || parts[0] == "sequences") && parts.size() >= 7) {
    // kind / OP[.FUNCTION] / role / type / rank / mode / rep [/ member]
    const std::string cell = parts[1] + "/" + parts[2] + "/" + parts[3] + "/" + parts[4];
    out = (parts[0] == "cells" ? "cell `" : "sequence of cell `") + cell + "`" + level + " (" + parts[5] +
          " data" + (parts.size() > 7 ? ", member " + parts[7] : "") + ")";
  } else {
    out = "`" + w.substr(0, w.rfind('/')) + "`" + level;
  }
  return out.append(": ").append(d.outcome);
}

std::string repro_size(const Detection& d, const MutantInfo& m) {
  if (!d.caught) return "-";
  if (!d.sequence.empty())
    return std::string(d.sequence_fails_on_plugin ? "" : "**does not replay**: ") + d.confirmation +
           ", a sequence of " + std::to_string(d.sequence_length) + " cases";
  std::string s = "rank " + std::to_string(d.rank) + ", " + std::to_string(d.output_elements) + " elements";
  if (!d.shrunk) s += " (not shrunk)";
  if (!small_repro(d))
    s += m.large_repro.empty() ? " **too large**" : " (" + std::string(m.large_repro) + ")";
  else if (d.rank > 3)
    s += " (the lowest rank its level allows)";
  return s;
}

std::string escape(std::string_view s) {
  std::string out;
  for (char c : s) out += c == '|' ? std::string("\\|") : std::string(1, c);
  return out;
}

int run(int argc, char** argv) {
  MutationSetup setup;
  setup.cli = DMLCERT_CLI;
  std::string out = std::string(DMLCERT_SOURCE_DIR) + "/docs/mutation-score.md";
  setup.work_dir = "mutation-score-runs";
  unsigned jobs = 1;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--work-dir")
      setup.work_dir = argv[i + 1];
    else if (flag == "--out")
      out = argv[i + 1];
    else if (flag == "--jobs")
      jobs = static_cast<unsigned>(std::max(1, std::atoi(argv[i + 1])));
    else {
      std::cerr << "usage: dmlcert_mutation_score [--work-dir DIR] [--out FILE.md] [--jobs N]\n";
      return 2;
    }
  }

  // Each mutant is certified twice: with an empty --corpus (the table's main columns) and with the
  // corpus replayed first, as a certification runs by default. --jobs N runs N certifications at
  // once (each is one process and its backend's); the table is the same.
  MutationSetup with_corpus = setup;
  with_corpus.corpus = true;
  with_corpus.work_dir = setup.work_dir + "/with-corpus";
  const size_t mutants = std::size(kMutants), variant_count = std::size(variants::kVariants);
  std::vector<Detection> found(mutants), found_with_corpus(mutants);
  std::vector<std::pair<const variants::VariantInfo*, bool>> legit(variant_count);
  std::mutex progress;
  auto say = [&](const std::string& line) {
    std::lock_guard<std::mutex> hold(progress);
    std::cerr << line << "\n";
  };
  auto outcome = [](const Detection& d) {
    return d.caught ? "caught after " + std::to_string(d.cases) + " cases by " + d.where
                    : std::string("SURVIVED");
  };
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t t; (t = next++) < 2 * mutants + variant_count;) {
      if (t < 2 * mutants) {
        const MutantInfo& m = kMutants[t / 2];
        const bool corpus = t % 2;
        Detection& d = (corpus ? found_with_corpus : found)[t / 2];
        d = detect(corpus ? with_corpus : setup, plugin("mutant", m.id), "mutant_" + std::string(m.id));
        say("mutant " + std::string(m.id) + (corpus ? " (with the corpus): " : ": ") + outcome(d));
      } else {
        const variants::VariantInfo& v = variants::kVariants[t - 2 * mutants];
        std::string log;
        legit[t - 2 * mutants] = {
            &v, certifies(setup, plugin("variant", v.id), "variant_" + std::string(v.id), &log)};
        say("variant " + std::string(v.id) + ": " +
            (legit[t - 2 * mutants].second ? "certified" : "NOT certified, see " + log));
      }
    }
  };
  std::vector<std::thread> workers;
  for (unsigned j = 0; j < jobs; ++j) workers.emplace_back(work);
  for (std::thread& w : workers) w.join();

  std::vector<uint64_t> cases;
  size_t caught = 0;
  for (const Detection& d : found)
    if (d.caught) ++caught, cases.push_back(d.cases);
  size_t caught_with_corpus = 0;
  for (const Detection& d : found_with_corpus) caught_with_corpus += d.caught;
  std::sort(cases.begin(), cases.end());
  const double median =
      cases.empty()
          ? 0
          : (cases.size() % 2
                 ? static_cast<double>(cases[cases.size() / 2])
                 : static_cast<double>(cases[cases.size() / 2 - 1] + cases[cases.size() / 2]) / 2.0);
  size_t certified = 0;
  for (const auto& [v, ok] : legit) certified += ok;

  std::ostringstream md;
  char score[64];
  std::snprintf(
      score, sizeof score, "%.1f%%",
      found.empty() ? 0.0 : 100.0 * static_cast<double>(caught) / static_cast<double>(found.size()));
  md << "# Mutation score\n\n"
     << "**Mutation score " << score << "** (" << caught << " of " << found.size()
     << " mutants caught). Cases to detection: **median " << median << ", max "
     << (cases.empty() ? 0 : cases.back()) << "**. With the corpus replayed first: " << caught_with_corpus
     << " of " << found_with_corpus.size() << " caught. Legitimate variants certified: " << certified
     << " of " << legit.size() << ".\n\n"
     << "Generated by `scripts/mutation-score` (the CMake target `mutation_score`): every mutant in\n"
     << "`tests/mutants/` is the reference backend with one realistic bug, loaded as a plugin and certified\n"
     << "with `dmlcert certify --level " << setup.level << " --budget " << setup.budget
     << " --stop-after-failures 1` and an empty `--corpus`, so that the generated cases and the shrinker\n"
     << "do the catching (a full certification replays the hand-written corpus first). *Cases* counts the\n"
     << "cases certify ran up to and including the first failure (certify runs its cells, families of\n"
     << "related cases, lower levels and rule checks in a deterministic shuffle); *repro* is the output\n"
     << "shape of the shrunk case file, which replays: it fails on the mutant and passes on the\n"
     << "reference. A bug in state kept between calls shows only after other cases: its repro is the\n"
     << "sequence the engine bisected, which `dmlcert run` replays in one process. The CTest test\n"
     << "`dmlcert_mutation_test` asserts all of this for every mutant and that every variant in\n"
     << "`tests/variants/` certifies (with the smoke budget there, to keep CI short). The last column is\n"
     << "the same certification with the corpus replayed first (no `--corpus`): what caught the mutant\n"
     << "and after how many cases.\n\n"
     << "| mutant | operator | fault | bug | caught by | cases | repro | with the corpus |\n"
     << "|---|---|---|---|---|---:|---|---|\n";
  for (size_t i = 0; i < found.size(); ++i) {
    const MutantInfo& m = kMutants[i];
    const Detection& d = found[i];
    md << "| `" << m.id << "` | " << m.op << " | " << m.fault << " | " << escape(m.description) << " | "
       << escape(caught_by(d)) << " | " << (d.caught ? std::to_string(d.cases) : "-") << " | "
       << repro_size(d, m) << " | " << escape(caught_by(found_with_corpus[i]))
       << (found_with_corpus[i].caught ? ", " + std::to_string(found_with_corpus[i].cases) + " cases" : "")
       << " |\n";
  }
  md << "\n"
     << "## Causes\n"
     << "\n"
     << "A report groups failures into causes, one per bug (`report_summary.h`): where the bug lives (the\n"
     << "operator, or the rule an invalid case breaks) and its family: a call gone wrong (wrong value,\n"
     << "memory fault, crash or hang are one family, since the same wrong index gives any of them\n"
     << "depending on where it lands), a valid case rejected, an invalid case not rejected, a write\n"
     << "before a rejection. A class U, robustness or corpus case counts with its operator; a REDUCE\n"
     << "cause is the operator's, named after its function when all its failures are in one (a bug in\n"
     << "REDUCE's shared machinery shows in every function). The mutation test asserts that each mutant\n"
     << "reports exactly one cause in the JSON, Markdown, HTML and JUnit reports alike, going on to 20\n"
     << "failures (interleaved across cells, lower levels, sequences and rule checks) where failures are\n"
     << "cheap. These mutants give two causes, because their minimal repros really differ:\n"
     << "\n";
  for (const MutantInfo& m : kMutants)
    if (!m.several_causes.empty())
      md << "- `" << m.id << "`: " << escape(std::string(m.several_causes)) << ".\n";
  md << "\n## Legitimate variants\n\nEach must certify: `dmlcert certify --level " << setup.level
     << " --budget " << setup.budget
     << "` (all operators, corpus included) exits 0; a variant that claims only some cells is certified\n"
     << "for the scope it claims, like any backend.\n\n"
     << "| variant | difference from the reference | certified |\n|---|---|---|\n";
  for (const auto& [v, ok] : legit)
    md << "| `" << v->id << "` | " << escape(v->description) << " | " << (ok ? "yes" : "**no**") << " |\n";

  std::ofstream file(out);
  file << md.str();
  if (!file) {
    std::cerr << "cannot write " << out << "\n";
    return 1;
  }
  std::cerr << "wrote " << out << "\n";
  // Any survivor, and any variant that does not certify, fails the run.
  bool clean = certified == legit.size();
  for (const Detection& d : found) clean &= d.caught;
  for (const Detection& d : found_with_corpus) clean &= d.caught;
  return clean ? 0 : 1;
}

}  // namespace
}  // namespace dmlcert::mutants

int main(int argc, char** argv) {
  return dmlcert::mutants::run(argc, argv);
}

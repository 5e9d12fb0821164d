// The certification run behind `dmlcert certify`: corpus replay, valid cases for every support
// table cell (exact and random data), invalid cases per rule, unspecified cases per U rule and
// out-of-range index robustness, all executed through the isolation child, with repro files
// written before each call and shrunk after a failure.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "dmlcert/certification.h"

namespace dmlcert::cli {

// How much work a budget buys (cases per cell and data mode, per rule, per robustness check).
struct Budget {
  std::string name;
  int per_cell_mode = 1, per_rule = 4, per_robustness = 4;
  int size = 25;              // rapidcheck size: bounds ranks' extents and data
  double shrink_seconds = 1;  // per failure
  int max_shrinks = 10;       // failures shrunk per run (the first ones found)
};
std::optional<Budget> budget_named(const std::string& name);  // quick, standard, thorough

struct CertifyOptions {
  std::string backend = "optimized";
  FeatureLevel level = kDefaultFeatureLevel;
  Budget budget;
  cert::Shard shard;
  double timeout_seconds = 10;
  std::string repro_dir = "dmlcert-repros";
  std::string corpus;       // empty: find it (DMLCERT_CORPUS, next to the install, the source tree)
  std::vector<OpKind> ops;  // empty: all
  uint64_t seed = 0;
  // Stop after this many failures (0: run everything). The report then covers only the cases
  // run so far; its totals count the cases up to and including the last failure.
  int stop_after_failures = 0;
};

// Runs the certification. Returns nullopt and says why when it cannot start (backend does not
// load, repro directory cannot be made).
std::optional<cert::Report> run_certification(const CertifyOptions& options, std::string* error);

// The corpus directory certify replays: DMLCERT_CORPUS, then share/dmlcert/corpora next to the
// installed executable, then the source tree's corpora/. Empty when none exists.
std::string find_corpus();

}  // namespace dmlcert::cli

// The corpus of a coverage-guided fuzz run (docs/coverage.md, "Coverage-guided fuzzing"): each
// entry is the plan of a case that reached edges of the plugin's code no earlier case had (the
// generator and its choices: level, class, cell or rule, data mode, seed and size), written as
// `<id>.plan` beside the case itself (`<id>.json`, a case file any dmlcert command reads). A plan
// regenerates its case exactly; a directory of them is read back at the start of a run, and
// directories from many runs and machines merge by copying their files together.
#pragma once

#include <string>
#include <vector>

#include "fuzz.h"

namespace dmlcert::engine {

std::string plan_to_text(const FuzzPlan& plan);
// nullopt, with *error, when the text is not such a plan.
std::optional<FuzzPlan> plan_from_text(const std::string& text, std::string* error);

// Writes the entry's two files into `dir` (created if need be), named by the plan's content, so
// that the same entry found twice is one file. False, with *error, when a file cannot be written.
bool save_corpus_entry(const std::string& dir, const FuzzPlan& plan, const Case& c, std::string* error);
struct CorpusEntry {
  std::string file;
  FuzzPlan plan;
};
// Every `*.plan` of `dir`, in name order; a file that is not a plan (or not a regular file of a
// plan's size) is named in *errors with why, and skipped.
std::vector<CorpusEntry> load_corpus(const std::string& dir, std::vector<std::string>* errors);

}  // namespace dmlcert::engine

// The operator-by-type-by-rank matrix the human-readable reports draw (Markdown, HTML, text).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "report.h"

namespace dmlcert::cert {

struct MatrixEntry {
  Counts counts{};
  std::vector<std::string> repros;
  uint64_t not_run = 0;  // planned cases never run (NotRun)
  bool present = false;  // the support table has this (row, type, rank)
  bool outside = true;   // every cell of it lies outside the scope (outside_scope())
};

struct MatrixRow {
  std::string label;  // matrix_row()
  std::map<DataType, MatrixEntry> by_type;
  std::map<std::pair<DataType, uint32_t>, MatrixEntry> by_type_rank;
};

// Rows in the order the cells first name them.
std::vector<MatrixRow> build_matrix(const Report& r);

// One-letter status: P passed, F failed, M mistrusted, U unimplemented, C crash, T timeout,
// O oob, W late-write, L limit, K flaky (failed once, passed when run again alone), S stopped (planned, never
// run: after timeouts, or the run stopped), - not run (another shard's). Outside the scope, what did
// not run is U too.
char status_letter(const Counts& c, uint64_t not_run = 0, bool outside = false);
// "passed", ..., "stopped", "not-run".
std::string status_word(const Counts& c, uint64_t not_run = 0, bool outside = false);
inline constexpr const char* kStatusLegend =
    "P passed, F failed, C crash, T timeout, O oob, W late-write, L limit, U unimplemented, "
    "M mistrusted, K flaky (failed once, passed when run again alone), S stopped before it ran, - not run";

// Short column heads: F64 F32 F16 I64 ... U8.
std::string short_type(DataType t);

// A path relative to `base` (the report's own directory) when both are on one tree.
std::string relative_link(const std::string& path, const std::string& base);

}  // namespace dmlcert::cert

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
  bool present = false;  // the support table has this (row, type, rank)
};

struct MatrixRow {
  std::string label;  // matrix_row()
  std::map<DataType, MatrixEntry> by_type;
  std::map<std::pair<DataType, uint32_t>, MatrixEntry> by_type_rank;
};

// Rows in the order the cells first name them.
std::vector<MatrixRow> build_matrix(const Report& r);

// One-letter status: P passed, F failed, M mistrusted, U unimplemented, C crash, T timeout,
// O oob, - not run.
char status_letter(const Counts& c);
std::string status_word(const Counts& c);  // "passed", ..., "not-run"

// Short column heads: F64 F32 F16 I64 ... U8.
std::string short_type(DataType t);

// A path relative to `base` (the report's own directory) when both are on one tree.
std::string relative_link(const std::string& path, const std::string& base);

}  // namespace dmlcert::cert

// The certificate's code coverage (docs/coverage.md): how much of the backend's own code the run
// reached, in edges and functions, in total, per operator and per source file, with the
// functions never reached; in every report format, and as an lcov tracefile for genhtml.
#pragma once

#include <string>
#include <vector>

#include "report.h"

namespace dmlcert::cert {

struct Share {
  uint64_t reached = 0, total = 0;
  double percent() const {
    return total ? 100.0 * static_cast<double>(reached) / static_cast<double>(total) : 0;
  }
  // "4,210 of 9,876 (42.6%)"
  std::string text() const;
};

struct CodeCoverageSummary {
  Share edges, functions;
  struct Operator {
    OpKind op;
    Share edges, functions;
  };
  std::vector<Operator> operators;  // the operators the run checked, in registry order
  struct File {
    std::string file;  // empty: functions without line information
    Share edges, functions;
  };
  std::vector<File> files;                         // by name
  std::vector<const CodeFunction*> never_reached;  // in edge order
};
// Needs r.code_coverage instrumented and r.code_functions named (code_symbols.h).
CodeCoverageSummary summarize_code(const Report& r);

// For the terminal and the top of every report: "Code coverage: 4,210 of 9,876 edges (42.6%), ..."
// or why there is none; empty when the backend could not tell (in-process).
std::string code_coverage_line(const Report& r);
// The lines after it: per operator, then the functions never reached (the first `shown`).
std::vector<std::string> code_coverage_details(const Report& r, size_t shown);

// An lcov tracefile (geninfo's format) of the reached functions and lines, per source file; what
// genhtml renders (certify --coverage-html). Empty when there is no coverage.
std::string to_lcov(const Report& r);

// "0-15,18,20-31": the indices whose flag is set.
std::string ranges_text(const std::vector<uint8_t>& flags);
// Sets the flags of `text`'s indices (below flags.size()); false if it is not such a list.
bool parse_ranges(const std::string& text, std::vector<uint8_t>& flags);

// Where each edge is in the source (Report::edge_sources), as text for the JSON report, and back:
// false when the text is not such a list for `files` files and `edges` edges.
std::string sources_text(const Report& r);
bool parse_sources(const std::string& text, size_t files, size_t edges, std::vector<Report::EdgeSource>& out);

// Shards' coverage of one plugin: the union of what each reached. Coverage of different plugin
// builds (their edges differ) does not merge: the result says so.
void merge_code_coverage(Report& into, const Report& from);

}  // namespace dmlcert::cert

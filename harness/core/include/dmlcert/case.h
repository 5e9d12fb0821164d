// Cases and case files (docs/case-format.md): one operator descriptor, its input data, and what
// must happen.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "dmlcert/feature_level.h"
#include "dmlcert/file_writer.h"
#include "dmlcert/operators.h"
#include "dmlcert/validate.h"

namespace dmlcert {

struct Tolerance {
  std::optional<uint64_t> ulp;     // {"ulp": N}
  std::optional<double> abs, rel;  // {"abs": x, "rel": y}
  bool operator==(const Tolerance&) const = default;
};

struct Case {
  std::string name;
  FeatureLevel level = kDefaultFeatureLevel;
  OperatorDesc op;
  InputData data;  // logical row-major input data per input role
  CaseClass expect = CaseClass::Valid;
  std::optional<Bytes> expected_output;  // logical row-major, for valid cases
  std::vector<std::string> violates;     // rule IDs, for invalid (and unspecified) cases
  std::optional<Tolerance> tolerance;
  // Free-form provenance written by generators ("fuzz seed=1 case=123"); optional in files.
  std::string origin;
};

// A malformed file: names the file, the JSON path (such as "tensors.input.sizes[2]") and what was
// expected there. For .jsonl files the path starts with the line number ("line 3: ...").
struct CaseError {
  std::string file;
  std::string path;
  std::string message;
  // "FILE: PATH: MESSAGE", one line of printable text at most kMaxErrorLine long, whatever a
  // file name or a file's content holds.
  std::string to_string() const;
  static constexpr size_t kMaxErrorLine = 400;
};

// What reading case files may cost (docs/case-format.md, "Limits").
struct ReadLimits {
  uint64_t max_file_bytes = uint64_t{16} << 20;  // a larger file is refused before it is read
  uint64_t max_cases = 100000;                   // per .jsonl file
};

struct LoadedCases {
  std::vector<Case> cases;
  std::vector<CaseError> errors;  // one per malformed file or .jsonl line, or unreadable path
};

// The case files that paths name, in the order given, each directory expanded recursively
// (sorted, *.json and *.jsonl), so that a caller can load and run one file at a time; every
// directory entry that cannot be read (an unreadable directory, a dangling link) is an error.
struct CaseFileList {
  std::vector<std::string> files;
  std::vector<CaseError> errors;
};
CaseFileList list_case_files(const std::vector<std::string>& paths);

// Reads a whole regular file of at most limit bytes. False, with the reason, when it cannot: a
// FIFO, a socket or a device (refused without waiting), a directory, a file over the limit
// (naming --max-file-bytes).
bool read_text_file(const std::string& path, uint64_t limit, std::string* text, std::string* why);

// Parses one case from JSON text. `file` is only used in the error.
std::optional<Case> parse_case(std::string_view json_text, std::string_view file, CaseError* error);
// Reads a .json file (one case) or a .jsonl file (one case per non-empty line).
LoadedCases load_case_file(const std::string& path, const ReadLimits& limits = {});
// Expands directories recursively (sorted, *.json and *.jsonl) and loads every file. Every path
// that cannot be read (a missing file, an unreadable directory, a dangling link) is an error.
LoadedCases load_cases(const std::vector<std::string>& paths, const ReadLimits& limits = {});

std::string to_json(const Case& c, bool pretty = true);
// Writes a case file (.jsonl: one line) whole or not at all (write_file_atomically()).
FileWritten write_case_file(const std::string& path, const Case& c);

}  // namespace dmlcert

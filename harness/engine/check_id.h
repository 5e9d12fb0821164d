// The names of checks and of the cases a run makes for them (docs/design.md, "Certification"):
// what repro files are called, what reports list, what --expect matches. A name is built here and
// read back here, and nowhere else: code that needs a part of one (its cell, its rule, its level)
// asks a CheckId, never the text.
//
//   one case of a check                                the check it counts against
//   [levels/L/]cells/OP[.FUNCTION]/ROLE/TYPE/rRANK/MODE/REP   OP[.FUNCTION]/ROLE/TYPE/rRANK
//   sequences/CELL/MODE/REP[/MEMBER]                   CELL (a member may count elsewhere)
//   [levels/L/]invalid/RULE/REP, unspecified/RULE/REP  invalid/RULE, unspecified/RULE
//   robustness/CHECK[/REP]                             robustness/CHECK
//   corpus/INDEX-NAME                                  corpus/NAME
//   fuzz-sSEED-cINDEX                                  the same
//   NAME (a case `run` or `replay` reads)              the same; never read back
//
// None of it depends on the seed of a certification: a check is the same check in every run.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "dmlcert/support.h"
#include "generators.h"

namespace dmlcert::cert {

enum class CheckKind : uint8_t {
  Cell,         // valid cases of one support-table cell
  Sequence,     // a family of related cases of one cell, run back to back (sequences.h)
  Invalid,      // invalid cases that break one rule
  Unspecified,  // class U cases of one rule
  Robustness,   // a robustness check (index extremes, the backend's end)
  Corpus,       // one case of the corpus
  Fuzz,         // one case of `dmlcert fuzz`
  Case,         // a case given by name (`dmlcert run`, `dmlcert replay`)
};

// The report section of the rule kinds (report.h), and back.
enum class RuleSection { Invalid, Unspecified, Robustness };
std::string_view name(RuleSection s);  // "invalid", "unspecified", "robustness"
std::optional<RuleSection> section_of(CheckKind k);

// A cell's stable key: "REDUCE.SUM/input/FLOAT32/r3", "SLICE/output/INT8/r1".
std::string cell_key(const SupportCell& c);

struct CheckId {
  CheckKind kind = CheckKind::Case;
  SupportCell cell{};                   // Cell, Sequence
  std::string rule;                     // Invalid, Unspecified: the rule ID; Robustness: the check
  std::string name;                     // Corpus, Case: the case's name; Sequence: the member
  std::optional<FeatureLevel> level;    // Cell, Invalid, Unspecified: a table level below the run's
  std::optional<props::DataMode> mode;  // Cell, Sequence
  std::optional<uint64_t> number;       // which case: the repetition; Corpus: its place; Fuzz: its index
  uint64_t seed = 0;                    // Fuzz: the run's seed

  // One case of a check (every one with a number).
  static CheckId cell_case(const SupportCell& cell, props::DataMode mode, uint64_t rep,
                           std::optional<FeatureLevel> lower = std::nullopt);
  static CheckId family(const SupportCell& cell, props::DataMode mode, uint64_t rep);
  CheckId member(std::string_view member_name) const;  // a family's member
  static CheckId rule_case(RuleSection section, std::string_view rule, uint64_t rep,
                           std::optional<FeatureLevel> lower = std::nullopt);
  static CheckId corpus_case(uint64_t place, std::string_view case_name);
  static CheckId fuzz_case(uint64_t seed, uint64_t index);
  static CheckId given(std::string_view case_name);
  // A check.
  static CheckId of_cell(const SupportCell& cell);
  static CheckId of_rule(RuleSection section, std::string_view rule);

  // Names a check rather than one case of it (no repetition, mode or level).
  bool is_check() const;
  // The check a case of this one counts against: a lower level's cell counts towards the same
  // cell at the run's level, a family towards its cell, a corpus case is known by its name.
  CheckId check() const;
  // What failed, without the case or the cell's role, type and rank: "SLICE1", "REDUCE.SUM",
  // "invalid/SLICE1.WINDOW_BOUNDS", "robustness/BACKEND.DESTROY", "corpus"; the name itself for
  // fuzz and given cases.
  std::string subject() const;
  std::optional<RuleSection> section() const { return section_of(kind); }

  std::string to_string() const;
  // Reads what to_string() writes (a case or a check), except a given case's name. A corpus case
  // whose name starts with digits and a dash reads as a case of the corpus at that place.
  static std::optional<CheckId> parse(std::string_view text);

  bool operator==(const CheckId&) const = default;
};

}  // namespace dmlcert::cert

// Known failures a vendor keeps while a backend is unfinished (docs/design.md, "Expected
// failures"), in the spirit of a conformance suite's baseline in CI: a run passes while every
// failure is a known one, fails on a new one, and says which known ones now pass.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "report.h"

namespace dmlcert::cert {

struct Expectations {
  std::string file;
  std::vector<ExpectationCheck::Entry> entries;  // pattern, reason, expires
};

// Reads a text file, a line per known failure:
//   KEY-PATTERN  [expires=YYYY-MM-DD]  REASON...
// `#` starts a comment. KEY-PATTERN is a key as failing_keys() names it, `*` matching any run of
// characters ("REDUCE.SUM/*/FLOAT16/*", "invalid/SLICE1.*", "corpus/*"). A JSON certification
// report is read too: each of its failing keys becomes an entry. nullopt, with "FILE:LINE: why",
// for anything else.
std::optional<Expectations> load_expectations(const std::string& path, std::string* error);

// Holds the entries against the report's failing keys, on `today` (YYYY-MM-DD).
ExpectationCheck check_expectations(const Expectations& e, const Report& r, const std::string& today);

bool glob_match(std::string_view pattern, std::string_view key);

// Whether an entry that has not expired by `today` covers the failing key.
bool expects(const Expectations& e, std::string_view key, const std::string& today);

// Today's date, UTC, as YYYY-MM-DD.
std::string today_utc();

}  // namespace dmlcert::cert

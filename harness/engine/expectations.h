// Known failures a vendor keeps while a backend is unfinished (docs/design.md, "Expected
// failures"), in the spirit of a conformance suite's baseline in CI: a run passes while every
// failure is a known one, fails on a new one, and says which known ones now pass.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "failure.h"
#include "report.h"

namespace dmlcert::cert {

struct Expectations {
  std::string file;
  std::vector<ExpectationCheck::Entry> entries;  // pattern, reason, expires
};

// Reads a text file, a line per known failure:
//   KEY-PATTERN        [status=S] [expires=YYYY-MM-DD]  REASON...
//   cause "CAUSE-NAME" [status=S] [expires=YYYY-MM-DD]  REASON...
// `#` starts a comment. KEY-PATTERN is a key as failing_keys() names it, `*` matching any run of
// characters ("REDUCE.SUM/*/FLOAT16/*", "invalid/SLICE1.*", "corpus/*"). CAUSE-NAME is a cause as
// the reports name it ("GATHER_ELEMENTS: valid case rejected (invalid-argument)"): it covers every
// failure of that bug, whichever cells the seed made it fail, so a baseline of causes holds across
// seeds. S is fail, crash, flaky or either (the default). A JSON certification report is read too,
// as `dmlcert baseline` would write it (baseline_text). nullopt, with "FILE:LINE: why", for
// anything else.
std::optional<Expectations> load_expectations(const std::string& path, std::string* error);

// The expectations that cover a report's failures: one cause entry per cause, with the status its
// failures showed, and a key entry for each failing key no failure explains (a cell that failed
// without a failure on record).
std::vector<ExpectationCheck::Entry> baseline_entries(const Report& r, const std::string& source);
// The same as an expectation file, with a header saying where it came from.
std::string baseline_text(const Report& r, const std::string& source);

// Holds the entries against the report's failing keys, on `today` (YYYY-MM-DD). A key is known
// when a key entry covers it with the status of its failures, or when every failure that counts
// against it belongs to a cause an entry covers.
ExpectationCheck check_expectations(const Expectations& e, const Report& r, const std::string& today);

bool glob_match(std::string_view pattern, std::string_view key);

// The status words an entry may give, and the one a failure's outcome has: "crash" when the
// backend's process died, hung or ran out of its limits, "flaky" when it did not come back, "fail"
// otherwise.
const std::vector<std::string>& expectation_statuses();
std::string expectation_status(Outcome outcome);

// Whether an entry that has not expired by `today` covers the failing key (any status), or the
// failure (its key or its cause, and its status): what the engine asks during the run.
bool expects(const Expectations& e, std::string_view key, const std::string& today);
bool expects(const Expectations& e, const Failure& f, const std::string& today);

// Today's date, UTC, as YYYY-MM-DD.
std::string today_utc();

}  // namespace dmlcert::cert

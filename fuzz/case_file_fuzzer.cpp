// libFuzzer target: a case file, as `dmlcert run` reads one (docs/case-format.md). A case that
// parses is written back and read again (the reader and the writer must agree on every case), then
// classified and run on the optimized backend, judged against the reference, in bindings placed
// against no-access pages (backends/plugin/guarded_buffers.h) so that a stray read or write
// faults at once. A finding is a crash, a sanitizer report, a round trip that changes the case,
// or an outcome only a bug gives: the optimized backend failing a case, or touching memory it
// must not.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "dmlcert/case.h"
#include "dmlcert/runner.h"
#include "optimized/optimized.h"
#include "plugin/guarded_buffers.h"
#include "reference/reference.h"

namespace {

using namespace dmlcert;

[[noreturn]] void finding(const std::string& what) {
  std::fprintf(stderr, "case_file_fuzzer: %s\n", what.c_str());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const auto backend = optimized::make_backend();
  static const auto oracle = reference::make_oracle();
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  CaseError error;
  auto c = parse_case(text, "input.json", &error);
  if (!c) {
    if (error.to_string().size() > CaseError::kMaxErrorLine) finding("an error line over the cap");
    return 0;
  }
  const std::string written = to_json(*c, false);
  const auto again = parse_case(written, "written.json", &error);
  if (!again) finding("a case it wrote does not read back: " + error.to_string());
  if (to_json(*again, false) != written) finding("a case changes on its way through a file: " + written);

  // The file's claims are not what is fuzzed here: a rule list or a tolerance it makes up would
  // fail a correct backend. What it gets judged by is the validator's and the default comparison.
  c->violates.clear();
  c->tolerance.reset();
  RunOptions options;
  options.max_case_bytes = uint64_t{64} << 20;
  options.allocate = plugin::allocate_guarded_case_buffers;
  Runner runner(*backend, *oracle, options);
  const CaseReport r = runner.run(*c, classify(c->op, c->level, c->data));
  if (r.outcome == Outcome::Failed || r.outcome == Outcome::Oob)
    finding(std::string(name(r.outcome)) + ": " + r.detail + "\n" + to_json(*c, false));
  return 0;
}

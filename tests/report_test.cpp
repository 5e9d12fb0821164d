// Reports must stay well-formed whatever a backend under test says: its name and its messages
// end up inside HTML and JUnit XML.
#include "report.h"

#include <gtest/gtest.h>

#include <ostream>
#include <string>

namespace dmlcert::cert {
namespace {

Report report_with_hostile_text() {
  Report r;
  r.backend = "plugin:/tmp/lib<evil>.so";
  r.backend_name = "a&b \"quoted\" <script>\a\x1b[31m";
  r.budget = "quick";
  Failure f;
  f.where = "cells/SLICE/input/FLOAT32/r1/random/0";
  f.case_name = "x";
  f.outcome = Outcome::Failed;
  f.detail = std::string("message with a bell \a, an escape \x1b[31m and </failure>");
  f.repro = "/tmp/repro.json";
  r.failures.push_back(f);
  return r;
}

struct MarkupRow {
  const char* name;
  std::string (*render)(const Report&);
};

void PrintTo(const MarkupRow& r, std::ostream* os) {
  *os << r.name;
}

class ReportMarkup : public ::testing::TestWithParam<MarkupRow> {};

TEST_P(ReportMarkup, EscapesMarkupAndDropsControlCharacters) {
  const std::string out = GetParam().render(report_with_hostile_text());
  EXPECT_EQ(out.find("<evil>"), std::string::npos);
  EXPECT_EQ(out.find("<script>"), std::string::npos);
  EXPECT_NE(out.find("a&amp;b &quot;quoted&quot; &lt;script&gt;"), std::string::npos) << out;
  EXPECT_EQ(out.find('\a'), std::string::npos);
  EXPECT_EQ(out.find('\x1b'), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(
    Formats, ReportMarkup,
    ::testing::Values(MarkupRow{"junit", [](const Report& r) { return to_junit(r); }},
                      MarkupRow{"html", [](const Report& r) { return to_html(r, "/tmp"); }}),
    [](const ::testing::TestParamInfo<MarkupRow>& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace dmlcert::cert

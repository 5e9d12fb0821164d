// The harness has teeth: `dmlcert certify --budget quick --ops OP`, OP the operator the bug lives
// in (every operator for the few that live in all), catches every mutant of the zoo with a
// small repro that replays (fails on the mutant, passes on the reference), a state-dependent one
// with a short sequence that replays in one process, reports its one bug as one cause in every
// format, and certifies every legitimate variant.
#include <gtest/gtest.h>

#include <string>

#include "dmlcert/operators.h"
#include "mutant_catalog.h"
#include "mutation_run.h"
#include "variant_catalog.h"

// Test names and failure messages show the id, not the struct's bytes.
namespace dmlcert::variants {
void PrintTo(const VariantInfo& v, std::ostream* os) {
  *os << v.id;
}
}  // namespace dmlcert::variants

namespace dmlcert::mutants {
void PrintTo(const MutantInfo& m, std::ostream* os) {
  *os << m.id;
}

namespace {

MutationSetup setup() {
  MutationSetup s;
  s.cli = DMLCERT_CLI;
  s.work_dir = DMLCERT_MUTATION_WORK_DIR;
  return s;
}

std::string plugin(std::string_view prefix, std::string_view id) {
  return std::string(DMLCERT_MUTATION_PLUGIN_DIR) + "/" + std::string(prefix) + "_" + std::string(id) + ".so";
}

// How many failures a mutant's run goes on to before it stops: enough that they come from cells,
// lower levels, sequences and rule checks alike (certify interleaves its items), few enough that a
// failure past the first (whose cause is known: not confirmed or shrunk) costs only its call. The
// whole run of the operator would cost 15 to 50 s a mutant. A mutant whose bug needs large cases,
// or a sequence, fails rarely: going on to a second failure costs it up to 80 s, and it stops at
// its first (its one cause is then the one failure's).
constexpr int kFailuresForTheCauses = 20;

int failures_for_the_causes(const MutantInfo& m) {
  return m.large_repro.empty() && !m.state_dependent ? kFailuresForTheCauses : 1;
}

class MutantTest : public testing::TestWithParam<MutantInfo> {};

TEST_P(MutantTest, IsCaughtWithASmallReproThatReplays) {
  const MutantInfo& m = GetParam();
  if (!m.not_caught_yet.empty())
    GTEST_SKIP() << "not caught by a quick certification yet: " << m.not_caught_yet;
  MutationSetup s = setup();
  if (parse_op(m.op)) s.ops = std::string(m.op);
  s.stop_after_failures = failures_for_the_causes(m);
  const Detection d = detect(s, plugin("mutant", m.id), "mutant_" + std::string(m.id));
  SCOPED_TRACE("certify output: " + d.log);
  ASSERT_TRUE(d.ran) << "certify wrote no report";
  ASSERT_TRUE(d.caught) << "survived: " << m.description << " (" << d.cases << " cases)";
  SCOPED_TRACE("caught by " + d.where + " (" + d.outcome + "): " + d.detail);
  // One bug, one cause, in every format (report_summary.h, cause_of).
  if (m.several_causes.empty()) {
    EXPECT_EQ(d.causes_json, 1u) << "causes in the JSON report: " << d.cause_names;
  } else {
    EXPECT_GE(d.causes_json, 1u) << m.several_causes;
  }
  EXPECT_EQ(d.causes_markdown, d.causes_json) << "Markdown report";
  EXPECT_EQ(d.causes_html, d.causes_json) << "HTML report";
  EXPECT_EQ(d.causes_junit, d.causes_json) << "JUnit report";
  // A state-dependent failure passes alone by definition: its sequence replays it (below).
  if (!m.state_dependent) {
    EXPECT_TRUE(d.replay_fails_on_plugin) << d.repro << " does not fail again on the mutant";
  }
  EXPECT_TRUE(d.replay_passes_on_reference) << d.repro << " does not pass on the reference";
  if (m.large_repro.empty()) {
    EXPECT_TRUE(small_repro(d)) << d.repro << ": output rank " << d.rank << ", " << d.output_elements
                                << " elements (at most rank " << std::max(3u, d.min_rank)
                                << " and 64 elements)";
  }
  if (m.state_dependent) {
    // The failure shows only after other cases: confirmed as such, bisected to a short sequence
    // that `dmlcert run` replays in one process (docs/design.md, "The engine").
    EXPECT_EQ(d.confirmation, "state-dependent");
    ASSERT_FALSE(d.sequence.empty()) << "no sequence file";
    EXPECT_LE(d.sequence_length, 4u) << d.sequence;
    EXPECT_GE(d.sequence_length, 2u) << d.sequence;
    EXPECT_TRUE(d.sequence_fails_on_plugin) << d.sequence << " does not fail again on the mutant";
    EXPECT_TRUE(d.sequence_passes_on_reference) << d.sequence << " does not pass on the reference";
  }
}

INSTANTIATE_TEST_SUITE_P(Zoo, MutantTest, testing::ValuesIn(kMutants),
                         [](const testing::TestParamInfo<MutantInfo>& row) {
                           return std::string(row.param.id);
                         });

class VariantTest : public testing::TestWithParam<variants::VariantInfo> {};

// In CTest a variant is certified with the smoke budget, which keeps every kind of item (cells,
// sequences, lower levels, rules) at a few seconds a variant; scripts/mutation-score certifies
// each with the quick budget (docs/mutation-score.md).
TEST_P(VariantTest, Certifies) {
  const variants::VariantInfo& v = GetParam();
  MutationSetup smoke = setup();
  smoke.budget = "smoke";
  std::string log;
  EXPECT_TRUE(certifies(smoke, plugin("variant", v.id), "variant_" + std::string(v.id), &log))
      << v.description << " was not certified; see " << log;
}

INSTANTIATE_TEST_SUITE_P(Legitimate, VariantTest, testing::ValuesIn(variants::kVariants),
                         [](const testing::TestParamInfo<variants::VariantInfo>& row) {
                           return std::string(row.param.id);
                         });

}  // namespace
}  // namespace dmlcert::mutants

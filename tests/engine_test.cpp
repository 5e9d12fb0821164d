// The engine behind `fuzz` and `certify`, in this process: certifications of GoogleMock
// backends that delegate to the reference, with one wrong behaviour switched on where a row says.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <atomic>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <sstream>

#include "certify.h"
#include "expectations.h"
#include "fuzz.h"
#include "mock_backend.h"
#include "reference/reference.h"
#include "report_summary.h"
#include "scratch_dir.h"
#include "test_util.h"

namespace dmlcert {
namespace {

namespace fs = std::filesystem;
using ::testing::_;
using ::testing::Invoke;
using ::testing::Return;

// A mock that claims what the reference claims and executes through it, except where `wrong`
// answers first (a non-empty result).
using Wrong = std::function<std::optional<ExecResult>(const OperatorDesc&, FeatureLevel, const Bindings&)>;
std::unique_ptr<Backend> mock_over_reference(Wrong wrong) {
  auto mock = testing::MockBackend::claiming_everything();
  ON_CALL(*mock, execute(_, _, _))
      .WillByDefault(Invoke([wrong](const OperatorDesc& d, FeatureLevel l, const Bindings& b) {
        if (wrong)
          if (auto r = wrong(d, l, b)) return *r;
        return test::reference_backend().execute(d, l, b);
      }));
  return mock;
}

engine::CertifyOptions smoke_options(const std::string& dir, std::vector<OpKind> ops, FeatureLevel level) {
  engine::CertifyOptions o;
  o.backend = "mock";
  o.level = level;
  o.budget = *engine::budget_named("smoke");  // every kind of item, few of each
  o.ops = std::move(ops);
  o.engine.backend_spec = "mock";
  o.engine.program = "dmlcert";
  o.engine.repro_dir = dir;
  return o;
}

// A certification whose backends are mocks over the reference that answer `wrong` first, counting
// the backends it makes (the one under test, then one per fresh process it asks for).
std::optional<cert::Report> certify_counting(const engine::CertifyOptions& o, Wrong wrong, int* opened,
                                             std::string* error) {
  return engine::run_certification(
      o,
      [wrong, opened] {
        ++*opened;
        return mock_over_reference(wrong);
      },
      test::reference_oracle(), error);
}

fs::path scratch(const std::string& name) {
  return test::scratch_dir("engine_test_" + name);
}

TEST(EngineCertify, CertifiesAMockThatBehavesLikeTheReference) {
  const fs::path dir = scratch("good");
  auto o = smoke_options(dir.string(), {OpKind::SLICE, OpKind::GATHER_ELEMENTS}, FeatureLevel::L3_0);
  std::string error;
  const auto report = engine::run_certification(
      o, [] { return mock_over_reference(nullptr); }, test::reference_oracle(), &error);
  ASSERT_TRUE(report) << error;
  EXPECT_TRUE(cert::certified(*report)) << cert::to_text(*report);
  EXPECT_GT(cert::totals(*report)[static_cast<size_t>(Outcome::Passed)], 100u);
  EXPECT_TRUE(report->failures.empty());
  fs::remove_all(dir);
}

// The calls a certification makes, by the table level of the call (docs/design.md, "Certification"), and
// the shapes it asks for more than once (docs/design.md, "Certification").
TEST(EngineCertify, AsksEveryLowerTableLevelAndRelatedCasesOfOneShape) {
  const fs::path dir = scratch("levels");
  auto calls = std::make_shared<std::map<FeatureLevel, size_t>>();
  Wrong count_levels = [calls](const OperatorDesc&, FeatureLevel l,
                               const Bindings&) -> std::optional<ExecResult> {
    ++(*calls)[table_level(l)];
    return std::nullopt;
  };
  auto o = smoke_options(dir.string(), {OpKind::SLICE}, FeatureLevel::L5_0);
  std::string error;
  const auto report = engine::run_certification(
      o, [&] { return mock_over_reference(count_levels); }, test::reference_oracle(), &error);
  ASSERT_TRUE(report) << error;
  EXPECT_TRUE(cert::certified(*report)) << cert::to_text(*report);
  for (FeatureLevel lower :
       {FeatureLevel::L1_0, FeatureLevel::L2_1, FeatureLevel::L3_0, FeatureLevel::L4_1}) {
    EXPECT_GT((*calls)[lower], 20u) << name(lower);
    EXPECT_GT((*calls)[FeatureLevel::L5_0], 2 * (*calls)[lower])
        << "weighted toward the level: " << name(lower);
  }
  const engine::ShapeRecurrence& g = report->recurrence;
  // smoke runs a family for every eighth cell: 22 of SLICE's 176.
  EXPECT_GE(g.recurring, 20u);
  for (uint64_t recurred : {g.other_layout, g.other_type, g.other_level, g.other_data, g.repeated})
    EXPECT_GE(recurred, 10u);
  EXPECT_LE(g.recurring, g.groups);
  fs::remove_all(dir);
}

// A SLICE that remembers the output bytes of its first call of each shape (sizes and type) and
// writes them again for a later call of that shape: right alone, wrong after a related case with
// other strides or other data. Each instance has its own memory, as each process would.
std::unique_ptr<Backend> slice_result_cache() {
  auto cache = std::make_shared<std::map<std::string, Bytes>>();
  return mock_over_reference([cache](const OperatorDesc& d, FeatureLevel l,
                                     const Bindings& b) -> std::optional<ExecResult> {
    const auto* slice = std::get_if<SliceDesc>(&d);
    if (!slice || !validate(d, l).invalid.empty()) return std::nullopt;
    std::string key(name(slice->input.type));
    for (uint32_t s : slice->input.sizes) key += "," + std::to_string(s);
    for (uint32_t s : slice->output.sizes) key += "," + std::to_string(s);
    ExecResult r = test::reference_backend().execute(d, l, b);
    const auto [kept, first] = cache->try_emplace(key, Bytes(b.output.data, b.output.data + b.output.size));
    if (!first)
      std::memcpy(b.output.data, kept->second.data(), std::min<size_t>(b.output.size, kept->second.size()));
    return r;
  });
}

TEST(EngineCertify, StateDependentFailureIsBisectedToAShortSequenceThatReplays) {
  const fs::path dir = scratch("state");
  auto o = smoke_options(dir.string(), {OpKind::SLICE}, FeatureLevel::L5_0);
  o.stop_after_failures = 1;
  std::string error;
  const auto report = engine::run_certification(o, slice_result_cache, test::reference_oracle(), &error);
  ASSERT_TRUE(report) << error;
  ASSERT_EQ(report->failures.size(), 1u);
  const cert::Failure& f = report->failures.front();
  EXPECT_EQ(name(f.confirmation), "state-dependent") << f.detail;
  ASSERT_TRUE(fs::exists(f.sequence)) << "no sequence file";
  EXPECT_EQ(f.reproduce, "dmlcert run " + f.sequence + " --backend mock");
  const LoadedCases sequence = load_case_file(f.sequence);
  ASSERT_GE(sequence.cases.size(), 2u);
  EXPECT_LE(sequence.cases.size(), 4u);
  // Replayed in order in one fresh backend, the earlier cases pass and the last one fails again;
  // alone in a fresh backend it passes.
  auto replay = slice_result_cache();
  Runner in_order(*replay, test::reference_oracle());
  for (size_t i = 0; i + 1 < sequence.cases.size(); ++i)
    EXPECT_EQ(name(test::judge(in_order, sequence.cases[i]).outcome), "passed");
  EXPECT_EQ(test::judge(in_order, sequence.cases.back()).outcome, f.outcome);
  auto fresh = slice_result_cache();
  Runner alone(*fresh, test::reference_oracle());
  EXPECT_EQ(name(test::judge(alone, sequence.cases.back()).outcome), "passed");
  fs::remove_all(dir);
}

// A SLICE whose calls with a rank-2 input (or every call: `every_rank`) leave a thread behind that
// writes into the output. In the backend under test the write lands after the call returned, and
// the next call reports it (ExecResult::late), as an isolated backend does. In a fresh backend it
// lands at once, before the harness reads the output, as it can on a loaded machine where the
// call's bindings are put out of reach late.
std::unique_ptr<Backend> late_writer(bool lands_early, bool every_rank = false) {
  auto calls = std::make_shared<uint64_t>(0);
  auto writer = std::make_shared<uint64_t>(0);  // the call whose thread writes, not yet reported
  return mock_over_reference([=](const OperatorDesc& d, FeatureLevel l, const Bindings& b) {
    ExecResult r = test::reference_backend().execute(d, l, b);
    r.call = ++*calls;
    if (*writer)
      r.late.push_back({std::exchange(*writer, 0), Fault::LateWrite, "wrote 1 byte of the output", false});
    const auto* slice = std::get_if<SliceDesc>(&d);
    if (slice && r.status == Status::Ok && (every_rank || slice->input.rank() == 2) && b.output.size > 0) {
      if (lands_early)
        b.output.data[0] ^= std::byte{0x5A};
      else
        *writer = r.call;
    }
    return std::optional<ExecResult>(r);
  });
}

// A late write is blamed on the call that made it, and confirmed alone even when, alone, it lands
// before the harness reads the output: a wrong output there is the same write, early.
TEST(EngineCertify, ALateWriteThatLandsEarlyAloneIsStillReproduced) {
  const fs::path dir = scratch("late_write");
  auto o = smoke_options(dir.string(), {OpKind::SLICE}, FeatureLevel::L5_0);
  o.stop_after_failures = 1;
  bool first = true;
  std::string error;
  const auto report = engine::run_certification(
      o, [&first] { return late_writer(/*lands_early=*/!std::exchange(first, false)); },
      test::reference_oracle(), &error);
  ASSERT_TRUE(report) << error;
  ASSERT_FALSE(report->failures.empty());
  const cert::Failure& f = report->failures.front();
  EXPECT_EQ(f.outcome, Outcome::LateWrite) << f.detail;
  EXPECT_EQ(name(f.confirmation), "reproduced alone") << f.id.to_string();
  fs::remove_all(dir);
}

// A known late write (certify --expect) is reported as it is found, like any known failure, without
// a fresh backend to confirm it.
TEST(EngineCertify, AKnownLateWriteStartsNoFreshBackend) {
  const fs::path dir = scratch("late_write_known");
  auto o = smoke_options(dir.string(), {OpKind::SLICE}, FeatureLevel::L5_0);
  o.engine.known = [](const cert::Failure& f) {
    return cert::glob_match("SLICE/*/*/r2", f.counts_at.to_string());
  };
  int opened = 0;
  std::string error;
  const auto report = engine::run_certification(
      o,
      [&opened] {
        ++opened;
        return late_writer(/*lands_early=*/false);
      },
      test::reference_oracle(), &error);
  ASSERT_TRUE(report) << error;
  ASSERT_FALSE(report->failures.empty());
  for (const cert::Failure& f : report->failures) {
    EXPECT_EQ(f.outcome, Outcome::LateWrite) << f.id.to_string();
    EXPECT_EQ(name(f.confirmation), "unchecked") << f.id.to_string();
  }
  EXPECT_EQ(opened, 1) << "only the backend under test";
  fs::remove_all(dir);
}

// A late write counts where its case counted, found when a later case ran or not: each cell's
// count of late writes is the number of late-write failures the report lists against it, those of
// the sequences' members of other types included.
TEST(EngineCertify, ALateWriteCountsAgainstTheCellItsCaseCountedIn) {
  const fs::path dir = scratch("late_write_counts");
  auto o = smoke_options(dir.string(), {OpKind::SLICE}, FeatureLevel::L5_0);
  std::string error;
  const auto report = engine::run_certification(
      o, [] { return late_writer(/*lands_early=*/false, /*every_rank=*/true); }, test::reference_oracle(),
      &error);
  ASSERT_TRUE(report) << error;
  std::map<std::string, uint64_t> listed;
  int of_other_types = 0;
  for (const cert::Failure& f : report->failures) {
    if (f.outcome == Outcome::LateWrite) ++listed[f.counts_at.to_string()];
    of_other_types += f.id.kind == cert::CheckKind::Sequence && f.id.name.starts_with("type-");
  }
  ASSERT_GT(of_other_types, 0) << "no member of another type wrote late: the test shows nothing";
  for (const cert::CellResult& c : report->cells)
    EXPECT_EQ(c.counts[static_cast<size_t>(Outcome::LateWrite)], listed[cert::cell_key(c.cell)])
        << cert::cell_key(c.cell);
  fs::remove_all(dir);
}

// A FLOAT32 REDUCE SUM that adds one more than the previous such call's first result to its own
// first result: right alone, wrong after any earlier FLOAT32 SUM in the same process, however
// many calls of other operators and functions ran in between.
std::unique_ptr<Backend> sum_carried_over() {
  auto previous = std::make_shared<std::optional<float>>();
  return mock_over_reference(
      [previous](const OperatorDesc& d, FeatureLevel l, const Bindings& b) -> std::optional<ExecResult> {
        const auto* reduce = std::get_if<ReduceDesc>(&d);
        if (!reduce || reduce->function != ReduceFunction::SUM || reduce->output.type != DataType::FLOAT32 ||
            !validate(d, l).invalid.empty())
          return std::nullopt;
        ExecResult r = test::reference_backend().execute(d, l, b);
        float first;
        std::memcpy(&first, b.output.data,
                    sizeof first);  // element 0 is at offset 0 (no negative output strides)
        const float wrong = *previous ? first + **previous + 1.0f : first;
        *previous = first;
        std::memcpy(b.output.data, &wrong, sizeof wrong);
        return r;
      });
}

TEST(EngineCertify, StateKeptByOneKernelIsBisectedAcrossManyCallsOfOthers) {
  const fs::path dir = scratch("kernel_state");
  auto o = smoke_options(dir.string(), {}, FeatureLevel::L5_0);  // every operator, interleaved
  o.stop_after_failures = 1;
  std::string error;
  const auto report = engine::run_certification(o, sum_carried_over, test::reference_oracle(), &error);
  ASSERT_TRUE(report) << error;
  ASSERT_EQ(report->failures.size(), 1u);
  const cert::Failure& f = report->failures.front();
  EXPECT_THAT(f.id.to_string(), ::testing::HasSubstr("REDUCE.SUM/"));
  EXPECT_EQ(name(f.confirmation), "state-dependent") << f.detail;
  const LoadedCases sequence = load_case_file(f.sequence);
  ASSERT_EQ(sequence.cases.size(), 2u) << f.sequence;
  EXPECT_EQ(reduce_function(sequence.cases.front().op), ReduceFunction::SUM);
  fs::remove_all(dir);
}

// SCATTER_ND that writes part of its output, then rejects what the reference rejects: out-of-range
// indices (class U, docs/semantics.md: a rejection leaves every output byte as it was).
TEST(EngineCertify, PartialWriteThenRejectFailsAClassUCase) {
  const fs::path dir = scratch("partial");
  Wrong partial_write = [](const OperatorDesc& d, FeatureLevel l,
                           const Bindings& b) -> std::optional<ExecResult> {
    if (!std::holds_alternative<ScatterNdDesc>(d) || !validate(d, l).invalid.empty()) return std::nullopt;
    ExecResult r = test::reference_backend().execute(d, l, b);
    if (r.status != Status::Ok && b.output.size > 0) b.output.data[0] = std::byte{0};
    return r;
  };
  auto o = smoke_options(dir.string(), {OpKind::SCATTER_ND}, FeatureLevel::L5_0);
  o.stop_after_failures = 1;
  std::string error;
  const auto report = engine::run_certification(
      o, [&] { return mock_over_reference(partial_write); }, test::reference_oracle(), &error);
  ASSERT_TRUE(report) << error;
  ASSERT_EQ(report->failures.size(), 1u);
  const cert::Failure& f = report->failures.front();
  EXPECT_EQ(f.outcome, Outcome::Failed);
  EXPECT_THAT(f.detail, ::testing::HasSubstr("unspecified case was rejected"));
  EXPECT_THAT(f.detail, ::testing::HasSubstr("but output bytes were written"));
  const LoadedCases loaded = load_case_file(f.repro);
  ASSERT_EQ(loaded.cases.size(), 1u);
  const Case& c = loaded.cases.front();
  EXPECT_EQ(classify(c.op, c.level, c.data).case_class, CaseClass::Unspecified);
  fs::remove_all(dir);
}

TEST(EngineCertify, FindsConfirmsAndShrinksAWrongSumAndSavesItsRepro) {
  const fs::path dir = scratch("wrong_sum");
  // REDUCE SUM off by one in its first output element, whatever the data.
  Wrong off_by_one = [](const OperatorDesc& d, FeatureLevel l,
                        const Bindings& b) -> std::optional<ExecResult> {
    const auto f = reduce_function(d);
    if (!f || *f != ReduceFunction::SUM || classify(d, l, {}).case_class == CaseClass::Invalid)
      return std::nullopt;
    ExecResult r = test::reference_backend().execute(d, l, b);
    if (r.status == Status::Ok && tensor(d, Role::OUTPUT)->type == DataType::INT32) {
      const int32_t v = load<int32_t>(b.output.data);
      store<int32_t>(b.output.data, v + 1);
    }
    return r;
  };
  auto o = smoke_options(dir.string(), {OpKind::REDUCE}, FeatureLevel::L5_0);
  o.stop_after_failures = 1;
  std::string error;
  const auto report = engine::run_certification(
      o, [&] { return mock_over_reference(off_by_one); }, test::reference_oracle(), &error);
  ASSERT_TRUE(report) << error;
  EXPECT_FALSE(cert::certified(*report));
  ASSERT_EQ(report->failures.size(), 1u);
  const cert::Failure& f = report->failures.front();
  EXPECT_EQ(f.outcome, Outcome::Failed);
  EXPECT_EQ(name(f.confirmation), "reproduced alone");
  EXPECT_TRUE(f.id.to_string().find("REDUCE.SUM/") != std::string::npos) << f.id.to_string();
  ASSERT_TRUE(fs::exists(f.repro));
  ASSERT_TRUE(fs::exists(f.shrunk)) << "the failure was not shrunk";
  EXPECT_EQ(f.reproduce, "dmlcert run " + f.shrunk + " --backend mock");
  // The shrunk case is small and still fails on the wrong backend.
  const LoadedCases loaded = load_case_file(f.shrunk);
  ASSERT_EQ(loaded.cases.size(), 1u);
  const Case& shrunk = loaded.cases.front();
  EXPECT_LE(element_count(tensor(shrunk.op, Role::INPUT)->sizes).value_or(0), 4u) << to_json(shrunk);
  auto wrong = mock_over_reference(off_by_one);
  Runner runner(*wrong, test::reference_oracle());
  EXPECT_EQ(test::judge(runner, shrunk).outcome, Outcome::Failed);
  fs::remove_all(dir);
}

// REDUCE SUM with INT32 output one too high in every valid call.
std::optional<ExecResult> int32_sum_off_by_one(const OperatorDesc& d, FeatureLevel l, const Bindings& b) {
  const auto f = reduce_function(d);
  if (!f || *f != ReduceFunction::SUM || classify(d, l, {}).case_class != CaseClass::Valid)
    return std::nullopt;
  ExecResult r = test::reference_backend().execute(d, l, b);
  if (r.status == Status::Ok && tensor(d, Role::OUTPUT)->type == DataType::INT32)
    store<int32_t>(b.output.data, load<int32_t>(b.output.data) + 1);
  return r;
}

// A failure the run already expects (certify --expect) is reported as it is found, but no fresh
// backend confirms, bisects or shrinks it: for a library that takes a second to load, those are
// most of a run with many known failures. The list names exactly the failing cells, as a vendor's
// would: a case that a sequence of another type's cell runs (its type-INT32 member) counts against
// its own INT32 cell, and is known there.
TEST(EngineCertify, KnownFailuresAreReportedWithoutFreshBackends) {
  const Wrong off_by_one = int32_sum_off_by_one;
  for (const bool expected : {false, true}) {
    SCOPED_TRACE(expected ? "known" : "new");
    const fs::path dir = scratch(expected ? "known" : "not_known");
    auto o = smoke_options(dir.string(), {OpKind::REDUCE}, FeatureLevel::L5_0);
    if (expected)
      o.engine.known = [](const cert::Failure& f) {
        return cert::glob_match("REDUCE.SUM/*/INT32/*", f.counts_at.to_string());
      };
    int opened = 0;
    std::string error;
    const auto report = certify_counting(o, off_by_one, &opened, &error);
    ASSERT_TRUE(report) << error;
    ASSERT_FALSE(report->failures.empty());
    int reproduced = 0, in_sequences = 0;
    for (const cert::Failure& f : report->failures) {
      EXPECT_TRUE(cert::glob_match("REDUCE.SUM/*/INT32/*", f.counts_at.to_string()))
          << f.id.to_string() << " counts against " << f.counts_at.to_string();
      in_sequences += f.id.kind == cert::CheckKind::Sequence && f.id.cell.type != DataType::INT32;
      if (expected)
        EXPECT_EQ(name(f.confirmation), "unchecked") << f.id.to_string();
      else
        reproduced += f.confirmation == cert::Confirmation::Reproduced;
      EXPECT_TRUE(fs::exists(f.repro)) << "a known failure still leaves its case file";
    }
    EXPECT_GT(in_sequences, 0) << "no member of another type's sequence failed: the test shows nothing";
    if (expected)
      EXPECT_EQ(opened, 1) << "only the backend under test";
    else
      EXPECT_GT(opened, reproduced);
    fs::remove_all(dir);
  }
}

// A backend wrong in every call of a cell: the first failures of each cell are confirmed alone in a
// fresh backend and shrunk, the rest are saved and reported unchecked, so that the run costs a few
// fresh backends per failing cell instead of one per failing case.
TEST(EngineCertify, InvestigatesTheFirstFailuresOfEachPlace) {
  const fs::path dir = scratch("per_place");
  auto o = smoke_options(dir.string(), {OpKind::REDUCE}, FeatureLevel::L2_1);  // rank 4 only: few cells
  o.budget.per_cell_mode = 4;               // eight cases a cell: past the cap of two
  o.engine.max_investigated_per_cause = 0;  // every failure here has one cause: the next test's cap
  int opened = 0;
  std::string error;
  const auto report = certify_counting(o, int32_sum_off_by_one, &opened, &error);
  ASSERT_TRUE(report) << error;
  std::map<std::string, int> failures, reproduced;
  for (const cert::Failure& f : report->failures) {
    const std::string place = f.counts_at.to_string();
    ++failures[place];
    if (f.confirmation == cert::Confirmation::Reproduced)
      ++reproduced[place];
    else
      EXPECT_EQ(name(f.confirmation), "unchecked") << f.id.to_string();
    EXPECT_TRUE(fs::exists(f.repro)) << f.id.to_string();
  }
  int past_the_cap = 0;
  for (const auto& [place, n] : failures) {
    EXPECT_EQ(reproduced[place], std::min(n, o.engine.max_investigated_per_check)) << place;
    past_the_cap += n > o.engine.max_investigated_per_check;
  }
  EXPECT_GT(past_the_cap, 0) << "no place failed often enough to show the cap";
  const size_t investigated = failures.size() * static_cast<size_t>(o.engine.max_investigated_per_check);
  EXPECT_LT(static_cast<size_t>(opened), report->failures.size())
      << "one fresh backend per failure: the cap did not hold";
  EXPECT_LE(static_cast<size_t>(opened), 1 + investigated + static_cast<size_t>(o.budget.max_shrinks));
  fs::remove_all(dir);
}

// Every failure of a backend whose INT32 sums are one off has one cause (REDUCE.SUM, failed, "wrong
// output: # of # elements differ"): it is confirmed twice in fresh backends, whatever the place,
// and every later failure is saved and reported, unchecked (EngineOptions::cause).
TEST(EngineCertify, InvestigatesTheFirstFailuresOfEachCause) {
  const fs::path dir = scratch("per_cause");
  auto o = smoke_options(dir.string(), {OpKind::REDUCE}, FeatureLevel::L3_0);  // ranks 1 to 8: many cells
  int opened = 0;
  std::string error;
  const auto report = certify_counting(o, int32_sum_off_by_one, &opened, &error);
  ASSERT_TRUE(report) << error;
  std::set<std::string> places;
  int reproduced = 0;
  for (const cert::Failure& f : report->failures) {
    places.insert(f.counts_at.to_string());
    reproduced += f.confirmation == cert::Confirmation::Reproduced;
    EXPECT_TRUE(fs::exists(f.repro)) << f.id.to_string();
  }
  EXPECT_GT(places.size(), 2u) << "the failures must span more places than the cause's cap";
  EXPECT_EQ(reproduced, o.engine.max_investigated_per_cause);
  EXPECT_LE(opened, 1 + o.engine.max_investigated_per_cause + o.budget.max_shrinks);
  fs::remove_all(dir);
}

// Two workers split the run between two backends and merge their reports: the same cases, counts,
// failures and verdict as one worker. Aside: the order failures are listed in, times, the shapes
// each process saw twice, and which failures of a place were investigated (the first ones each
// worker found).
TEST(EngineCertify, TwoWorkersGiveTheSameReportAsOne) {
  auto certify = [](unsigned jobs) {
    const fs::path dir = scratch("jobs_" + std::to_string(jobs));
    auto o = smoke_options(dir.string(), {OpKind::REDUCE, OpKind::SLICE}, FeatureLevel::L5_0);
    o.jobs = jobs;
    o.budget.max_shrinks = 0;
    int opened = 0;
    std::string error;
    auto report = engine::run_certification(
        o,
        [&] {
          ++opened;
          return mock_over_reference(int32_sum_off_by_one);
        },
        test::reference_oracle(), &error);
    EXPECT_TRUE(report) << error;
    EXPECT_GE(opened, static_cast<int>(jobs));
    report->seconds = 0;
    report->started.clear();
    report->recurrence = {};
    std::sort(
        report->failures.begin(), report->failures.end(),
        [](const cert::Failure& a, const cert::Failure& b) { return a.id.to_string() < b.id.to_string(); });
    // Each run writes into its own directory; workers list a cell's files in their own order.
    auto relative = [&](std::vector<std::string>& files) {
      for (std::string& file : files) file = fs::relative(file, dir).string();
      std::sort(files.begin(), files.end());
    };
    // Wall times differ from run to run.
    for (cert::CellResult& c : report->cells) relative(c.repros), c.seconds = 0;
    for (cert::RuleResult& r : report->rules) relative(r.repros), r.seconds = 0;
    for (cert::CorpusCaseResult& c : report->corpus_cases) c.seconds = 0;
    for (cert::Failure& f : report->failures) {
      f.repro = fs::relative(f.repro, dir).string();
      f.reproduce.clear(), f.sequence.clear();
      f.confirmation = cert::Confirmation::Unchecked;
    }
    return *report;
  };
  const cert::Report one = certify(1), two = certify(2);
  EXPECT_FALSE(one.failures.empty());
  EXPECT_FALSE(cert::certified(two));
  auto lines = [](const cert::Report& r) {
    std::vector<std::string> out;
    std::istringstream in(cert::to_json(r));
    for (std::string line; std::getline(in, line);) out.push_back(line);
    return out;
  };
  const auto a = lines(one), b = lines(two);
  for (size_t i = 0; i < std::min(a.size(), b.size()); ++i)
    ASSERT_EQ(a[i], b[i]) << "the reports differ first at line " << i + 1;
  EXPECT_EQ(a.size(), b.size());
}

// In this process a crash would take dmlcert down with the backend: before every call the case is
// already on disk, in one file rewritten in place (the same inode throughout), which a run that
// ends normally removes.
TEST(EngineCertify, InProcessCallsFindTheirCaseInTheInFlightFile) {
  const fs::path dir = scratch("in_flight");
  const fs::path in_flight = dir / "in-flight.json";
  int calls = 0, matched = 0;
  std::set<ino_t> inodes;
  Wrong check_in_flight = [&](const OperatorDesc& d, FeatureLevel l,
                              const Bindings&) -> std::optional<ExecResult> {
    ++calls;
    const LoadedCases on_disk = load_case_file(in_flight.string());
    struct stat st {};
    if (::stat(in_flight.c_str(), &st) == 0) inodes.insert(st.st_ino);
    if (on_disk.cases.size() == 1 && on_disk.cases.front().op == d && on_disk.cases.front().level == l)
      ++matched;
    return std::nullopt;
  };
  auto o = smoke_options(dir.string(), {OpKind::SLICE1, OpKind::REDUCE}, FeatureLevel::L5_0);
  std::string error;
  const auto report = engine::run_certification(
      o, [&] { return mock_over_reference(check_in_flight); }, test::reference_oracle(), &error);
  ASSERT_TRUE(report) << error;
  EXPECT_TRUE(cert::certified(*report));
  EXPECT_GT(calls, 100);
  EXPECT_EQ(matched, calls);
  EXPECT_EQ(inodes.size(), 1u);
  EXPECT_FALSE(fs::exists(in_flight));
  fs::remove_all(dir);
}

// ---- One classification per case -------------------------------------------------------------

// Counts what a run judged: the cases of its work items, the shrink candidates, and how its
// failures were confirmed and shrunk (so that a row shows it took the path it names).
class Judged : public engine::Listener {
 public:
  void case_ran(const engine::WorkItem&, const engine::CaseOutcome& out) override {
    cases += out.generated && !out.interrupted;
  }
  void shrink_tried(const cert::CheckId&, const Case&, const Classification&, bool) override { ++candidates; }
  void failure_confirmed(const cert::Failure& f) override {
    std::lock_guard<std::mutex> hold(lock);
    ++confirmations[f.confirmation];
  }
  void late_fault_found(const cert::Failure&) override { ++late; }
  std::atomic<uint64_t> cases{0}, candidates{0}, late{0};
  std::mutex lock;
  std::map<cert::Confirmation, int> confirmations;
};

// A REDUCE SUM whose first FLOAT32 or INT32 output element is one too high in every valid call
// (validate(), not classify(): the backend must not add classifications of its own).
std::unique_ptr<Backend> sum_off_by_one_unclassified() {
  return mock_over_reference(
      [](const OperatorDesc& d, FeatureLevel l, const Bindings& b) -> std::optional<ExecResult> {
        const auto f = reduce_function(d);
        if (!f || *f != ReduceFunction::SUM || validate(d, l).case_class() != CaseClass::Valid)
          return std::nullopt;
        ExecResult r = test::reference_backend().execute(d, l, b);
        const DataType out = tensor(d, Role::OUTPUT)->type;
        if (r.status == Status::Ok && out == DataType::INT32)
          store<int32_t>(b.output.data, load<int32_t>(b.output.data) + 1);
        if (r.status == Status::Ok && out == DataType::FLOAT32)
          store<float>(b.output.data, load<float>(b.output.data) + 1.0f);
        return r;
      });
}

struct ClassificationRow {
  std::string name;
  // Runs something on the engine with `judged` listening; returns nothing, asserts nothing.
  std::function<void(const fs::path& dir, engine::Listener& judged)> run;
  // What the run must have done for the row to show anything.
  std::function<void(const Judged&)> took_its_path;
};
void PrintTo(const ClassificationRow& r, std::ostream* os) {
  *os << r.name;
}

engine::CertifyOptions counted_options(const fs::path& dir, std::vector<OpKind> ops, FeatureLevel level,
                                       engine::Listener& judged) {
  auto o = smoke_options(dir.string(), std::move(ops), level);
  o.engine.listeners.push_back(&judged);
  return o;
}

std::vector<ClassificationRow> classification_rows() {
  auto certify = [](engine::CertifyOptions o, engine::BackendFactory open) {
    std::string error;
    ASSERT_TRUE(engine::run_certification(o, open, test::reference_oracle(), &error)) << error;
  };
  auto confirmed_and_shrunk = [](const Judged& j) {
    EXPECT_GT(j.confirmations.count(cert::Confirmation::Reproduced), 0u);
    EXPECT_GT(j.candidates.load(), 0u) << "nothing was shrunk";
  };
  return {
      // Families at 1_0 have no member asked at another level: such a member's generator
      // classifies the case too, to write its `expect` (props::at_level).
      {"certify_cells_families_rules_corpus_at_1_0",
       [=](const fs::path& dir, engine::Listener& judged) {
         auto o = counted_options(dir, {OpKind::SLICE, OpKind::REDUCE}, FeatureLevel::L1_0, judged);
         o.budget.families_per_cell = 0.5;
         o.corpus =
             load_case_file(DMLCERT_SOURCE_DIR "/corpora/seed-examples/slice-doc-example-1.json").cases;
         certify(o, sum_off_by_one_unclassified);
       },
       confirmed_and_shrunk},
      {"certify_lower_levels_rules_robustness_at_5_0",
       [=](const fs::path& dir, engine::Listener& judged) {
         auto o = counted_options(dir, {}, FeatureLevel::L5_0, judged);
         o.budget.families_per_cell = 0;
         certify(o, sum_off_by_one_unclassified);
       },
       confirmed_and_shrunk},
      {"certify_bisecting_a_state_dependent_failure",
       [=](const fs::path& dir, engine::Listener& judged) {
         auto o = counted_options(dir, {OpKind::SLICE}, FeatureLevel::L1_0, judged);
         o.stop_after_failures = 1;
         certify(o, slice_result_cache);
       },
       [](const Judged& j) { EXPECT_GT(j.confirmations.count(cert::Confirmation::StateDependent), 0u); }},
      {"certify_confirming_late_writes",
       [=](const fs::path& dir, engine::Listener& judged) {
         auto o = counted_options(dir, {OpKind::SLICE}, FeatureLevel::L1_0, judged);
         certify(o, [] { return late_writer(/*lands_early=*/false, /*every_rank=*/true); });
       },
       [](const Judged& j) { EXPECT_GT(j.late.load(), 0u) << "no late write was found"; }},
      {"fuzz",
       [](const fs::path& dir, engine::Listener& judged) {
         engine::FuzzOptions o;
         o.cases = 300;
         o.level = FeatureLevel::L2_1;
         o.ops = {OpKind::REDUCE};
         o.shrink_seconds = 1;
         o.engine.repro_dir = dir.string();
         o.engine.listeners.push_back(&judged);
         engine::run_fuzz(sum_off_by_one_unclassified, test::reference_oracle(), o);
       },
       confirmed_and_shrunk},
      {"given_cases_as_run_and_replay_give_them",
       [](const fs::path& dir, engine::Listener& judged) {
         const LoadedCases corpus = load_cases({DMLCERT_SOURCE_DIR "/corpora"});
         class Given final : public engine::Share {
          public:
           explicit Given(const std::vector<Case>& cases) : cases_(cases) {}
           std::optional<engine::Task> next() override {
             if (next_ == cases_.size()) return std::nullopt;
             engine::WorkItem item;
             item.id = cert::CheckId::given(cases_[next_].name);
             item.given = &cases_[next_++];
             return engine::Task{{std::move(item)}};
           }
           uint64_t done() const override { return next_; }

          private:
           const std::vector<Case>& cases_;
           size_t next_ = 0;
         } given(corpus.cases);
         engine::EngineOptions o;
         o.repro_dir = dir.string();
         o.listeners.push_back(&judged);
         engine::OneWorker plan(given);
         std::string error;
         ASSERT_TRUE(engine::run(plan, sum_off_by_one_unclassified, test::reference_oracle(), o, &error))
             << error;
       },
       [](const Judged& j) { EXPECT_GT(j.cases.load(), 100u); }},
  };
}

class OneClassificationPerCase : public ::testing::TestWithParam<ClassificationRow> {};

// The engine classifies each case once and hands the classification to every run of it: the
// first, the confirmation alone, the bisection's replays, the late fault's replay, the reruns of a
// process's calls; each shrink candidate is classified once too.
TEST_P(OneClassificationPerCase, OnEveryPath) {
  const fs::path dir = scratch("classified_" + GetParam().name);
  Judged judged;
  const uint64_t before = classifications();
  GetParam().run(dir, judged);
  const uint64_t classified = classifications() - before;
  EXPECT_EQ(classified, judged.cases + judged.candidates)
      << judged.cases << " cases and " << judged.candidates << " shrink candidates";
  GetParam().took_its_path(judged);
  fs::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(Paths, OneClassificationPerCase, ::testing::ValuesIn(classification_rows()),
                         [](const ::testing::TestParamInfo<ClassificationRow>& row) {
                           return row.param.name;
                         });

}  // namespace
}  // namespace dmlcert

// `dmlcert fuzz`: plans case `index` from (seed, index) and runs it on the engine, which saves,
// judges, confirms and shrinks; this file adds the plan, the coverage and the distributions.
#include "fuzz.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>

#include "dmlcert/interrupt.h"
#include "dmlcert/rules.h"
#include "fuzz_corpus.h"

namespace dmlcert::engine {
namespace {

using namespace props;
using Clock = std::chrono::steady_clock;

// Out of every 10 consecutive cases: 7 valid, 2 invalid, 1 unspecified.
constexpr uint64_t kBlock = 10, kValidPerBlock = 7, kInvalidPerBlock = 2;

std::string op_label(const Case& c) {
  std::string s(name(op_kind(c.op)));
  // Invalid function values (OP.FUNCTION) count together.
  if (auto f = reduce_function(c.op))
    s += " " + (is_valid(*f) ? name(*f) : std::string("(invalid function)"));
  return s;
}

}  // namespace

FuzzPlanner::FuzzPlanner(const FuzzOptions& options) : options_(options) {
  if (options.level)
    levels_ = {*options.level};
  else
    levels_.assign(std::begin(kFuzzLevels), std::end(kFuzzLevels));
  for (FeatureLevel l : levels_) targets_[l] = cell_targets(l, options.ops);
  // Every rule reachable at some planned level; OP.FEATURE_LEVEL needs a level before 2_1, which a
  // cycling run borrows (2_0) so that one run reaches every rule ID.
  for (const Rule& r : rule_catalog()) {
    const std::string id(r.id);
    const bool invalid = makes_invalid(r);
    if (level_for_rule(id, levels_.front(), invalid))
      (invalid ? invalid_rules_ : unspecified_rules_).push_back(id);
  }
}

std::optional<FeatureLevel> FuzzPlanner::level_for_rule(const std::string& rule, FeatureLevel preferred,
                                                        bool invalid) const {
  auto reachable = [&](FeatureLevel l) {
    return invalid ? invalid_case(rule, l, options_.ops).has_value()
                   : unspecified_case(rule, l, options_.ops).has_value();
  };
  if (reachable(preferred)) return preferred;
  for (FeatureLevel l : levels_)
    if (reachable(l)) return l;
  if (!options_.level && reachable(FeatureLevel::L2_0)) return FeatureLevel::L2_0;
  return std::nullopt;
}

FuzzPlan FuzzPlanner::plan(uint64_t index) const {
  FuzzPlan p;
  p.index = index;
  p.case_seed = mix_seed(options_.seed, index);
  p.size = static_cast<int>(p.case_seed % static_cast<uint64_t>(options_.max_size + 1));
  const uint64_t block = index / kBlock, pos = index % kBlock;
  p.level = levels_[block % levels_.size()];
  const uint64_t round = block / levels_.size();
  const uint64_t mode_pick = (p.case_seed >> 20) % 10;
  p.mode = mode_pick < 4 ? DataMode::Exact : (mode_pick < 8 ? DataMode::Random : DataMode::Special);
  const auto& targets = targets_.at(p.level);
  if (pos < kValidPerBlock && !targets.empty()) {
    p.case_class = CaseClass::Valid;
    p.target = targets[(round * kValidPerBlock + pos) % targets.size()];
  } else if (pos < kValidPerBlock + kInvalidPerBlock && !invalid_rules_.empty()) {
    p.case_class = CaseClass::Invalid;
    p.rule = invalid_rules_[(block * kInvalidPerBlock + pos - kValidPerBlock) % invalid_rules_.size()];
    p.level = level_for_rule(p.rule, p.level, true).value_or(p.level);
  } else if (!unspecified_rules_.empty()) {
    p.case_class = CaseClass::Unspecified;
    p.rule = unspecified_rules_[block % unspecified_rules_.size()];
    p.level = level_for_rule(p.rule, p.level, false).value_or(p.level);
  } else {
    p.case_class = CaseClass::Valid;
    p.target = targets.empty() ? std::nullopt : std::optional<CellTarget>(targets[index % targets.size()]);
  }
  return p;
}

FuzzPlan FuzzPlanner::mutate(const FuzzPlan& parent, uint64_t index, uint64_t choice) const {
  FuzzPlan p = parent;
  p.index = index;
  // A seed of its own: every mutant also draws new data and shapes from the same generator.
  p.case_seed = mix_seed(mix_seed(options_.seed, index), choice);
  const uint64_t pick = choice >> 8;
  switch (choice % 5) {
    case 0: break;
    case 1: p.size = std::min(options_.max_size, p.size * 2 + 1); break;
    case 2: p.size /= 2; break;
    case 3:
      p.mode = p.mode == DataMode::Exact    ? DataMode::Random
               : p.mode == DataMode::Random ? DataMode::Special
                                            : DataMode::Exact;
      break;
    case 4: {
      // A neighbouring cell: the same operator (and REDUCE function), another type or rank.
      if (!p.target) break;
      const auto it = targets_.find(p.level);
      if (it == targets_.end()) break;
      std::vector<const CellTarget*> near;
      for (const CellTarget& t : it->second)
        if (t.op == p.target->op && t.function == p.target->function) near.push_back(&t);
      if (!near.empty()) p.target = *near[pick % near.size()];
      break;
    }
  }
  return p;
}

std::string FuzzPlanner::refuses(const FuzzPlan& p) const {
  const std::string level(name(p.level));
  if (p.case_class == CaseClass::Valid) {
    const auto it = targets_.find(p.level);
    if (!p.target || it == targets_.end()) return "level " + level + " is not one this run plans";
    const CellTarget& t = *p.target;
    for (const CellTarget& mine : it->second)
      if (mine.op == t.op && mine.function == t.function && mine.data_type == t.data_type &&
          mine.index_type == t.index_type && mine.rank == t.rank)
        return {};
    return "its cell is not among this run's at " + level + " (--ops, --level)";
  }
  const bool invalid = p.case_class == CaseClass::Invalid;
  const auto& rules = invalid ? invalid_rules_ : unspecified_rules_;
  if (std::find(rules.begin(), rules.end(), p.rule) == rules.end())
    return "rule '" + p.rule + "' is not one this run plans";
  const bool reachable = invalid ? invalid_case(p.rule, p.level, options_.ops).has_value()
                                 : unspecified_case(p.rule, p.level, options_.ops).has_value();
  return reachable ? std::string() : "rule '" + p.rule + "' cannot be broken at " + level + " by this run";
}

rc::Gen<Case> FuzzPlanner::generator(const FuzzPlan& p) const {
  switch (p.case_class) {
    case CaseClass::Invalid: return *invalid_case(p.rule, p.level, options_.ops);
    case CaseClass::Unspecified: return *unspecified_case(p.rule, p.level, options_.ops);
    case CaseClass::Valid:
      if (p.target) return valid_case_for_target(*p.target, p.level, p.mode);
      return valid_case(p.level, options_.ops);
  }
  return valid_case(p.level, options_.ops);
}

void FuzzResult::merge(FuzzResult&& o) {
  cases += o.cases;
  generation_failures += o.generation_failures;
  interrupted |= o.interrupted;
  for (const auto& [k, n] : o.outcomes) outcomes[k] += n;
  for (const auto& [k, c] : o.classes) classes[k].cases += c.cases, classes[k].seconds += c.seconds;
  for (const auto& [k, n] : o.ranks) ranks[k] += n;
  for (const auto& [k, n] : o.types) types[k] += n;
  for (const auto& [k, n] : o.ops) ops[k] += n;
  for (const auto& [k, n] : o.modes) modes[k] += n;
  for (const auto& [rank, d] : o.dimensions) {
    DimensionStats& mine = dimensions[rank];
    mine.cases += d.cases;
    for (size_t i = 0; i < d.above_one.size(); ++i) mine.above_one[i] += d.above_one[i];
  }
  coverage.merge(o.coverage);
  shapes.merge(o.shapes);
  corpus += o.corpus, mutated += o.mutated, corpus_loaded += o.corpus_loaded;
  // Each worker's backend saw its own calls: the best worker's figure is a lower bound of the run's.
  if (o.edges_reached > edges_reached) edges_reached = o.edges_reached;
  edges_total = std::max(edges_total, o.edges_total);
  if (corpus_error.empty()) corpus_error = o.corpus_error;
  std::move(o.failures.begin(), o.failures.end(), std::back_inserter(failures));
}

namespace {

// One worker's indices of a fuzz run: every `stride`-th from `first`, planned from (seed, index)
// alone, with the counts and distributions of the cases they made.
class FuzzShare final : public Share {
 public:
  FuzzShare(const FuzzOptions& options, const FuzzPlanner& planner, uint64_t first, uint64_t stride,
            Clock::time_point start, Backend& under_test, std::vector<FuzzPlan> loaded)
      : options_(options),
        planner_(planner),
        index_(first),
        first_(first),
        stride_(stride),
        start_(start),
        under_test_(under_test),
        loaded_(std::move(loaded)) {}

  std::optional<Task> next() override {
    if (options_.duration_seconds) {
      if (seconds_since(start_) >= *options_.duration_seconds) return std::nullopt;
    } else if (index_ >= options_.cases) {
      return std::nullopt;
    }
    case_start_ = Clock::now();
    plan_ = next_plan();
    WorkItem item;
    item.id = cert::CheckId::fuzz_case(options_.seed, index_);
    item.seed = plan_.case_seed;
    item.size = plan_.size;
    item.gen = planner_.generator(plan_);
    // A guided case's plan is not (seed, index)'s: its origin names the generator and its choices.
    item.origin = guided_origin_.empty()
                      ? "dmlcert fuzz --seed " + std::to_string(options_.seed) + " case " +
                            std::to_string(index_) + " level " + std::string(name(plan_.level))
                      : "dmlcert fuzz --coverage-guided, " + guided_origin_ + ", case " +
                            std::to_string(index_) + ": level " + std::string(name(plan_.level)) + ", seed " +
                            std::to_string(plan_.case_seed) + ", size " + std::to_string(plan_.size);
    index_ += stride_;
    return Task{{std::move(item)}};
  }

  void case_ran(const WorkItem& item, const CaseOutcome& out) override {
    if (out.interrupted) {
      result_.interrupted = true;
      return;
    }
    if (!out.generated) {
      ++result_.generation_failures;  // a suchThat that gave up; the next case goes on
      return;
    }
    const Case& c = out.c;
    std::vector<std::string> found;
    for (const Violation& v : out.cls.findings) found.push_back(v.rule);
    result_.coverage.add(c, out.cls.case_class, found);
    ++result_.cases;
    ++result_.outcomes[std::string(name(out.report.outcome))];
    ClassStats& cls = result_.classes[std::string(name(out.cls.case_class))];
    ++cls.cases;
    const TensorDesc& in = *tensor(c.op, Role::INPUT);
    ++result_.ranks[std::to_string(in.rank())];
    ++result_.types[std::string(name(in.type))];
    ++result_.ops[op_label(c)];
    if (plan_.case_class == CaseClass::Valid) {
      ++result_.modes[std::string(name(plan_.mode))];
      const TensorDesc& o = *tensor(c.op, Role::OUTPUT);
      if (out.cls.case_class == CaseClass::Valid) shapes_.add(c);
      if (out.cls.case_class == CaseClass::Valid && o.rank() >= 1 && o.rank() <= 8) {
        DimensionStats& d = result_.dimensions[o.rank()];
        ++d.cases;
        for (size_t i = 0; i < o.rank(); ++i) d.above_one[i] += o.sizes[i] > 1;
      }
    }
    if (out.failure) result_.failures.push_back({*item.id.number, *out.failure});
    cls.seconds += seconds_since(case_start_);
    ++done_;
    // A case whose call reached edges no call had reached joins the corpus (guided runs).
    if (options_.guided && out.report.exec.new_edges > 0) keep(out.c);
  }

  // A late fault of an earlier case is that case's failure.
  void late_fault_found(const cert::Failure& f) override {
    if (result_.outcomes["passed"] > 0) --result_.outcomes["passed"];
    ++result_.outcomes[std::string(name(f.outcome))];
    result_.failures.push_back({*f.id.number, f});
  }

  void stopped(const std::string&) override { result_.interrupted = true; }
  void finish() override {
    result_.shapes = shapes_.counts();
    if (const CodeCoverage* code = under_test_.code_coverage(); code && code->instrumented) {
      result_.edges_total = code->edges.size();
      for (size_t e = 0; e < code->edges.size(); ++e) result_.edges_reached += code->any(e);
    }
  }
  uint64_t done() const override { return done_; }
  uint64_t planned() const override {
    if (options_.duration_seconds || first_ >= options_.cases) return 0;
    return (options_.cases - first_ + stride_ - 1) / stride_;
  }

  FuzzResult result_;

 private:
  static double seconds_since(Clock::time_point t) {
    return std::chrono::duration<double>(Clock::now() - t).count();
  }

  // The loaded corpus first; then, in a guided run with a corpus, every other case a mutant of an
  // entry (picked at random, as libFuzzer picks inputs); the rest fresh plans.
  FuzzPlan next_plan() {
    guided_origin_.clear();
    if (next_loaded_ < loaded_.size()) {
      FuzzPlan p = loaded_[next_loaded_++];
      p.index = index_;
      ++result_.corpus_loaded;
      guided_origin_ = "a corpus entry (--corpus)";
      return p;
    }
    const uint64_t dice = mix_seed(options_.seed ^ 0x6d757461746531ull, index_);
    if (!options_.guided || corpus_.empty() || dice % 2 == 0) return planner_.plan(index_);
    guided_origin_ = "a mutant of a corpus entry";
    ++result_.mutated;
    const FuzzPlan& parent = corpus_[(dice >> 1) % corpus_.size()];
    return planner_.mutate(parent, index_, mix_seed(dice, corpus_.size()));
  }

  void keep(const Case& c) {
    corpus_.push_back(plan_);
    ++result_.corpus;
    if (options_.corpus_dir.empty() || corpus_error_) return;
    std::string why;
    if (!save_corpus_entry(options_.corpus_dir, plan_, c, &why)) {
      corpus_error_ = true;  // said once; the run goes on
      result_.corpus_error = why;
    }
  }

  const FuzzOptions& options_;
  const FuzzPlanner& planner_;
  uint64_t index_, first_, stride_;
  Clock::time_point start_, case_start_;
  Backend& under_test_;
  FuzzPlan plan_;              // of the case running now
  std::string guided_origin_;  // plan_ is a corpus entry or a mutant of one: which
  std::vector<FuzzPlan> loaded_, corpus_;
  size_t next_loaded_ = 0;
  bool corpus_error_ = false;
  ShapeGroups shapes_;
  uint64_t done_ = 0;
};

class FuzzRun final : public Plan {
 public:
  FuzzRun(const FuzzOptions& options, unsigned jobs, std::vector<FuzzPlan> loaded)
      : options_(options), planner_(options), shares_(jobs), loaded_(std::move(loaded)) {}
  Share& share(unsigned worker, unsigned workers, Backend& under_test) override {
    const uint64_t shards = std::max<uint32_t>(1, options_.shard_count);
    // The loaded corpus is dealt out among the workers.
    std::vector<FuzzPlan> mine;
    for (size_t i = worker; i < loaded_.size(); i += workers) mine.push_back(loaded_[i]);
    shares_[worker] = std::make_unique<FuzzShare>(options_, planner_, options_.shard_index + shards * worker,
                                                  shards * workers, start_, under_test, std::move(mine));
    return *shares_[worker];
  }
  FuzzResult result() {
    FuzzResult result;
    result.levels = planner_.levels();
    for (auto& share : shares_)
      if (share) result.merge(std::move(share->result_));
    std::sort(result.failures.begin(), result.failures.end(),
              [](const FuzzFailure& a, const FuzzFailure& b) { return a.index < b.index; });
    return result;
  }

 private:
  const FuzzOptions& options_;
  const FuzzPlanner planner_;
  const Clock::time_point start_ = Clock::now();
  std::vector<std::unique_ptr<FuzzShare>> shares_;
  std::vector<FuzzPlan> loaded_;
};

}  // namespace

FuzzResult run_fuzz(const BackendFactory& make_backend, Oracle& oracle, const FuzzOptions& options) {
  std::error_code ec;
  std::filesystem::create_directories(options.engine.repro_dir, ec);
  const auto start = Clock::now();
  EngineOptions eo = options.engine;
  eo.jobs = std::max(1u, options.jobs);
  eo.shrink_seconds = options.shrink_seconds;
  eo.max_shrinks = 1 << 20;           // every fuzz failure is shrunk within its time cap
  eo.max_investigated_per_check = 0;  // and investigated: each is a case of its own
  // The corpus's plans that this run can make; the others are named in the result.
  std::vector<FuzzPlan> loaded;
  std::vector<std::string> skipped;
  if (options.guided && !options.corpus_dir.empty()) {
    const FuzzPlanner planner(options);
    for (CorpusEntry& e : load_corpus(options.corpus_dir, &skipped)) {
      if (const std::string why = planner.refuses(e.plan); !why.empty())
        skipped.push_back(e.file + ": " + why);
      else
        loaded.push_back(std::move(e.plan));
    }
  }
  FuzzRun plan(options, eo.jobs, std::move(loaded));
  std::string error;
  if (!run(plan, make_backend, oracle, eo, &error)) return {};
  FuzzResult result = plan.result();
  result.corpus_skipped = std::move(skipped);
  result.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return result;
}

std::string fuzz_summary(const FuzzResult& r) {
  std::ostringstream os;
  os << r.cases << " cases in " << r.seconds << " s ("
     << (r.seconds > 0 ? static_cast<double>(r.cases) / r.seconds : 0) << " cases/s), " << r.failures.size()
     << " failures";
  if (r.interrupted) os << " (interrupted before the end)";
  if (r.generation_failures) os << ", " << r.generation_failures << " generation failures";
  os << "\nOutcomes:";
  for (const auto& [k, n] : r.outcomes) os << " " << k << "=" << n;
  os << "\nThroughput by class (generation + run, summed over workers):";
  for (const auto& [k, s] : r.classes) os << " " << k << "=" << s.cases << " cases at " << s.rate() << "/s;";
  auto dist = [&](const char* title, const std::map<std::string, uint64_t>& m) {
    os << "\n" << title << ":";
    for (const auto& [k, n] : m) os << " " << k << "=" << n;
  };
  dist("Ranks", r.ranks);
  dist("Input types", r.types);
  dist("Operators", r.ops);
  dist("Data modes (valid plans)", r.modes);
  os << "\nOutput dimensions larger than 1, by rank (valid cases; dimension 0 is the outermost):";
  for (const auto& [rank, d] : r.dimensions) {
    os << "\n  rank " << rank << " (" << d.cases << " cases):";
    for (uint32_t i = 0; i < rank; ++i)
      os << " " << i << "=" << (d.cases ? 100 * d.above_one[i] / d.cases : 0) << "%";
  }
  os << "\nShapes asked more than once (valid cases, per worker): " << r.shapes.summary();
  if (r.edges_total > 0 || r.corpus > 0 || r.mutated > 0)
    os << "\nCode coverage (the plugin's edges, best worker): " << r.edges_reached << " of " << r.edges_total
       << "; corpus: " << r.corpus << " entries kept (" << r.corpus_loaded << " loaded), " << r.mutated
       << " mutated cases" << (r.corpus_error.empty() ? "" : "; corpus not written: " + r.corpus_error);
  if (!r.corpus_skipped.empty()) {
    os << "\nCorpus files not run (" << r.corpus_skipped.size() << "):";
    for (size_t i = 0; i < r.corpus_skipped.size() && i < 5; ++i) os << "\n  " << r.corpus_skipped[i];
    if (r.corpus_skipped.size() > 5)
      os << "\n  ... and " << r.corpus_skipped.size() - 5 << " more (JSON report)";
  }
  os << "\n" << r.coverage.table(r.levels);
  return os.str();
}

std::string fuzz_report_json(const FuzzResult& r, const FuzzOptions& o, bool timings) {
  nlohmann::ordered_json j;
  j["seed"] = o.seed;
  j["shard"] = std::to_string(o.shard_index) + "/" + std::to_string(o.shard_count);
  j["backend"] = o.engine.backend_spec;
  j["cases"] = r.cases;
  j["interrupted"] = r.interrupted;
  if (timings) {
    j["jobs"] = o.jobs;
    j["seconds"] = r.seconds;
    j["cases_per_second"] = r.seconds > 0 ? static_cast<double>(r.cases) / r.seconds : 0.0;
  }
  j["generation_failures"] = r.generation_failures;
  if (o.guided)
    j["guided"] = {{"corpus", r.corpus},
                   {"corpus_loaded", r.corpus_loaded},
                   {"mutated", r.mutated},
                   {"corpus_skipped", r.corpus_skipped},
                   {"edges_reached", r.edges_reached},
                   {"edges_total", r.edges_total}};
  j["outcomes"] = r.outcomes;
  for (const auto& [k, s] : r.classes) {
    j["classes"][k]["cases"] = s.cases;
    if (timings) j["classes"][k]["seconds"] = s.seconds, j["classes"][k]["cases_per_second"] = s.rate();
  }
  j["distribution"] = {{"ranks", r.ranks}, {"types", r.types}, {"ops", r.ops}, {"modes", r.modes}};
  for (const auto& [rank, d] : r.dimensions) {
    auto& dj = j["distribution"]["output_dimensions_above_one"][std::to_string(rank)];
    dj["cases"] = d.cases;
    dj["by_dimension"] = std::vector<uint64_t>(d.above_one.begin(), d.above_one.begin() + rank);
  }
  // Per worker, like the throughput: another --jobs splits the shapes among other processes.
  if (timings)
    for (const auto& [key, field] : kShapeRecurrenceFields) j["shape_groups"][key] = r.shapes.*field;
  for (FeatureLevel l : r.levels) {
    const auto cells = support_cells(l);
    const auto missing = r.coverage.missing_cells(l);
    auto& cj = j["coverage"]["cells"][std::string(name(l))];
    cj["total"] = cells.size();
    cj["hit"] = cells.size() - missing.size();
    cj["missing"] = nlohmann::ordered_json::array();
    for (const SupportCell& c : missing) cj["missing"].push_back(describe(c));
  }
  j["coverage"]["rules"] = r.coverage.rules();
  j["coverage"]["missing_rules"] = r.coverage.missing_rules();
  j["failures"] = nlohmann::ordered_json::array();
  for (const FuzzFailure& ff : r.failures) {
    const cert::Failure& f = ff.failure;
    j["failures"].push_back({{"index", ff.index},
                             {"case_seed", f.seed},
                             {"outcome", name(f.outcome)},
                             {"detail", f.detail},
                             {"confirmation", name(f.confirmation)},
                             {"case_file", f.repro},
                             {"shrunk_case_file", f.shrunk},
                             {"sequence_file", f.sequence},
                             {"reproduce", f.reproduce}});
  }
  return j.dump(2);
}

}  // namespace dmlcert::engine

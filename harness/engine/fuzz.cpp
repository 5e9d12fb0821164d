// `dmlcert fuzz`: plans case `index` from (seed, index) and runs it on the engine, which saves,
// judges, confirms and shrinks; this file adds the plan, the coverage and the distributions.
#include "fuzz.h"

#include <atomic>
#include <chrono>
#include <filesystem>
#include <mutex>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "dmlcert/interrupt.h"
#include "dmlcert/rules.h"

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
  std::move(o.failures.begin(), o.failures.end(), std::back_inserter(failures));
}

namespace {

// One worker: every `stride`-th index from `first`, on its own backend and engine.
FuzzResult run_worker(const BackendFactory& make_backend, Oracle& oracle, const FuzzOptions& options,
                      const FuzzPlanner& planner, uint64_t first, uint64_t stride, unsigned worker,
                      std::atomic<uint64_t>& done, std::atomic<uint64_t>& failed,
                      const Clock::time_point start, std::mutex& progress_lock) {
  FuzzResult result;
  std::unique_ptr<Backend> under_test = make_backend();
  if (!under_test) return result;
  EngineOptions eo = options.engine;
  eo.shrink_seconds = options.shrink_seconds;
  eo.max_shrinks = 1 << 20;  // every fuzz failure is shrunk within its time cap
  eo.in_flight = "in-flight-" + std::to_string(worker);
  Engine engine(*under_test, oracle, make_backend, eo);
  auto seconds_since = [](Clock::time_point t) {
    return std::chrono::duration<double>(Clock::now() - t).count();
  };
  for (uint64_t index = first;; index += stride) {
    if (stop_requested()) {
      result.interrupted = true;
      break;
    }
    if (options.duration_seconds) {
      if (seconds_since(start) >= *options.duration_seconds) break;
    } else if (index >= options.cases) {
      break;
    }
    const auto case_start = Clock::now();
    const FuzzPlan plan = planner.plan(index);
    WorkItem item;
    item.key = "fuzz-s" + std::to_string(options.seed) + "-c" + std::to_string(index);
    item.seed = plan.case_seed;
    item.size = plan.size;
    item.gen = planner.generator(plan);
    item.origin = "dmlcert fuzz --seed " + std::to_string(options.seed) + " case " + std::to_string(index) +
                  " level " + std::string(name(plan.level));
    CaseOutcome out = engine.run(item);
    if (out.interrupted) {
      result.interrupted = true;
      break;
    }
    // A late fault of an earlier case is that case's failure (its index is in its key).
    auto count_earlier = [&] {
      for (Failure& f : out.earlier) {
        const uint64_t earlier = std::stoull(f.key.substr(f.key.rfind("-c") + 2));
        if (result.outcomes["passed"] > 0) --result.outcomes["passed"];
        ++result.outcomes[std::string(name(f.outcome))];
        ++failed;
        result.failures.push_back({earlier, std::move(f)});
      }
    };
    if (!out.generated) {
      count_earlier();
      ++result.generation_failures;  // a suchThat that gave up; the next case goes on
      continue;
    }
    const Case& c = out.c;
    std::vector<std::string> found;
    for (const Violation& v : out.cls.findings) found.push_back(v.rule);
    result.coverage.add(c, out.cls.case_class, found);
    ++result.cases;
    ++result.outcomes[std::string(name(out.report.outcome))];
    ClassStats& cls = result.classes[std::string(name(out.cls.case_class))];
    ++cls.cases;
    const TensorDesc& in = *tensor(c.op, Role::INPUT);
    ++result.ranks[std::to_string(in.rank())];
    ++result.types[std::string(name(in.type))];
    ++result.ops[op_label(c)];
    if (plan.case_class == CaseClass::Valid) {
      ++result.modes[std::string(name(plan.mode))];
      const TensorDesc& o = *tensor(c.op, Role::OUTPUT);
      if (out.cls.case_class == CaseClass::Valid && o.rank() >= 1 && o.rank() <= 8) {
        DimensionStats& d = result.dimensions[o.rank()];
        ++d.cases;
        for (size_t i = 0; i < o.rank(); ++i) d.above_one[i] += o.sizes[i] > 1;
      }
    }
    if (out.failure) {
      ++failed;
      result.failures.push_back({index, std::move(*out.failure)});
    }
    count_earlier();
    cls.seconds += seconds_since(case_start);
    const uint64_t now_done = ++done;
    if (options.on_progress && (now_done % 64 == 0 || out.failure) && progress_lock.try_lock()) {
      options.on_progress(now_done, failed.load(), seconds_since(start));
      progress_lock.unlock();
    }
  }
  return result;
}

}  // namespace

FuzzResult run_fuzz(const BackendFactory& make_backend, Oracle& oracle, const FuzzOptions& options) {
  const FuzzPlanner planner(options);
  std::error_code ec;
  std::filesystem::create_directories(options.engine.repro_dir, ec);
  const auto start = Clock::now();
  const uint64_t shards = std::max<uint32_t>(1, options.shard_count);
  const unsigned jobs = std::max(1u, options.jobs);
  std::atomic<uint64_t> done{0}, failed{0};
  std::mutex progress_lock;
  std::vector<FuzzResult> parts(jobs);
  std::vector<std::thread> workers;
  for (unsigned w = 0; w < jobs; ++w)
    workers.emplace_back([&, w] {
      parts[w] = run_worker(make_backend, oracle, options, planner, options.shard_index + shards * w,
                            shards * jobs, w, done, failed, start, progress_lock);
    });
  for (auto& t : workers) t.join();
  FuzzResult result;
  result.levels = planner.levels();
  for (FuzzResult& part : parts) result.merge(std::move(part));
  std::sort(result.failures.begin(), result.failures.end(),
            [](const FuzzFailure& a, const FuzzFailure& b) { return a.index < b.index; });
  result.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  if (options.on_progress) options.on_progress(result.cases, result.failures.size(), result.seconds);
  return result;
}

std::string fuzz_summary(const FuzzResult& r) {
  std::ostringstream os;
  os << r.cases << " cases in " << r.seconds << " s (" << (r.seconds > 0 ? r.cases / r.seconds : 0)
     << " cases/s), " << r.failures.size() << " failures";
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
    j["cases_per_second"] = r.seconds > 0 ? r.cases / r.seconds : 0.0;
  }
  j["generation_failures"] = r.generation_failures;
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
    const Failure& f = ff.failure;
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

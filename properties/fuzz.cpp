// The differential fuzz engine: plans case `index` from (seed, index), generates it, saves it,
// runs it, records coverage and distributions, and shrinks failures.
#include "fuzz.h"

#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>

#include "build.h"
#include "dmlcert/rules.h"

namespace dmlcert::props {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// Out of every 10 consecutive cases: 7 valid, 2 invalid, 1 unspecified.
constexpr uint64_t kBlock = 10, kValidPerBlock = 7, kInvalidPerBlock = 2;

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

// The rule IDs the validator finds in a case, descriptor and data.
std::vector<std::string> rules_found(const Case& c) {
  std::vector<std::string> out;
  const Validation v = validate(c.op, c.level);
  for (const Violation& x : v.invalid) out.push_back(x.rule);
  for (const Violation& x : v.unspecified) out.push_back(x.rule);
  if (v.case_class() != CaseClass::Invalid)
    for (const Violation& x : check_data(c.op, c.level, c.data)) out.push_back(x.rule);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::string op_label(const Case& c) {
  std::string s(name(op_kind(c.op)));
  // Invalid function values (OP.FUNCTION) count together.
  if (auto f = reduce_function(c.op))
    s += " " + (is_valid(*f) ? name(*f) : std::string("(invalid function)"));
  return s;
}

CaseReport run_guarded(Runner& runner, const Case& c) {
  try {
    return runner.run(c);
  } catch (const std::exception& e) {
    CaseReport r;
    r.outcome = Outcome::Failed;
    r.detail = std::string("the harness threw: ") + e.what();
    return r;
  }
}

}  // namespace

bool is_failure(Outcome o) {
  return o == Outcome::Failed || o == Outcome::Mistrusted || o == Outcome::Crash || o == Outcome::Timeout ||
         o == Outcome::Oob;
}

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

FuzzResult run_fuzz(Backend& under_test, Backend& reference, const FuzzOptions& options) {
  FuzzResult result;
  const FuzzPlanner planner(options);
  result.levels = planner.levels();
  Runner runner(under_test, reference, options.run_options);
  if (options.save_cases) fs::create_directories(options.repro_dir);
  const auto start = Clock::now();
  const uint64_t shards = std::max<uint32_t>(1, options.shard_count);

  for (uint64_t index = options.shard_index;; index += shards) {
    if (options.duration_seconds) {
      if (seconds_since(start) >= *options.duration_seconds) break;
    } else if (index >= options.cases) {
      break;
    }
    const auto case_start = Clock::now();
    const FuzzPlan plan = planner.plan(index);
    std::optional<rc::Shrinkable<Case>> shrinkable;
    Case c;
    try {
      shrinkable = sample(planner.generator(plan), plan.case_seed, plan.size);
      c = shrinkable->value();
    } catch (const std::exception&) {
      ++result.generation_failures;  // a suchThat that gave up; the next case goes on
      continue;
    }
    const std::string stem = "fuzz-s" + std::to_string(options.seed) + "-c" + std::to_string(index);
    c.name = stem + "-" + c.name;
    c.origin = "dmlcert fuzz --seed " + std::to_string(options.seed) + " case " + std::to_string(index) +
               " level " + std::string(name(plan.level));
    // Saved before the backend runs, so that a crash cannot lose it.
    const std::string path = (fs::path(options.repro_dir) / (stem + ".json")).string();
    if (options.save_cases) write_case_file(path, c, nullptr);

    const CaseReport report = run_guarded(runner, c);
    const std::vector<std::string> found = rules_found(c);
    result.coverage.add(c, report.case_class, found);
    ++result.cases;
    ++result.outcomes[std::string(name(report.outcome))];
    ClassStats& cls = result.classes[std::string(name(report.case_class))];
    ++cls.cases;
    const TensorDesc& in = *tensor(c.op, Role::INPUT);
    ++result.ranks[std::to_string(in.rank())];
    ++result.types[std::string(name(in.type))];
    ++result.ops[op_label(c)];
    if (plan.case_class == CaseClass::Valid) ++result.modes[std::string(name(plan.mode))];

    if (!is_failure(report.outcome)) {
      if (options.save_cases) fs::remove(path);
    } else {
      FuzzFailure f;
      f.index = index;
      f.case_seed = plan.case_seed;
      f.outcome = std::string(name(report.outcome));
      f.detail = report.detail;
      f.path = options.save_cases ? path : "";
      const Outcome first = report.outcome;
      f.shrunk = shrink_failure(
          *shrinkable, [&](const Case& candidate) { return run_guarded(runner, candidate).outcome == first; },
          options.shrink_seconds);
      f.shrunk.name = stem + "-shrunk";
      f.shrunk.origin = c.origin + " (shrunk)";
      if (options.save_cases) {
        f.shrunk_path = (fs::path(options.repro_dir) / (stem + "-shrunk.json")).string();
        write_case_file(f.shrunk_path, f.shrunk, nullptr);
      }
      if (options.log) {
        *options.log << "FAILED case " << index << " (seed " << options.seed << ", case seed "
                     << plan.case_seed << ", level " << name(plan.level) << ", " << op_label(c)
                     << "): " << f.outcome << ": " << f.detail << "\n";
        if (!f.path.empty())
          *options.log << "  case file:   " << f.path << "\n  shrunk case: " << f.shrunk_path
                       << "\n  reproduce:   dmlcert replay " << f.shrunk_path << " --backend "
                       << options.backend_spec << "\n";
        options.log->flush();
      }
      result.failures.push_back(std::move(f));
    }
    cls.seconds += seconds_since(case_start);
    if (options.on_progress) options.on_progress(result.cases, result.failures.size(), seconds_since(start));
  }
  result.seconds = seconds_since(start);
  return result;
}

std::string fuzz_summary(const FuzzResult& r) {
  std::ostringstream os;
  os << r.cases << " cases in " << r.seconds << " s (" << (r.seconds > 0 ? r.cases / r.seconds : 0)
     << " cases/s), " << r.failures.size() << " failures";
  if (r.generation_failures) os << ", " << r.generation_failures << " generation failures";
  os << "\nOutcomes:";
  for (const auto& [k, n] : r.outcomes) os << " " << k << "=" << n;
  os << "\nThroughput by class (generation + run):";
  for (const auto& [k, s] : r.classes) os << " " << k << "=" << s.cases << " cases at " << s.rate() << "/s;";
  auto dist = [&](const char* title, const std::map<std::string, uint64_t>& m) {
    os << "\n" << title << ":";
    for (const auto& [k, n] : m) os << " " << k << "=" << n;
  };
  dist("Ranks", r.ranks);
  dist("Input types", r.types);
  dist("Operators", r.ops);
  dist("Data modes (valid plans)", r.modes);
  os << "\n" << r.coverage.table(r.levels);
  return os.str();
}

std::string fuzz_report_json(const FuzzResult& r, const FuzzOptions& o) {
  nlohmann::ordered_json j;
  j["seed"] = o.seed;
  j["shard"] = std::to_string(o.shard_index) + "/" + std::to_string(o.shard_count);
  j["backend"] = o.backend_spec;
  j["cases"] = r.cases;
  j["seconds"] = r.seconds;
  j["cases_per_second"] = r.seconds > 0 ? r.cases / r.seconds : 0.0;
  j["generation_failures"] = r.generation_failures;
  j["outcomes"] = r.outcomes;
  for (const auto& [k, s] : r.classes)
    j["classes"][k] = {{"cases", s.cases}, {"seconds", s.seconds}, {"cases_per_second", s.rate()}};
  j["distribution"] = {{"ranks", r.ranks}, {"types", r.types}, {"ops", r.ops}, {"modes", r.modes}};
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
  for (const FuzzFailure& f : r.failures)
    j["failures"].push_back(
        {{"index", f.index},
         {"case_seed", f.case_seed},
         {"outcome", f.outcome},
         {"detail", f.detail},
         {"case_file", f.path},
         {"shrunk_case_file", f.shrunk_path},
         {"reproduce", "dmlcert replay " + (f.shrunk_path.empty() ? f.path : f.shrunk_path) + " --backend " +
                           o.backend_spec}});
  return j.dump(2);
}

}  // namespace dmlcert::props

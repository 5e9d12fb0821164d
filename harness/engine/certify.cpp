#include "certify.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <filesystem>
#include <limits>
#include <map>
#include <mutex>
#include <set>
#include <thread>
#include <unordered_map>

#include "code_symbols.h"
#include "dmlcert/interrupt.h"
#include "dmlcert/rules.h"
#include "generators.h"
#include "report_summary.h"
#include "sequences.h"
#include "shape_groups.h"

namespace dmlcert::engine {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using cert::CheckId;
using cert::CheckKind;

// One planned task of a certification: a case of a cell, of a rule check, of a robustness check or
// of the corpus, or a family of related cases of a cell. The full list is the same for every shard;
// a shard takes every n-th task, and each task's seed depends only on its name, so merged shards
// equal the unsharded run.
struct CheckTask {
  CheckId id;    // its name: the seed and the repro file names come from it
  size_t index;  // into the corpus (Corpus), the report's cells (Cell, Sequence) or its rules
  OpKind op;     // whose timeouts and limits it counts toward
  // The level its cases are generated at: the certification level, or a lower table level
  // (docs/design.md, "Certification").
  // A cell's case past the caches (Budget::huge_per_operator) or at a width's edge
  // (Budget::width_edges_per_cell), instead of one of a drawn size.
  props::CaseSize size = props::CaseSize::Drawn;
  FeatureLevel level(FeatureLevel run_level) const { return id.level.value_or(run_level); }
};

uint64_t fnv1a(const std::string& s) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char ch : s) h = (h ^ ch) * 1099511628211ull;
  return h;
}

// How many of `per_index` things index `index` gets: a fraction spreads them evenly (0.25 gives 1
// to every fourth index), a whole number gives that many to each.
int allotted(double per_index, size_t index) {
  return static_cast<int>(std::floor(per_index * static_cast<double>(index + 1)) -
                          std::floor(per_index * static_cast<double>(index)));
}

bool has_op(const std::vector<OpKind>& ops, OpKind op) {
  return ops.empty() || std::find(ops.begin(), ops.end(), op) != ops.end();
}

// The behaviour profile in the rule catalog's order, whatever order its rules were seen in.
void sort_profile(cert::Report& r) {
  const auto rules = rule_catalog();
  const auto catalog_index = [&](const std::string& id) {
    return std::find_if(rules.begin(), rules.end(), [&](const Rule& rule) { return rule.id == id; }) -
           rules.begin();
  };
  std::stable_sort(r.profile.begin(), r.profile.end(), [&](const auto& a, const auto& b) {
    return catalog_index(a.rule) < catalog_index(b.rule);
  });
}

// The counts, repro files and cases not run of one check of the report.
struct CheckResults {
  cert::Counts& counts;
  std::vector<std::string>* repros;  // none for the corpus
  cert::NotRun& not_run;
  double* seconds = nullptr;                      // none for the corpus as a whole
  cert::CorpusCaseResult* corpus_case = nullptr;  // the corpus case's own entry
};

// One worker's share of a certification (a shard of it): its tasks, the report of what they did.
class Certification final : public Share {
 public:
  // `under_test` is null for a certification that could not start. `checkpoint` takes the report
  // so far, now and then.
  Certification(const CertifyOptions& options, Backend* under_test,
                std::function<void(const cert::Report&)> checkpoint = nullptr)
      : options_(options), under_test_(under_test), checkpoint_(std::move(checkpoint)) {
    plan();
    interleave();
    // This shard's tasks only: a thorough run plans millions, and every worker plans them all.
    std::vector<CheckTask> own;
    for (size_t i = options_.shard.index; i < tasks_.size(); i += options_.shard.count)
      own.push_back(std::move(tasks_[i]));
    tasks_ = std::move(own);
  }

  // A certification that could not start: everything planned, nothing run.
  cert::Report nothing_run(const std::string& backend_name, const std::string& why) {
    report_.backend_name = backend_name;
    report_.stopped = why;
    for (const CheckTask& t : tasks_) not_run(t, why);
    return std::move(report_);
  }

  std::optional<Task> next() override {
    for (;;) {
      checkpoint();
      if (position_ >= tasks_.size()) return std::nullopt;
      if (const std::string why = reason_to_stop(); !why.empty()) {
        stopped(why);
        return std::nullopt;
      }
      current_ = &tasks_[position_++];
      last_mark_ = Clock::now();
      if (const std::string why = reason_to_skip(*current_); !why.empty()) {
        not_run(*current_, why);
        continue;
      }
      if (auto task = task_for(*current_)) return task;
    }
  }

  void stopped(const std::string& why) override {
    report_.stopped = why;
    for (; position_ < tasks_.size(); ++position_) not_run(tasks_[position_], why);
  }

  void case_ran(const WorkItem& item, const CaseOutcome& out) override {
    const CheckTask& task = *current_;
    if (out.interrupted) {
      const std::string why = reason_to_stop();
      not_run(task, why.empty() ? interruption() : why);
      return;
    }
    if (!out.generated) {  // counted against the task's own check (a family's: its cell)
      count(results_of(task.id.check()), Outcome::Skipped);
      return;
    }
    CheckResults at = results_of(out.counts_at);
    count(at, out.report.outcome);
    const Clock::time_point now = Clock::now();
    if (at.seconds) *at.seconds += std::chrono::duration<double>(now - last_mark_).count();
    last_mark_ = now;
    note_time(out.report.exec);
    if (!out.report.exec.interference.empty()) note_interference(out.c.name, out.report.exec.interference);
    note_output(out.c.name, out.report.exec);
    note_behaviour(out);
    if (out.cls.case_class == CaseClass::Valid) shapes_.add(out.c);
    if (out.report.outcome == Outcome::Timeout || out.report.outcome == Outcome::Limit) {
      ++timeouts_;
      ++timeouts_by_op_[static_cast<size_t>(task.op)];
      if (task.id.kind != CheckKind::Corpus)
        timed_out_.emplace(out.counts_at.to_string(), out.report.outcome);
    }
    if (out.failure) record(at.repros, *out.failure);
    (void)item;
  }

  // A late fault of an earlier case counts against that case, not the one that revealed it: where
  // the case itself counted (Failure::counts_at).
  void late_fault_found(const cert::Failure& f) override {
    CheckResults at = results_of(f.counts_at);
    if (at.counts[static_cast<size_t>(Outcome::Passed)] > 0) count(at, Outcome::Passed, -1);
    count(at, f.outcome);
    record(at.repros, f);
  }

  // One more (or, with -1, one fewer) case of `outcome` where it counts, and in its corpus case.
  static void count(const CheckResults& at, Outcome outcome, int delta = 1) {
    auto bump = [&](cert::Counts& counts) {
      uint64_t& n = counts[static_cast<size_t>(outcome)];
      n = delta < 0 ? (n > 0 ? n - 1 : 0) : n + 1;
    };
    bump(at.counts);
    if (at.corpus_case) bump(at.corpus_case->counts);
  }

  void finish() override {
    if (report_.stopped.empty()) shut_down();
    check_signal_handlers();
    {
      ReproSpace& space = *options_.engine.repro_space;  // shared with the engines (EngineOptions)
      std::lock_guard<std::mutex> hold(space.lock);
      report_.repro_error = space.error;
    }
    report_.containment = options_.containment;
    if (const CodeCoverage* code = under_test_ ? under_test_->code_coverage() : nullptr)
      report_.code_coverage = *code;
    sort_profile(report_);
    report_.seconds = elapsed();
    report_.recurrence = shapes_.counts();
  }

  uint64_t done() const override { return position_; }
  uint64_t planned() const override { return tasks_.size(); }

  cert::Report report_;

 private:
  double elapsed() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }

  // Why the run must stop before the next task: the time limit, or a backend that keeps hanging
  // (a stop request comes through stopped()).
  std::string reason_to_stop() const {
    if (stop_requested()) return interruption();
    if (options_.time_limit_seconds > 0 &&
        (elapsed() >= options_.time_limit_seconds || past_run_time_bound()))
      return time_limit_text();
    if (options_.max_timeouts > 0 && timeouts_ >= options_.max_timeouts)
      return "stopped after " + std::to_string(timeouts_) +
             " timeouts and limits (--max-timeouts): the backend hangs or runs away";
    return {};
  }

  std::string time_limit_text() const {
    const std::string seconds = std::to_string(static_cast<int64_t>(options_.time_limit_seconds));
    return options_.time_limit_is_budgets
               ? "stopped at the " + options_.budget.name + " budget's time bound of " + seconds +
                     " s before every case had run (--time-limit sets another)"
               : "stopped at the time limit of " + seconds + " s (--time-limit) before every case had run";
  }

  // Why one task is not run: an earlier timeout (or memory or CPU limit: as costly) in its cell or
  // rule check, or several in its operator.
  std::string reason_to_skip(const CheckTask& task) const {
    if (task.id.kind != CheckKind::Corpus)
      if (const auto it = timed_out_.find(task.id.check().to_string()); it != timed_out_.end())
        return "not run after a " + std::string(name(it->second)) + " in this " +
               std::string(task.id.section() ? "rule check" : "cell");
    const auto op = static_cast<size_t>(task.op);
    if (options_.timeouts_per_operator > 0 && timeouts_by_op_[op] >= options_.timeouts_per_operator)
      return "not run after " + std::to_string(timeouts_by_op_[op]) + " timeouts and limits in " +
             std::string(name(task.op));
    return {};
  }

  // Every checkpoint_seconds, the report so far, marked as still running.
  void checkpoint() {
    if (!checkpoint_ || elapsed() < next_checkpoint_) return;
    cert::Report snapshot = report_;
    snapshot.seconds = elapsed();
    snapshot.stopped = "still running: " + std::to_string(position_) + " of " +
                       std::to_string(tasks_.size()) + " cases done when this report was written";
    checkpoint_(snapshot);
    next_checkpoint_ = elapsed() + options_.checkpoint_seconds;
  }

  void not_run(const CheckTask& task, const std::string& why) {
    results_of(task.id.check()).not_run.add(why);
  }

  // The report's entry for a check: a cell, a rule check (added the first time it is asked for) or
  // the corpus.
  CheckResults results_of(const CheckId& check) {
    switch (check.kind) {
      case CheckKind::Cell:
      case CheckKind::Sequence: {
        const auto at = cell_index_.find(cert::cell_key(check.cell));
        cert::CellResult& cell = report_.cells[at != cell_index_.end() ? at->second : 0];
        return {cell.counts, &cell.repros, cell.not_run, &cell.seconds};
      }
      case CheckKind::Invalid:
      case CheckKind::Unspecified:
      case CheckKind::Robustness: {
        cert::RuleResult& rule = report_.rules[rule_index(check.rule, *check.section())];
        return {rule.counts, &rule.repros, rule.not_run, &rule.seconds};
      }
      default: {
        cert::CorpusCaseResult* own = nullptr;
        if (const auto at = corpus_index_.find(check.name); at != corpus_index_.end())
          own = &report_.corpus_cases[at->second];
        return {report_.corpus, nullptr, report_.corpus_not_run, own ? &own->seconds : nullptr, own};
      }
    }
  }

  void plan() {
    report_.backend = options_.backend;
    report_.backend_name = under_test_ ? under_test_->name() : "";
    report_.level = options_.level;
    report_.backend_max_level = under_test_ ? under_test_->max_feature_level() : options_.level;
    report_.budget = options_.budget.name;
    report_.accumulation = options_.engine.run.profile;
    report_.flaky_fails = options_.flaky_fails;
    report_.shards = {options_.shard};
    report_.seed = options_.seed;
    report_.dmlcert_version = DMLCERT_VERSION;
    report_.started = now_utc();
    report_.time_limit_seconds = options_.time_limit_seconds;
    report_.time_limit_is_budgets = options_.time_limit_is_budgets;
    report_.scope.asked = options_.ops;
    for (const SupportCell& cell : support_cells(options_.level)) {
      if (cell.role != Role::INPUT || !has_op(options_.ops, cell.op)) continue;
      auto& claims = report_.scope.claims;
      const bool seen = std::any_of(claims.begin(), claims.end(), [&](const cert::Scope::Claim& c) {
        return c.op == cell.op && c.function == cell.function && c.type == cell.type;
      });
      if (!seen)
        claims.push_back({cell.op, cell.function, cell.type,
                          under_test_ && under_test_->implements(cell.op, cell.function, cell.type)});
    }
    for (const SupportCell& cell : support_cells(options_.level)) {
      if (cell.role == Role::INPUT || !typed_separately(cell.op, cell.function, cell.role) ||
          !has_op(options_.ops, cell.op))
        continue;
      auto& claims = report_.scope.index_claims;
      if (std::none_of(claims.begin(), claims.end(), [&](const cert::Scope::IndexClaim& c) {
            return c.op == cell.op && c.type == cell.type;
          }))
        claims.push_back(
            {cell.op, cell.type, under_test_ && under_test_->implements_index_type(cell.op, cell.type)});
    }
    // The operators the checks cover: those asked for of which the backend claims a cell (and an
    // index type, if the operator has indices). An operator it disowns gets no rule check, cell,
    // corpus case or profile row in any report: they would say nothing about this backend, and the
    // scope line names what lies outside.
    if (under_test_) {
      const cert::Scope& scope = report_.scope;
      scope_.clear();
      for (OpKind op : all_ops()) {
        const bool index =
            std::any_of(scope.index_claims.begin(), scope.index_claims.end(),
                        [&](const cert::Scope::IndexClaim& c) { return c.op == op && c.claimed; });
        // A claimed cell it can be given a case of: one without indices (REDUCE SUM), or one
        // with, when it takes some index type.
        const bool cell =
            std::any_of(scope.claims.begin(), scope.claims.end(), [&](const cert::Scope::Claim& c) {
              return c.op == op && c.claimed && (index || !has_index_role(op, c.function));
            });
        if (has_op(options_.ops, op) && cell) scope_.push_back(op);
      }
      report_.scope.checked = scope_;
      if (scope_.empty()) return;  // nothing to check: the verdict says the backend claims no cell
    }
    for (size_t i = 0; i < options_.corpus.size(); ++i)
      if (has_op(scope_, op_kind(options_.corpus[i].op))) {
        corpus_index_[options_.corpus[i].name] = report_.corpus_cases.size();
        report_.corpus_cases.push_back({options_.corpus[i].name, {}, 0});
        tasks_.push_back(
            {CheckId::corpus_case(i, options_.corpus[i].name), i, op_kind(options_.corpus[i].op)});
      }
    constexpr props::DataMode kModes[] = {props::DataMode::Exact, props::DataMode::Random};
    for (const SupportCell& cell : support_cells(options_.level)) {
      if (!has_op(scope_, cell.op)) continue;
      const size_t index = report_.cells.size();
      cell_index_[cert::cell_key(cell)] = index;
      report_.cells.push_back({cell, {}, {}, {}});
      for (auto mode : kModes)
        for (int rep = 0; rep < options_.budget.per_cell_mode; ++rep)
          tasks_.push_back({CheckId::cell_case(cell, mode, static_cast<uint64_t>(rep)), index, cell.op});
      for (int rep = 0; rep < allotted(options_.budget.families_per_cell, index); ++rep)
        tasks_.push_back(
            {CheckId::family(cell, kModes[rep % 2], static_cast<uint64_t>(rep)), index, cell.op});
    }
    // Huge cases, after a cell's own: its next repetition, with random data; every other one of an
    // operator's packed, its input read in full (props::CaseSize::HugePacked).
    std::map<OpKind, int> huge_of;
    for (const SupportCell& cell :
         props::huge_cells(options_.level, scope_, options_.budget.huge_per_operator)) {
      const auto at = cell_index_.find(cert::cell_key(cell));
      if (at == cell_index_.end()) continue;
      const auto rep = static_cast<uint64_t>(options_.budget.per_cell_mode);
      const auto size = huge_of[cell.op]++ % 2 == 0 ? props::CaseSize::Huge : props::CaseSize::HugePacked;
      tasks_.push_back({CheckId::cell_case(cell, props::DataMode::Random, rep), at->second, cell.op, size});
    }
    // Width-edge cases, after the huge ones: each cell's next repetitions (past the huge one's),
    // the edges taken in turn over the ranks, so that each operator, function and type meets
    // every edge (issue: sizes, thresholds and bit patterns; tests/width_edges_test.cpp).
    for (size_t index = 0; index < report_.cells.size(); ++index) {
      const SupportCell& cell = report_.cells[index].cell;
      const int n = std::min<int>(options_.budget.width_edges_per_cell, std::size(props::kWidthEdgeSizes));
      for (int j = 0; j < n; ++j) {
        const auto rep = static_cast<uint64_t>(options_.budget.per_cell_mode + 1 + j);
        const props::CaseSize size =
            props::kWidthEdgeSizes[(cell.rank + j) % std::size(props::kWidthEdgeSizes)];
        tasks_.push_back({CheckId::cell_case(cell, kModes[(cell.rank + j) % 2], rep), index, cell.op, size});
      }
      // Large packed cases after them (repetitions past the three width edges'): the layout fast
      // kernels take their vector paths on, at sizes past their thresholds.
      for (int j = 0; j < options_.budget.large_packed_per_cell; ++j) {
        const auto rep = static_cast<uint64_t>(options_.budget.per_cell_mode + 1 + 3 + j);
        tasks_.push_back(
            {CheckId::cell_case(cell, kModes[j % 2], rep), index, cell.op, props::CaseSize::LargePacked});
      }
    }
    // Each rule's operators take turns (rep by rep), so that each is asked to reject it.
    auto add_rules = [&](FeatureLevel level, const std::vector<std::string>& rules, cert::RuleSection section,
                         int reps) {
      const std::optional<FeatureLevel> lower =
          level == options_.level ? std::nullopt : std::optional<FeatureLevel>(level);
      for (const std::string& rule : rules) {
        const size_t index = rule_index(rule, section);
        const auto ops = props::rule_operators(rule, level, section == cert::RuleSection::Invalid, scope_);
        for (int rep = 0; rep < reps; ++rep)
          tasks_.push_back({CheckId::rule_case(section, rule, static_cast<uint64_t>(rep), lower), index,
                            ops.empty() ? op_of_rule(rule) : ops[static_cast<size_t>(rep) % ops.size()]});
      }
    };
    add_rules(options_.level, props::invalid_rules(options_.level, scope_), cert::RuleSection::Invalid,
              options_.budget.per_rule);
    add_rules(options_.level, props::unspecified_rules(options_.level, scope_),
              cert::RuleSection::Unspecified, options_.budget.per_rule);
    // Every operator that reads indices gets cases with index values at the extremes of their
    // type (its INDEX_RANGE rule, docs/semantics.md): the values no generator of valid cases makes.
    for (OpKind op : all_ops()) {
      const auto op_roles = roles(op);
      if (std::find(op_roles.begin(), op_roles.end(), Role::INDICES) == op_roles.end()) continue;
      if (!has_op(scope_, op) || options_.level < introduced_at(op)) continue;
      const std::string check = extreme_index_check(op);
      const size_t index = rule_index(check, cert::RuleSection::Robustness);
      for (int rep = 0; rep < options_.budget.per_robustness; ++rep)
        tasks_.push_back(
            {CheckId::rule_case(cert::RuleSection::Robustness, check, static_cast<uint64_t>(rep)), index,
             op});
    }
    // The lower table levels (docs/design.md, "Certification"): a backend certified at L runs
    // cases of every level up to L, and a table transcribed wrong below L shows only there. Their
    // cells count towards the same cells of L's table (the tables only grow with the level).
    for (FeatureLevel lower : kTableLevels) {
      if (lower >= table_level(options_.level)) continue;
      size_t planned = 0;
      for (const SupportCell& cell : support_cells(lower)) {
        const auto at = cell_index_.find(cert::cell_key(cell));
        if (!has_op(scope_, cell.op) || at == cell_index_.end()) continue;
        for (int rep = 0; rep < allotted(options_.budget.per_lower_cell, planned++); ++rep)
          tasks_.push_back({CheckId::cell_case(cell, kModes[rep % 2], static_cast<uint64_t>(rep), lower),
                            at->second, cell.op});
      }
      add_rules(lower, props::invalid_rules(lower, scope_), cert::RuleSection::Invalid,
                options_.budget.per_lower_rule);
      add_rules(lower, props::unspecified_rules(lower, scope_), cert::RuleSection::Unspecified,
                options_.budget.per_lower_rule);
    }
  }

  // For a data cell's case, of a backend that takes some index types only: one of those, in turn
  // over the repetitions. Unset otherwise, so that the cases of every other backend stay the same.
  std::optional<DataType> claimed_index_type(const CheckTask& task) const {
    std::vector<DataType> taken;
    bool all = true;
    for (const cert::Scope::IndexClaim& c : report_.scope.index_claims)
      if (c.op == task.op) {
        if (c.claimed) taken.push_back(c.type);
        all = all && c.claimed;
      }
    if (all || taken.empty()) return std::nullopt;
    return taken[task.id.number.value_or(0) % taken.size()];
  }

  // The name of the robustness check of an operator's index extremes.
  static std::string extreme_index_check(OpKind op) {
    return std::string(info(op).rule_prefix) + ".INDEX_RANGE.extreme";
  }

  // The report entry of a rule, added the first time it is asked for.
  size_t rule_index(const std::string& rule, cert::RuleSection section) {
    for (size_t i = 0; i < report_.rules.size(); ++i)
      if (report_.rules[i].rule == rule && report_.rules[i].section == section) return i;
    report_.rules.push_back({rule, section, {}, {}, {}});
    return report_.rules.size() - 1;
  }

  // The operator a rule ID belongs to, by its prefix ("SLICE1.WINDOW_BOUNDS": SLICE1). Shared
  // tensor rules (T.*) count with the first operator.
  static OpKind op_of_rule(const std::string& rule) {
    const std::string prefix = rule.substr(0, rule.find('.'));
    for (OpKind k : all_ops())
      if (info(k).rule_prefix == prefix) return k;
    return all_ops().front();
  }

  // Runs the generated items in a deterministic shuffle (ordered by a hash of their keys), after
  // the corpus: a run that stops at its first failures (--stop-after-failures) has by then
  // touched every operator, function, type and rule evenly. Keys and seeds do not change, and
  // every shard still takes every n-th item of the same list.
  void interleave() {
    auto mixed = [](const CheckTask& t) {
      uint64_t z =
          fnv1a(t.id.to_string()) + 0x9E3779B97F4A7C15ull;  // splitmix64's finalizer spreads similar keys
      z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
      z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
      return z ^ (z >> 31);
    };
    auto generated = std::stable_partition(tasks_.begin(), tasks_.end(), [](const CheckTask& t) {
      return t.id.kind == cert::CheckKind::Corpus;
    });
    // Each key hashed once, not once per comparison.
    const size_t first = static_cast<size_t>(generated - tasks_.begin());
    std::vector<std::pair<uint64_t, size_t>> order;
    order.reserve(tasks_.size() - first);
    for (size_t i = first; i < tasks_.size(); ++i) order.emplace_back(mixed(tasks_[i]), i);
    std::stable_sort(order.begin(), order.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<CheckTask> sorted(
        std::make_move_iterator(tasks_.begin()),
        std::make_move_iterator(tasks_.begin() + static_cast<std::ptrdiff_t>(first)));
    sorted.reserve(tasks_.size());
    for (const auto& [hash, i] : order) sorted.push_back(std::move(tasks_[i]));
    tasks_ = std::move(sorted);
  }

  std::optional<rc::Gen<Case>> generator(const CheckTask& task) {
    const FeatureLevel level = task.level(options_.level);
    switch (task.id.kind) {
      case CheckKind::Cell:
        return props::valid_case_for_cell(report_.cells[task.index].cell, level, *task.id.mode,
                                          {0, 0, claimed_index_type(task)}, task.size);
      case CheckKind::Invalid: return props::invalid_case(task.id.rule, level, {task.op});
      case CheckKind::Unspecified: return props::unspecified_case(task.id.rule, level, {task.op});
      case CheckKind::Robustness: {
        const std::string rule = std::string(info(task.op).rule_prefix) + ".INDEX_RANGE";
        const int rep = static_cast<int>(*task.id.number);
        // Every extreme (rep % kIndexExtremes) of every index type, over the ranks in turn.
        const auto s = support(task.op, std::nullopt, Role::INDICES, options_.level);
        const size_t types = s->types.size(), ranks = s->max_rank - s->min_rank + 1;
        const size_t turn = static_cast<size_t>(rep) / props::kIndexExtremes;
        const SupportCell cell{task.op, std::nullopt, Role::INDICES, s->types[turn % types],
                               s->min_rank + static_cast<uint32_t>(turn / types % ranks)};
        return props::extreme_index_case(cell, options_.level, rep, rule);
      }
      default: break;
    }
    return std::nullopt;
  }

  // The cases of a task, as the engine runs them: the corpus case, a generated case, or a family.
  std::optional<Task> task_for(const CheckTask& task) {
    const uint64_t seed = fnv1a(task.id.to_string()) ^ options_.seed;
    if (task.id.kind == CheckKind::Sequence) return family(task, seed);
    WorkItem work;
    work.id = task.id;
    if (task.id.kind == CheckKind::Corpus) {
      work.given = &options_.corpus[task.index];
    } else {
      auto gen = generator(task);
      if (!gen) {  // the rule cannot be broken at this level for these operators
        count(results_of(task.id.check()), Outcome::Skipped);
        return std::nullopt;
      }
      work.gen = std::move(*gen);
      work.seed = seed;
      work.size = options_.budget.size;
      work.origin = "certify seed=" + std::to_string(seed) + " size=" + std::to_string(options_.budget.size);
    }
    return Task{{std::move(work)}};
  }

  // A family of related cases, back to back in the backend's process, all sampled at one seed.
  // Valid members count towards their cell; a member that is invalid or class U at its level
  // counts towards the first rule it breaks.
  Task family(const CheckTask& task, uint64_t seed) {
    const SupportCell& cell = report_.cells[task.index].cell;
    Task out;
    for (RelatedCase& member :
         related_cases(cell, options_.level, *task.id.mode, options_.budget.size, seed, options_.level)) {
      WorkItem work;
      work.id = task.id.member(member.name);
      // A known failure of the member's own cell (--expect) is known here too.
      work.counts_at = [this, cell, member_cell = member.cell](const Classification& cls) {
        return member_check(cell, member_cell, cls);
      };
      work.gen = std::move(member.gen);
      work.seed = seed;
      work.size = member.size;
      work.origin =
          "certify seed=" + std::to_string(seed) + " size=" + std::to_string(member.size) + " " + member.name;
      out.cases.push_back(std::move(work));
    }
    return out;
  }

  // The check a member of a family of `cell` counts against: a valid one its own cell (that of
  // another type, for a type member), else the first rule it breaks.
  CheckId member_check(const SupportCell& cell, const SupportCell& member_cell,
                       const Classification& cls) const {
    if (cls.case_class == CaseClass::Valid)
      return CheckId::of_cell(cell_index_.count(cert::cell_key(member_cell)) ? member_cell : cell);
    const auto section =
        cls.case_class == CaseClass::Invalid ? cert::RuleSection::Invalid : cert::RuleSection::Unspecified;
    return CheckId::of_rule(section, cls.findings.empty() ? "?" : cls.findings.front().rule);
  }

  // The backend's end is checked like its calls: a plugin that crashes or hangs when it is
  // destroyed would take its host application down at exit (robustness check BACKEND.DESTROY).
  void shut_down() {
    cert::RuleResult check{"BACKEND.DESTROY", cert::RuleSection::Robustness, {}, {}, {}};
    const std::string problem = under_test_->shut_down();
    // Every shard's backend is checked; a clean end counts once, in shard 0, so that merged shard
    // reports equal the unsharded run.
    if (problem.empty() && options_.shard.index != 0) return;
    ++check.counts[static_cast<size_t>(problem.empty() ? Outcome::Passed : Outcome::Crash)];
    if (!problem.empty()) {
      cert::Failure f;
      f.id = f.counts_at = CheckId::of_rule(cert::RuleSection::Robustness, "BACKEND.DESTROY");
      f.case_name = "destroy";
      f.outcome = Outcome::Crash;
      f.detail = problem;
      report_.failures.push_back(std::move(f));
    }
    report_.rules.push_back(std::move(check));
  }

  void record(std::vector<std::string>* repros, const cert::Failure& f) {
    if (repros) {
      if (!f.repro.empty()) repros->push_back(f.repro);
      if (!f.shrunk.empty()) repros->push_back(f.shrunk);
      if (!f.sequence.empty()) repros->push_back(f.sequence);
    }
    report_.failures.push_back(f);
  }

  // The behaviour profile: what the backend did with each class U rule's cases.
  void note_behaviour(const CaseOutcome& out) {
    if (out.report.behaviours.empty()) return;
    // A case counts once per rule, however many of its elements break it (nine indices out of
    // range are one case).
    std::set<std::string_view> rules;
    for (const Violation& v : out.cls.findings) {
      if (!rules.insert(v.rule).second) continue;
      const Rule* rule = find_rule(v.rule);
      if (!rule || makes_invalid(*rule)) continue;
      auto& profile = report_.profile;
      auto it = std::find_if(profile.begin(), profile.end(), [&](const auto& b) { return b.rule == v.rule; });
      if (it == profile.end()) it = profile.insert(profile.end(), cert::BehaviourCounts{v.rule, 0, {}});
      ++it->cases;
      for (const std::string& b : out.report.behaviours) ++it->by_behaviour[b];
    }
  }

  // The robustness check BACKEND.SIGNAL_HANDLERS: the backend replaced dmlcert's fault handlers in
  // its process (plugin/signal_guard.h). Each time counts; the first few are reported.
  static constexpr const char* kSignalHandlers = "BACKEND.SIGNAL_HANDLERS";
  void note_interference(const std::string& case_name, const std::string& what) {
    cert::RuleResult& check = report_.rules[rule_index(kSignalHandlers, cert::RuleSection::Robustness)];
    if (check.counts[static_cast<size_t>(Outcome::Failed)]++ >= 3) return;
    cert::Failure f;
    f.id = f.counts_at = CheckId::of_rule(cert::RuleSection::Robustness, kSignalHandlers);
    f.case_name = case_name;
    f.outcome = Outcome::Failed;
    f.detail = "the backend " + what + "; seen with case " + case_name;
    report_.failures.push_back(std::move(f));
  }
  // Checked around every call of a backend in a child process; a clean run counts once, in shard 0,
  // so that merged shard reports equal the unsharded run.
  void check_signal_handlers() {
    if (!options_.engine.isolated || options_.shard.index != 0) return;
    cert::RuleResult& check = report_.rules[rule_index(kSignalHandlers, cert::RuleSection::Robustness)];
    if (check.counts[static_cast<size_t>(Outcome::Failed)] == 0)
      ++check.counts[static_cast<size_t>(Outcome::Passed)];
  }

  void note_time(const ExecResult& exec) {
    if (exec.seconds <= 0) return;
    cert::BackendTime& t = report_.backend_time;
    ++t.calls;
    t.seconds += exec.seconds;
    t.slowest = std::max(t.slowest, exec.seconds);
  }

  // What the backend printed goes to the report, never to dmlcert's own output.
  void note_output(const std::string& where, const ExecResult& exec) {
    if (exec.output_text.empty() && exec.output_dropped == 0) return;
    cert::BackendOutput& o = report_.backend_output;
    ++o.calls;
    o.bytes += exec.output_text.size() + exec.output_dropped;
    if (o.samples.size() < cert::BackendOutput::kSamples)
      o.samples.push_back({where, exec.output_text, exec.output_dropped});
  }

  const CertifyOptions& options_;
  Backend* under_test_;
  // The operators the checks cover (plan()): --ops, narrowed to what the backend claims.
  std::vector<OpKind> scope_ = options_.ops;
  std::function<void(const cert::Report&)> checkpoint_;
  std::vector<CheckTask> tasks_;
  size_t position_ = 0;                 // tasks taken so far
  const CheckTask* current_ = nullptr;  // the task whose cases run now
  const Clock::time_point start_ = Clock::now();
  double next_checkpoint_ = options_.checkpoint_seconds;
  int timeouts_ = 0;
  std::array<int, kOpCount> timeouts_by_op_{};
  std::map<std::string, Outcome> timed_out_;    // cells and rule checks with a timeout or a limit, and which
  std::map<std::string, size_t> cell_index_;    // cell key -> report_.cells
  std::map<std::string, size_t> corpus_index_;  // corpus case name -> report_.corpus_cases
  // When the current task's last case ended (or the task began): each case's wall time is charged
  // to the check it counts at.
  Clock::time_point last_mark_ = Clock::now();
  ShapeGroups shapes_;
};

// A certification as the engine runs it: a Certification per worker, each a shard of this run (or
// of this shard) with a backend process of its own; their reports merge as shards run apart do.
class CertifyRun final : public Plan {
 public:
  CertifyRun(const CertifyOptions& options, unsigned workers)
      : options_(options), worker_options_(workers, options), shares_(workers), snapshots_(workers) {}

  Share& share(unsigned worker, unsigned workers, Backend& under_test) override {
    CertifyOptions& o = worker_options_[worker];
    o.shard = {static_cast<uint32_t>(options_.shard.index + options_.shard.count * worker),
               static_cast<uint32_t>(options_.shard.count * workers)};
    std::function<void(const cert::Report&)> checkpoint;
    if (options_.on_checkpoint)
      checkpoint = [this, worker](const cert::Report& so_far) { take_snapshot(worker, so_far); };
    shares_[worker] = std::make_unique<Certification>(o, &under_test, std::move(checkpoint));
    return *shares_[worker];
  }

  std::optional<cert::Report> report(std::string* error) {
    std::vector<cert::Report> reports;
    for (auto& share : shares_) reports.push_back(std::move(share->report_));
    auto out = merged(std::move(reports));
    if (!out) *error = "the workers' reports do not merge";
    if (out) name_code(*out);  // the plugin's functions and lines, once, for the merged coverage
    return out;
  }

 private:
  std::optional<cert::Report> merged(std::vector<cert::Report> reports) const {
    auto out = cert::merge(reports, nullptr);
    if (!out) return out;
    out->shards = {options_.shard};  // the workers split this shard between them
    sort_profile(*out);
    return out;
  }

  // Called with one worker's report so far: once every worker has one, their merge is checkpointed.
  void take_snapshot(unsigned worker, const cert::Report& so_far) {
    std::lock_guard<std::mutex> hold(lock_);
    snapshots_[worker] = so_far;
    std::vector<cert::Report> reports;
    for (const auto& s : snapshots_)
      if (s) reports.push_back(*s);
    if (reports.size() == snapshots_.size())
      if (auto all = merged(std::move(reports))) options_.on_checkpoint(*all);
  }

  const CertifyOptions& options_;
  std::vector<CertifyOptions> worker_options_;
  std::vector<std::unique_ptr<Certification>> shares_;
  std::mutex lock_;
  std::vector<std::optional<cert::Report>> snapshots_;
};

// The corpus cases the run asks: none above the level or outside the operators asked for.
CertifyOptions with_own_corpus(const CertifyOptions& options) {
  CertifyOptions o = options;
  std::erase_if(o.corpus, [&](const Case& c) { return c.level > o.level || !has_op(o.ops, op_kind(c.op)); });
  return o;
}

}  // namespace

std::optional<Budget> budget_named(const std::string& name) {
  // Calibrated on two cores with the default --jobs (docs/design.md, "Budgets"): quick well under
  // a minute, standard a few minutes, thorough about a quarter of an hour.
  // smoke: a few seconds, for the tests of a CI pipeline, not a certification to publish.
  // The time bounds: smoke 2 min, quick 9 min (the bound is 10 on two cores, whatever the
  // backend; the last minute is for settling, shutting down and writing the reports), standard 30
  // min, thorough 2 h.
  if (name == "smoke") return Budget{"smoke", 1, 8, 6, 25, 1.0, 10, 0.125, 0.25, 2, 0, 0, 0, 120};
  if (name == "quick") return Budget{"quick", 8, 300, 600, 25, 1.0, 10, 3, 4, 60, 2, 1, 1, 540};
  if (name == "standard") return Budget{"standard", 48, 2400, 3000, 40, 5.0, 50, 16, 16, 480, 4, 3, 4, 1800};
  if (name == "thorough")
    return Budget{"thorough", 240, 12000, 15000, 60, 20.0, 200, 75, 75, 2400, 8, 3, 8, 7200};
  return std::nullopt;
}

std::string find_corpus(const std::string& source_corpus) {
  std::vector<fs::path> candidates;
  if (const char* env = std::getenv("DMLCERT_CORPUS")) candidates.emplace_back(env);
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) candidates.push_back(self.parent_path().parent_path() / "share" / "dmlcert" / "corpora");
  if (!source_corpus.empty()) candidates.emplace_back(source_corpus);
  for (const auto& c : candidates)
    if (fs::is_directory(c, ec)) return c.string();
  return {};
}

std::optional<cert::Report> run_certification(const CertifyOptions& options, const BackendFactory& open,
                                              Oracle& oracle, std::string* error) {
  const CertifyOptions o = with_own_corpus(options);
  EngineOptions eo = o.engine;
  eo.shrink_seconds = o.budget.shrink_seconds;
  eo.max_shrinks = o.budget.max_shrinks;
  eo.settle_at_end = true;
  // --stop-after-failures counts the failures of one run in one order: one worker.
  eo.stop_after_failures = static_cast<size_t>(std::max(0, o.stop_after_failures));
  const bool split = o.jobs > 1 && o.stop_after_failures == 0 &&
                     uint64_t{o.shard.count} * o.jobs <= std::numeric_limits<uint32_t>::max();
  eo.jobs = split ? o.jobs : 1;
  // A cause investigated twice is known: its later failures are saved and reported, unchecked.
  eo.cause = [](const cert::Failure& f) { return cert::cause_key(f); };
  std::error_code ec;
  fs::create_directories(eo.repro_dir, ec);
  if (ec) {
    *error = "cannot create the repro directory " + eo.repro_dir + ": " + ec.message();
    return std::nullopt;
  }
  CertifyRun plan(o, eo.jobs);
  std::string why;
  if (!run(plan, open, oracle, eo, &why)) return stopped_report(options, "", why);
  return plan.report(error);
}

std::string now_utc() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  ::gmtime_r(&now, &utc);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return buf;
}

cert::Report stopped_report(const CertifyOptions& options, const std::string& backend_name,
                            const std::string& why) {
  const CertifyOptions o = with_own_corpus(options);
  Certification nothing(o, nullptr);
  return nothing.nothing_run(backend_name, why);
}

}  // namespace dmlcert::engine

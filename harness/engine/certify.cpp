#include "certify.h"

#include <signal.h>

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

// One unit of work. The full list is the same for every shard; a shard takes every n-th item,
// and each item's seed depends only on its key, so merged shards equal the unsharded run.
struct Item {
  // Sequence: a family of related cases of one cell, run back to back (sequences.h).
  enum Kind { Corpus, Cell, Rule, Robustness, Sequence } kind;
  size_t index;  // into corpus cases, report cells (Cell, Sequence) or report rules
  OpKind op;     // whose timeouts and limits it counts toward
  props::DataMode mode = props::DataMode::Exact;
  int rep = 0;
  std::string key;  // stable and unique: the seed and the repro file name come from it
  // The level its cases are generated at: the certification level, or a lower table level
  // (docs/design.md, "Certification").
  FeatureLevel level = kDefaultFeatureLevel;
  bool huge = false;  // a cell's case past the caches (Budget::huge_per_operator)
};

uint64_t fnv1a(const std::string& s) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char ch : s) h = (h ^ ch) * 1099511628211ull;
  return h;
}

// Item `index`'s share of `per` items per index: a fraction spreads them evenly (0.25 gives 1
// to every fourth index), a whole number gives that many to each.
int share(double per, size_t index) {
  return static_cast<int>(std::floor(per * static_cast<double>(index + 1)) -
                          std::floor(per * static_cast<double>(index)));
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

class Certification {
 public:
  // `under_test` and `engine` are null for a certification that could not start.
  Certification(const CertifyOptions& o, Backend* under_test, Engine* engine)
      : o_(o), under_test_(under_test), engine_(engine) {}

  cert::Report run() {
    plan();
    interleave();
    // This shard's items only: a thorough run plans millions, and every worker plans them all.
    std::vector<Item> own;
    for (size_t i = o_.shard.index; i < items_.size(); i += o_.shard.count)
      own.push_back(std::move(items_[i]));
    items_ = std::move(own);
    for (size_t i = 0; i < items_.size(); ++i) item_by_key_[items_[i].key] = i;
    std::vector<const Item*> mine;
    for (const Item& item : items_) mine.push_back(&item);
    start_ = Clock::now();
    auto elapsed = [&] { return seconds_so_far(); };
    double next_checkpoint = o_.checkpoint_seconds;
    for (size_t i = 0; i < mine.size(); ++i) {
      if (const std::string why = reason_to_stop(elapsed()); !why.empty()) {
        report_.stopped = why;
        for (size_t rest = i; rest < mine.size(); ++rest) not_run(*mine[rest], why);
        break;
      }
      if (const std::string why = reason_to_skip(*mine[i]); !why.empty())
        not_run(*mine[i], why);
      else
        execute(*mine[i]);
      if (o_.on_progress) o_.on_progress(i + 1, mine.size(), engine_->failures(), elapsed());
      if (o_.stop_after_failures > 0 && engine_->failures() >= static_cast<size_t>(o_.stop_after_failures))
        break;
      if (o_.on_checkpoint && elapsed() >= next_checkpoint) {
        cert::Report snapshot = report_;
        snapshot.seconds = elapsed();
        snapshot.stopped = "still running: " + std::to_string(i + 1) + " of " + std::to_string(mine.size()) +
                           " cases done when this report was written";
        o_.on_checkpoint(snapshot);
        next_checkpoint = elapsed() + o_.checkpoint_seconds;
      }
    }
    for (const Failure& late : engine_->settle()) count_earlier(late);
    if (report_.stopped.empty()) shut_down();
    check_signal_handlers();
    report_.repro_error = engine_->repro_error();
    report_.containment = o_.containment;
    sort_profile(report_);
    report_.seconds = elapsed();
    report_.recurrence = shapes_.counts();
    return std::move(report_);
  }

  // A certification that could not start: everything planned, nothing run.
  cert::Report nothing_run(const std::string& backend_name, const std::string& why) {
    plan();
    report_.backend_name = backend_name;
    report_.stopped = why;
    for (size_t i = 0; i < items_.size(); ++i)
      if (i % o_.shard.count == o_.shard.index) not_run(items_[i], why);
    return std::move(report_);
  }

 private:
  // Why the run must stop before the next case: a stop request, the time limit, or a backend
  // that keeps hanging.
  std::string reason_to_stop(double elapsed) const {
    if (stop_requested()) return interruption();
    if (o_.time_limit_seconds > 0 && (elapsed >= o_.time_limit_seconds || past_run_time_bound()))
      return time_limit_text();
    if (o_.max_timeouts > 0 && timeouts_ >= o_.max_timeouts)
      return "stopped after " + std::to_string(timeouts_) +
             " timeouts and limits (--max-timeouts): the backend hangs or runs away";
    return {};
  }

  std::string time_limit_text() const {
    const std::string seconds = std::to_string(static_cast<int64_t>(o_.time_limit_seconds));
    return o_.time_limit_is_budgets
               ? "stopped at the " + o_.budget.name + " budget's time bound of " + seconds +
                     " s before every case had run (--time-limit sets another)"
               : "stopped at the time limit of " + seconds + " s (--time-limit) before every case had run";
  }

  // Why one item is not run: an earlier timeout (or memory or CPU limit: as costly) in its cell or
  // rule check, or several in its operator.
  std::string reason_to_skip(const Item& item) const {
    if (item.kind != Item::Corpus)
      if (const auto it = timed_out_.find(entry_of(item)); it != timed_out_.end())
        return "not run after a " + std::string(name(it->second)) + " in this " +
               std::string(entry_of(item).first ? "cell" : "rule check");
    const auto op = static_cast<size_t>(item.op);
    if (o_.timeouts_per_operator > 0 && timeouts_by_op_[op] >= o_.timeouts_per_operator)
      return "not run after " + std::to_string(timeouts_by_op_[op]) + " timeouts and limits in " +
             std::string(name(item.op));
    return {};
  }

  void not_run(const Item& item, const std::string& why) {
    switch (item.kind) {
      case Item::Corpus: report_.corpus_not_run.add(why); break;
      case Item::Cell:
      case Item::Sequence: report_.cells[item.index].not_run.add(why); break;
      default: report_.rules[item.index].not_run.add(why); break;
    }
  }

  // The report entry an item counts towards: (is a cell, index).
  static std::pair<bool, size_t> entry_of(const Item& item) {
    return {item.kind == Item::Cell || item.kind == Item::Sequence, item.index};
  }

  void plan() {
    report_.backend = o_.backend;
    report_.backend_name = under_test_ ? under_test_->name() : "";
    report_.level = o_.level;
    report_.backend_max_level = under_test_ ? under_test_->max_feature_level() : o_.level;
    report_.budget = o_.budget.name;
    report_.accumulation = o_.engine.run.profile;
    report_.shards = {o_.shard};
    report_.seed = o_.seed;
    report_.dmlcert_version = DMLCERT_VERSION;
    report_.started = now_utc();
    report_.time_limit_seconds = o_.time_limit_seconds;
    report_.time_limit_is_budgets = o_.time_limit_is_budgets;
    report_.scope.asked = o_.ops;
    for (const SupportCell& cell : support_cells(o_.level)) {
      if (cell.role != Role::INPUT || !has_op(o_.ops, cell.op)) continue;
      auto& claims = report_.scope.claims;
      const bool seen = std::any_of(claims.begin(), claims.end(), [&](const cert::Scope::Claim& c) {
        return c.op == cell.op && c.function == cell.function && c.type == cell.type;
      });
      if (!seen)
        claims.push_back({cell.op, cell.function, cell.type,
                          under_test_ && under_test_->implements(cell.op, cell.function, cell.type)});
    }
    for (size_t i = 0; i < o_.corpus.size(); ++i)
      items_.push_back({Item::Corpus,
                        i,
                        op_kind(o_.corpus[i].op),
                        {},
                        0,
                        "corpus/" + std::to_string(i) + "-" + o_.corpus[i].name});
    constexpr props::DataMode kModes[] = {props::DataMode::Exact, props::DataMode::Random};
    auto mode_word = [](props::DataMode m) { return m == props::DataMode::Exact ? "/exact/" : "/random/"; };
    for (const SupportCell& cell : support_cells(o_.level)) {
      if (!has_op(o_.ops, cell.op)) continue;
      const size_t index = report_.cells.size();
      cell_index_[cert::cell_key(cell)] = index;
      report_.cells.push_back({cell, {}, {}, {}});
      for (auto mode : kModes)
        for (int rep = 0; rep < o_.budget.per_cell_mode; ++rep)
          items_.push_back({Item::Cell, index, cell.op, mode, rep,
                            "cells/" + cert::cell_key(cell) + mode_word(mode) + std::to_string(rep),
                            o_.level});
      for (int rep = 0; rep < share(o_.budget.families_per_cell, index); ++rep) {
        const auto mode = kModes[rep % 2];
        items_.push_back({Item::Sequence, index, cell.op, mode, rep,
                          "sequences/" + cert::cell_key(cell) + mode_word(mode) + std::to_string(rep),
                          o_.level});
      }
    }
    // Huge cases, after a cell's own: its next repetition, with random data.
    for (const SupportCell& cell : props::huge_cells(o_.level, o_.ops, o_.budget.huge_per_operator)) {
      const auto at = cell_index_.find(cert::cell_key(cell));
      if (at == cell_index_.end()) continue;
      const int rep = o_.budget.per_cell_mode;
      items_.push_back(
          {Item::Cell, at->second, cell.op, props::DataMode::Random, rep,
           "cells/" + cert::cell_key(cell) + mode_word(props::DataMode::Random) + std::to_string(rep),
           o_.level, true});
    }
    // Each rule's operators take turns (rep by rep), so that each is asked to reject it.
    auto add_rules = [&](FeatureLevel level, const std::vector<std::string>& rules, cert::RuleSection section,
                         int reps, const std::string& prefix) {
      for (const std::string& rule : rules) {
        const size_t index = rule_index(rule, section);
        const auto ops = props::rule_operators(rule, level, section == cert::RuleSection::Invalid, o_.ops);
        for (int rep = 0; rep < reps; ++rep)
          items_.push_back(
              {Item::Rule,
               index,
               ops.empty() ? op_of_rule(rule) : ops[rep % ops.size()],
               {},
               rep,
               prefix + std::string(cert::name(section)) + "/" + rule + "/" + std::to_string(rep),
               level});
      }
    };
    add_rules(o_.level, props::invalid_rules(o_.level, o_.ops), cert::RuleSection::Invalid,
              o_.budget.per_rule, "");
    add_rules(o_.level, props::unspecified_rules(o_.level, o_.ops), cert::RuleSection::Unspecified,
              o_.budget.per_rule, "");
    // Every operator that reads indices gets cases with index values at the extremes of their
    // type (its INDEX_RANGE rule, docs/semantics.md): the values no generator of valid cases makes.
    for (OpKind op : all_ops()) {
      const auto op_roles = roles(op);
      if (std::find(op_roles.begin(), op_roles.end(), Role::INDICES) == op_roles.end()) continue;
      if (!has_op(o_.ops, op) || o_.level < introduced_at(op)) continue;
      const std::string rule = std::string(info(op).rule_prefix) + ".INDEX_RANGE.extreme";
      const size_t index = rule_index(rule, cert::RuleSection::Robustness);
      for (int rep = 0; rep < o_.budget.per_robustness; ++rep)
        items_.push_back({Item::Robustness,
                          index,
                          op,
                          {},
                          rep,
                          "robustness/" + rule + "/" + std::to_string(rep),
                          o_.level});
    }
    // The lower table levels (docs/design.md, "Certification"): a backend certified at L runs
    // cases of every level up to L, and a table transcribed wrong below L shows only there. Their
    // cells count towards the same cells of L's table (the tables only grow with the level).
    for (FeatureLevel lower : kTableLevels) {
      if (lower >= table_level(o_.level)) continue;
      const std::string prefix = "levels/" + std::string(name(lower)) + "/";
      size_t planned = 0;
      for (const SupportCell& cell : support_cells(lower)) {
        const auto at = cell_index_.find(cert::cell_key(cell));
        if (!has_op(o_.ops, cell.op) || at == cell_index_.end()) continue;
        for (int rep = 0; rep < share(o_.budget.per_lower_cell, planned++); ++rep) {
          const auto mode = kModes[rep % 2];
          items_.push_back({Item::Cell, at->second, cell.op, mode, rep,
                            prefix + "cells/" + cert::cell_key(cell) + mode_word(mode) + std::to_string(rep),
                            lower});
        }
      }
      add_rules(lower, props::invalid_rules(lower, o_.ops), cert::RuleSection::Invalid,
                o_.budget.per_lower_rule, prefix);
      add_rules(lower, props::unspecified_rules(lower, o_.ops), cert::RuleSection::Unspecified,
                o_.budget.per_lower_rule, prefix);
    }
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
    auto mixed = [](const Item& i) {
      uint64_t z = fnv1a(i.key) + 0x9E3779B97F4A7C15ull;  // splitmix64's finalizer spreads similar keys
      z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
      z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
      return z ^ (z >> 31);
    };
    auto generated = std::stable_partition(items_.begin(), items_.end(),
                                           [](const Item& i) { return i.kind == Item::Corpus; });
    // Each key hashed once, not once per comparison.
    const size_t first = static_cast<size_t>(generated - items_.begin());
    std::vector<std::pair<uint64_t, size_t>> order;
    order.reserve(items_.size() - first);
    for (size_t i = first; i < items_.size(); ++i) order.emplace_back(mixed(items_[i]), i);
    std::stable_sort(order.begin(), order.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<Item> sorted(std::make_move_iterator(items_.begin()),
                             std::make_move_iterator(items_.begin() + static_cast<std::ptrdiff_t>(first)));
    sorted.reserve(items_.size());
    for (const auto& [hash, i] : order) sorted.push_back(std::move(items_[i]));
    items_ = std::move(sorted);
  }

  std::optional<rc::Gen<Case>> generator(const Item& item) {
    switch (item.kind) {
      case Item::Cell:
        return props::valid_case_for_cell(report_.cells[item.index].cell, item.level, item.mode, {},
                                          item.huge ? props::CaseSize::Huge : props::CaseSize::Drawn);
      case Item::Rule: {
        const auto& rule = report_.rules[item.index];
        return rule.section == cert::RuleSection::Invalid
                   ? props::invalid_case(rule.rule, item.level, {item.op})
                   : props::unspecified_case(rule.rule, item.level, {item.op});
      }
      case Item::Robustness: {
        const std::string& key = report_.rules[item.index].rule;  // "<prefix>.INDEX_RANGE.extreme"
        const std::string rule = key.substr(0, key.rfind('.'));
        const auto op = std::find_if(all_ops().begin(), all_ops().end(), [&](OpKind k) {
          return rule == std::string(info(k).rule_prefix) + ".INDEX_RANGE";
        });
        const int rep = item.rep;
        // Every extreme (rep % 3) of every index type, over the ranks in turn.
        const auto s = support(*op, std::nullopt, Role::INDICES, o_.level);
        const size_t types = s->types.size(), ranks = s->max_rank - s->min_rank + 1;
        const size_t turn = static_cast<size_t>(rep) / 3;
        const SupportCell cell{*op, std::nullopt, Role::INDICES, s->types[turn % types],
                               s->min_rank + static_cast<uint32_t>(turn / types % ranks)};
        return props::extreme_index_case(cell, o_.level, rep, rule);
      }
      case Item::Corpus:
      case Item::Sequence: break;
    }
    return std::nullopt;
  }

  cert::Counts& counts_of(const Item& item) {
    switch (item.kind) {
      case Item::Corpus: return report_.corpus;
      case Item::Cell:
      case Item::Sequence: return report_.cells[item.index].counts;
      default: return report_.rules[item.index].counts;
    }
  }

  std::vector<std::string>* repros_of(const Item& item) {
    switch (item.kind) {
      case Item::Corpus: return nullptr;
      case Item::Cell:
      case Item::Sequence: return &report_.cells[item.index].repros;
      default: return &report_.rules[item.index].repros;
    }
  }

  void execute(const Item& item) {
    const uint64_t seed = fnv1a(item.key) ^ o_.seed;
    if (item.kind == Item::Sequence) return execute_family(item, seed);
    WorkItem work;
    work.key = item.key;
    if (item.kind == Item::Corpus) {
      work.given = &o_.corpus[item.index];
    } else {
      auto gen = generator(item);
      if (!gen) {  // the rule cannot be broken at this level for these operators
        ++counts_of(item)[static_cast<size_t>(Outcome::Skipped)];
        return;
      }
      work.gen = std::move(*gen);
      work.seed = seed;
      work.size = o_.budget.size;
      work.origin = "certify seed=" + std::to_string(seed) + " size=" + std::to_string(o_.budget.size);
    }
    CaseOutcome out = engine_->run(work);
    if (out.interrupted) {
      not_run(item, reason_to_stop(seconds_so_far()));
      return;
    }
    if (!out.generated) {
      ++counts_of(item)[static_cast<size_t>(Outcome::Skipped)];
      for (const Failure& f : out.earlier) count_earlier(f);
      return;
    }
    tally(item,
          {counts_of(item), repros_of(item),
           item.kind == Item::Corpus ? std::nullopt : std::optional(entry_of(item))},
          out);
  }

  // A family of related cases, back to back in the backend's process, all sampled at one seed.
  // Valid members count towards their cell; a member that is invalid or class U at its level
  // counts towards the first rule it breaks. `key` names that check as a work item's key would
  // (WorkItem::counts_at).
  struct MemberCheck {
    bool is_cell;
    size_t index;
    std::string key;
  };
  MemberCheck member_check(const Item& item, const RelatedCase& member, const Classification& cls) {
    if (cls.case_class == CaseClass::Valid) {
      const auto at = cell_index_.find(cert::cell_key(member.cell));
      const size_t index = at != cell_index_.end() ? at->second : item.index;
      return {true, index, "cells/" + cert::cell_key(report_.cells[index].cell)};
    }
    const auto section =
        cls.case_class == CaseClass::Invalid ? cert::RuleSection::Invalid : cert::RuleSection::Unspecified;
    const std::string rule = cls.findings.empty() ? "?" : cls.findings.front().rule;
    return {false, rule_index(rule, section), std::string(cert::name(section)) + "/" + rule};
  }

  // The counts and repro list of the check a key names: a work item's, or one member_check() named.
  std::optional<std::pair<cert::Counts*, std::vector<std::string>*>> check_named(const std::string& key) {
    if (const auto it = item_by_key_.find(key); it != item_by_key_.end())
      return std::pair{&counts_of(items_[it->second]), repros_of(items_[it->second])};
    if (key.starts_with("cells/")) {
      const auto at = cell_index_.find(key.substr(6));
      if (at == cell_index_.end()) return std::nullopt;
      return std::pair{&report_.cells[at->second].counts, &report_.cells[at->second].repros};
    }
    for (const auto section : {cert::RuleSection::Invalid, cert::RuleSection::Unspecified}) {
      const std::string prefix = std::string(cert::name(section)) + "/";
      if (!key.starts_with(prefix)) continue;
      const size_t index = rule_index(key.substr(prefix.size()), section);
      return std::pair{&report_.rules[index].counts, &report_.rules[index].repros};
    }
    return std::nullopt;
  }

  void execute_family(const Item& item, uint64_t seed) {
    const SupportCell& cell = report_.cells[item.index].cell;
    for (const RelatedCase& member :
         related_cases(cell, item.level, item.mode, o_.budget.size, seed, o_.level)) {
      if (o_.stop_after_failures > 0 && engine_->failures() >= static_cast<size_t>(o_.stop_after_failures))
        return;
      WorkItem work;
      work.key = item.key + "/" + member.name;
      // A known failure of the member's own cell (--expect) is known here too.
      work.counts_at = [&](const Classification& cls) { return member_check(item, member, cls).key; };
      work.gen = member.gen;
      work.seed = seed;
      work.size = member.size;
      work.origin =
          "certify seed=" + std::to_string(seed) + " size=" + std::to_string(member.size) + " " + member.name;
      CaseOutcome out = engine_->run(work);
      if (out.interrupted) {
        not_run(item, reason_to_stop(seconds_so_far()));
        return;
      }
      if (!out.generated) {
        ++report_.cells[item.index].counts[static_cast<size_t>(Outcome::Skipped)];
        for (const Failure& f : out.earlier) count_earlier(f);
        continue;
      }
      const MemberCheck at = member_check(item, member, out.cls);
      cert::Counts& counts = at.is_cell ? report_.cells[at.index].counts : report_.rules[at.index].counts;
      auto& repros = at.is_cell ? report_.cells[at.index].repros : report_.rules[at.index].repros;
      tally(item, {counts, &repros, std::pair{at.is_cell, at.index}}, out);
      // A timeout ends the family as it ends its cell.
      if (out.report.outcome == Outcome::Timeout || out.report.outcome == Outcome::Limit) return;
    }
  }

  // Where a case counts: its counts, its repro files and its cell or rule check ((is a cell,
  // index); none for the corpus).
  struct Entry {
    cert::Counts& counts;
    std::vector<std::string>* repros;
    std::optional<std::pair<bool, size_t>> check;
  };

  // Counts a case that ran: its outcome, what the backend printed, its behaviour, its shape, a
  // timeout and a failure, and the late faults it revealed of earlier cases.
  void tally(const Item& item, const Entry& entry, const CaseOutcome& out) {
    ++entry.counts[static_cast<size_t>(out.report.outcome)];
    note_time(out.report.exec);
    if (!out.report.exec.interference.empty()) note_interference(out.c.name, out.report.exec.interference);
    note_output(out.c.name, out.report.exec);
    note_behaviour(out);
    if (out.cls.case_class == CaseClass::Valid) shapes_.add(out.c);
    if (out.report.outcome == Outcome::Timeout || out.report.outcome == Outcome::Limit) {
      ++timeouts_;
      ++timeouts_by_op_[static_cast<size_t>(item.op)];
      if (entry.check) timed_out_.emplace(*entry.check, out.report.outcome);
    }
    if (out.failure) record(entry.repros, *out.failure);
    for (const Failure& f : out.earlier) count_earlier(f);
  }

  // The backend's end is checked like its calls: a plugin that crashes or hangs when it is
  // destroyed would take its host application down at exit (robustness check BACKEND.DESTROY).
  void shut_down() {
    cert::RuleResult check{"BACKEND.DESTROY", cert::RuleSection::Robustness, {}, {}, {}};
    const std::string problem = under_test_->shut_down();
    // Every shard's backend is checked; a clean end counts once, in shard 0, so that merged shard
    // reports equal the unsharded run.
    if (problem.empty() && o_.shard.index != 0) return;
    ++check.counts[static_cast<size_t>(problem.empty() ? Outcome::Passed : Outcome::Crash)];
    if (!problem.empty()) {
      cert::Failure f;
      f.where = "robustness/BACKEND.DESTROY";
      f.case_name = "destroy";
      f.outcome = Outcome::Crash;
      f.detail = problem;
      f.confirmation = "unchecked";
      report_.failures.push_back(std::move(f));
    }
    report_.rules.push_back(std::move(check));
  }

  // The robustness check BACKEND.SIGNAL_HANDLERS: the backend replaced dmlcert's fault handlers in
  // its process (plugin/signal_guard.h). Each time counts; the first few are reported.
  static constexpr const char* kSignalHandlers = "BACKEND.SIGNAL_HANDLERS";
  void note_interference(const std::string& case_name, const std::string& what) {
    cert::RuleResult& check = report_.rules[rule_index(kSignalHandlers, cert::RuleSection::Robustness)];
    if (check.counts[static_cast<size_t>(Outcome::Failed)]++ >= 3) return;
    cert::Failure f;
    f.where = std::string("robustness/") + kSignalHandlers;
    f.case_name = case_name;
    f.outcome = Outcome::Failed;
    f.detail = "the backend " + what + "; seen with case " + case_name;
    f.confirmation = "unchecked";
    report_.failures.push_back(std::move(f));
  }
  // Checked around every call of a backend in a child process; a clean run counts once, in shard 0,
  // so that merged shard reports equal the unsharded run.
  void check_signal_handlers() {
    if (!o_.engine.isolated || o_.shard.index != 0) return;
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

  // A late fault of an earlier case counts against that case, not the one that revealed it: where
  // the case itself counted (Failure::counts_at).
  void count_earlier(const Failure& f) {
    const auto check = check_named(f.counts_at);
    if (!check) return;
    cert::Counts& counts = *check->first;
    if (counts[static_cast<size_t>(Outcome::Passed)] > 0) --counts[static_cast<size_t>(Outcome::Passed)];
    ++counts[static_cast<size_t>(f.outcome)];
    record(check->second, f);
  }

  void record(std::vector<std::string>* repros, const Failure& f) {
    if (repros) {
      if (!f.repro.empty()) repros->push_back(f.repro);
      if (!f.shrunk.empty()) repros->push_back(f.shrunk);
      if (!f.sequence.empty()) repros->push_back(f.sequence);
    }
    cert::Failure out;
    out.where = f.key;
    out.case_name = f.case_name;
    out.outcome = f.outcome;
    out.detail = f.detail;
    out.repro = f.repro;
    out.shrunk = f.shrunk;
    out.sequence = f.sequence;
    out.confirmation = name(f.confirmation);
    out.reproduce = f.reproduce;
    out.seed = f.seed;
    out.backend_output = f.backend_output;
    out.backend_output_dropped = f.backend_output_dropped;
    if (f.counts_at != f.key) out.counts_against = cert::failing_key(f.counts_at, f.case_name);
    report_.failures.push_back(std::move(out));
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

  // What the backend printed goes to the report, never to dmlcert's own output.
  void note_output(const std::string& key, const ExecResult& exec) {
    if (exec.output_text.empty() && exec.output_dropped == 0) return;
    cert::BackendOutput& o = report_.backend_output;
    ++o.calls;
    o.bytes += exec.output_text.size() + exec.output_dropped;
    if (o.samples.size() < cert::BackendOutput::kSamples)
      o.samples.push_back({key, exec.output_text, exec.output_dropped});
  }

  double seconds_so_far() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }

  const CertifyOptions& o_;
  Clock::time_point start_ = Clock::now();
  Backend* under_test_;
  Engine* engine_;
  std::vector<Item> items_;
  std::unordered_map<std::string, size_t> item_by_key_;
  cert::Report report_;
  int timeouts_ = 0;
  std::array<int, kOpCount> timeouts_by_op_{};
  // (is a cell, index) of cells and rule checks with a timeout or a limit, and which.
  std::map<std::pair<bool, size_t>, Outcome> timed_out_;
  std::map<std::string, size_t> cell_index_;  // cell key -> report_.cells
  ShapeGroups shapes_;
};

}  // namespace

std::optional<Budget> budget_named(const std::string& name) {
  // Calibrated on two cores with the default --jobs (docs/design.md, "Budgets"): quick well under
  // a minute, standard a few minutes, thorough about a quarter of an hour.
  // smoke: a few seconds, for the tests of a CI pipeline, not a certification to publish.
  // The time bounds: smoke 2 min, quick 9 min (the bound is 10 on two cores, whatever the
  // backend; the last minute is for settling, shutting down and writing the reports), standard 30
  // min, thorough 2 h.
  if (name == "smoke") return Budget{"smoke", 1, 8, 6, 25, 1.0, 10, 0.125, 0.25, 2, 0, 120};
  if (name == "quick") return Budget{"quick", 8, 300, 600, 25, 1.0, 10, 3, 4, 60, 1, 540};
  if (name == "standard") return Budget{"standard", 48, 2400, 3000, 40, 5.0, 50, 16, 16, 480, 3, 1800};
  if (name == "thorough") return Budget{"thorough", 240, 12000, 15000, 60, 20.0, 200, 75, 75, 2400, 6, 7200};
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

namespace {

// Several workers, each a shard of the run with a backend process of its own, on threads; their
// reports merge like shards run apart (report.h). Progress and checkpoints add up the workers'.
std::optional<cert::Report> run_workers(const CertifyOptions& options, const BackendFactory& open,
                                        Oracle& oracle, std::string* error) {
  const unsigned jobs = options.jobs;
  std::vector<std::unique_ptr<Backend>> backends;
  for (unsigned w = 0; w < jobs; ++w) {
    backends.push_back(open());
    if (!backends.back())
      return stopped_report(options, "", "the backend " + options.backend + " could not be opened");
  }
  std::mutex lock;
  struct Seen {
    size_t done = 0, total = 0, failures = 0;
    std::optional<cert::Report> snapshot;
  };
  std::vector<Seen> seen(jobs);
  std::vector<std::optional<cert::Report>> parts(jobs);
  std::vector<std::string> errors(jobs);
  auto merged = [&](std::vector<cert::Report> reports) -> std::optional<cert::Report> {
    auto out = cert::merge(reports, nullptr);
    if (!out) return out;
    out->shards = {options.shard};  // the workers split this shard between them
    sort_profile(*out);
    return out;
  };
  std::vector<std::thread> threads;
  for (unsigned w = 0; w < jobs; ++w)
    threads.emplace_back([&, w] {
      CertifyOptions o = options;
      o.jobs = 1;
      o.shard = {static_cast<uint32_t>(options.shard.index + options.shard.count * w),
                 static_cast<uint32_t>(options.shard.count * jobs)};
      if (options.on_progress)
        o.on_progress = [&, w](size_t done, size_t total, size_t failures, double elapsed) {
          std::lock_guard<std::mutex> hold(lock);
          seen[w].done = done, seen[w].total = total, seen[w].failures = failures;
          Seen sum;
          for (const Seen& s : seen) sum.done += s.done, sum.total += s.total, sum.failures += s.failures;
          options.on_progress(sum.done, sum.total, sum.failures, elapsed);
        };
      if (options.on_checkpoint)
        o.on_checkpoint = [&, w](const cert::Report& so_far) {
          std::lock_guard<std::mutex> hold(lock);
          seen[w].snapshot = so_far;
          std::vector<cert::Report> reports;
          for (const Seen& s : seen)
            if (s.snapshot) reports.push_back(*s.snapshot);
          if (reports.size() == jobs)
            if (auto all = merged(std::move(reports))) options.on_checkpoint(*all);
        };
      // The worker's own backend serves its run; confirmations open fresh ones.
      auto first = std::make_shared<std::unique_ptr<Backend>>(std::move(backends[w]));
      const BackendFactory worker_open = [&open, first]() -> std::unique_ptr<Backend> {
        return *first ? std::move(*first) : open();
      };
      parts[w] = run_certification(o, worker_open, oracle, &errors[w]);
    });
  for (std::thread& t : threads) t.join();
  std::vector<cert::Report> reports;
  for (unsigned w = 0; w < jobs; ++w) {
    if (!parts[w]) {
      *error = errors[w];
      return std::nullopt;
    }
    reports.push_back(std::move(*parts[w]));
  }
  auto out = merged(std::move(reports));
  if (!out) *error = "the workers' reports do not merge";
  return out;
}

}  // namespace

std::optional<cert::Report> run_certification(const CertifyOptions& options, const BackendFactory& open,
                                              Oracle& oracle, std::string* error) {
  // --stop-after-failures counts the failures of one run in one order: one worker.
  if (options.jobs > 1 && options.stop_after_failures == 0 &&
      uint64_t{options.shard.count} * options.jobs <= std::numeric_limits<uint32_t>::max())
    return run_workers(options, open, oracle, error);
  std::unique_ptr<Backend> under_test = open();
  if (!under_test)
    return stopped_report(options, "", "the backend " + options.backend + " could not be opened");
  EngineOptions eo = options.engine;
  eo.shrink_seconds = options.budget.shrink_seconds;
  eo.max_shrinks = options.budget.max_shrinks;
  // A failure counts against its cell, rule check or corpus case: the first ones of each are
  // investigated, the rest reported.
  eo.place = [](const std::string& key, const std::string& case_name) {
    return cert::failing_key(key, case_name);
  };
  // A cause investigated twice is known: its later failures are saved and reported, unchecked.
  eo.cause = [](const std::string& key, Outcome outcome, const std::string& detail) {
    return cert::cause_key(key, outcome, detail);
  };
  std::error_code ec;
  fs::create_directories(eo.repro_dir, ec);
  if (ec) {
    *error = "cannot create the repro directory " + eo.repro_dir + ": " + ec.message();
    return std::nullopt;
  }
  CertifyOptions o = options;
  std::erase_if(o.corpus, [&](const Case& c) { return c.level > o.level || !has_op(o.ops, op_kind(c.op)); });
  Engine engine(*under_test, oracle, open, eo);
  Certification run(o, under_test.get(), &engine);
  return run.run();
}

std::string now_utc() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  ::gmtime_r(&now, &utc);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return buf;
}

std::string interruption() {
  const char* sig = sigabbrev_np(stop_signal());
  return "interrupted by SIG" + std::string(sig ? sig : "?") + " before every case had run";
}

cert::Report stopped_report(const CertifyOptions& options, const std::string& backend_name,
                            const std::string& why) {
  CertifyOptions o = options;
  std::erase_if(o.corpus, [&](const Case& c) { return c.level > o.level || !has_op(o.ops, op_kind(c.op)); });
  Certification nothing(o, nullptr, nullptr);
  return nothing.nothing_run(backend_name, why);
}

}  // namespace dmlcert::engine

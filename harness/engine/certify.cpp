#include "certify.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <limits>
#include <map>

#include "generators.h"
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
  size_t index;  // into corpus cases, report cells or report rules
  props::DataMode mode = props::DataMode::Exact;
  int rep = 0;
  std::string key;  // stable and unique: the seed and the repro file name come from it
  // The level its cases are generated at: the certification level, or a lower table level
  // (docs/design.md, "Certification").
  FeatureLevel level = kDefaultFeatureLevel;
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

// Replaces one index element with a value far outside every dimension (type maximum, minimum,
// or 2^31): the case becomes class U (*.INDEX_RANGE) and must neither crash nor touch memory
// outside the buffers.
Case with_extreme_index(Case c, int rep, const std::string& rule) {
  TensorDesc* indices = tensor(c.op, Role::INDICES);
  Bytes& data = c.data.indices;
  if (!indices || data.empty()) return c;
  const size_t esize = element_size(indices->type);
  const size_t count = data.size() / esize;
  std::byte* p = data.data() + (static_cast<size_t>(rep) * 7919 % count) * esize;
  dispatch(indices->type, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_integral_v<T>) {
      T values[3] = {
          std::numeric_limits<T>::max(),
          std::is_signed_v<T> ? std::numeric_limits<T>::min() : static_cast<T>(T{1} << 31),
          std::is_signed_v<T> ? static_cast<T>(-(int64_t{1} << 31)) : static_cast<T>(uint64_t{1} << 31)};
      store<T>(p, values[rep % 3]);
    }
  });
  c.expect = CaseClass::Unspecified;
  c.violates = {rule};
  c.expected_output.reset();
  return c;
}

class Certification {
 public:
  Certification(const CertifyOptions& o, Backend& under_test, Engine& engine)
      : o_(o), under_test_(under_test), engine_(engine) {}

  cert::Report run() {
    plan();
    interleave();
    std::vector<const Item*> mine;
    for (size_t i = 0; i < items_.size(); ++i)
      if (i % o_.shard.count == o_.shard.index) mine.push_back(&items_[i]);
    const auto start = Clock::now();
    auto elapsed = [&] { return std::chrono::duration<double>(Clock::now() - start).count(); };
    for (size_t i = 0; i < mine.size(); ++i) {
      execute(*mine[i]);
      if (o_.on_progress) o_.on_progress(i + 1, mine.size(), engine_.failures(), elapsed());
      if (o_.stop_after_failures > 0 && engine_.failures() >= static_cast<size_t>(o_.stop_after_failures))
        break;
    }
    report_.seconds = elapsed();
    report_.recurrence = shapes_.counts();
    return std::move(report_);
  }

 private:
  void plan() {
    report_.backend = o_.backend;
    report_.backend_name = under_test_.name();
    report_.level = o_.level;
    report_.backend_max_level = under_test_.max_feature_level();
    report_.budget = o_.budget.name;
    report_.shards = {o_.shard};
    for (size_t i = 0; i < o_.corpus.size(); ++i)
      items_.push_back({Item::Corpus, i, {}, 0, "corpus/" + std::to_string(i) + "-" + o_.corpus[i].name});
    constexpr props::DataMode kModes[] = {props::DataMode::Exact, props::DataMode::Random};
    auto mode_word = [](props::DataMode m) { return m == props::DataMode::Exact ? "/exact/" : "/random/"; };
    for (const SupportCell& cell : support_cells(o_.level)) {
      if (!has_op(o_.ops, cell.op)) continue;
      const size_t index = report_.cells.size();
      cell_index_[cert::cell_key(cell)] = index;
      report_.cells.push_back({cell, {}, {}});
      for (auto mode : kModes)
        for (int rep = 0; rep < o_.budget.per_cell_mode; ++rep)
          items_.push_back({Item::Cell, index, mode, rep,
                            "cells/" + cert::cell_key(cell) + mode_word(mode) + std::to_string(rep),
                            o_.level});
      for (int rep = 0; rep < share(o_.budget.families_per_cell, index); ++rep) {
        const auto mode = kModes[rep % 2];
        items_.push_back({Item::Sequence, index, mode, rep,
                          "sequences/" + cert::cell_key(cell) + mode_word(mode) + std::to_string(rep),
                          o_.level});
      }
    }
    auto add_rules = [&](FeatureLevel level, const std::vector<std::string>& rules, cert::RuleSection section,
                         int reps, const std::string& prefix) {
      for (const std::string& rule : rules) {
        const size_t index = rule_index(rule, section);
        for (int rep = 0; rep < reps; ++rep)
          items_.push_back(
              {Item::Rule,
               index,
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
        items_.push_back(
            {Item::Robustness, index, {}, rep, "robustness/" + rule + "/" + std::to_string(rep), o_.level});
    }
    // The lower table levels (docs/design.md, "Certification"): a backend certified at L runs cases of
    // every level up to L, and a table transcribed wrong below L shows only there. Their cells
    // count towards the same cells of L's table (the tables only grow with the level).
    for (FeatureLevel lower : kTableLevels) {
      if (lower >= table_level(o_.level)) continue;
      const std::string prefix = "levels/" + std::string(name(lower)) + "/";
      size_t planned = 0;
      for (const SupportCell& cell : support_cells(lower)) {
        const auto at = cell_index_.find(cert::cell_key(cell));
        if (!has_op(o_.ops, cell.op) || at == cell_index_.end()) continue;
        for (int rep = 0; rep < share(o_.budget.per_lower_cell, planned++); ++rep) {
          const auto mode = kModes[rep % 2];
          items_.push_back({Item::Cell, at->second, mode, rep,
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
    report_.rules.push_back({rule, section, {}, {}});
    return report_.rules.size() - 1;
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
    std::stable_sort(generated, items_.end(),
                     [&](const Item& a, const Item& b) { return mixed(a) < mixed(b); });
  }

  std::optional<rc::Gen<Case>> generator(const Item& item) {
    switch (item.kind) {
      case Item::Cell:
        return props::valid_case_for_cell(report_.cells[item.index].cell, item.level, item.mode);
      case Item::Rule: {
        // The rule's operators take turns, so that each is asked to reject it.
        const auto& rule = report_.rules[item.index];
        const bool invalid = rule.section == cert::RuleSection::Invalid;
        const auto ops = props::rule_operators(rule.rule, item.level, invalid, o_.ops);
        if (ops.empty()) return std::nullopt;
        const std::vector<OpKind> one = {ops[static_cast<size_t>(item.rep) % ops.size()]};
        return invalid ? props::invalid_case(rule.rule, item.level, one)
                       : props::unspecified_case(rule.rule, item.level, one);
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
        return rc::gen::map(props::valid_case_for_cell(cell, o_.level, props::DataMode::Random),
                            [rep, rule](Case c) { return with_extreme_index(std::move(c), rep, rule); });
      }
      case Item::Corpus:
      case Item::Sequence: break;
    }
    return std::nullopt;
  }

  cert::Counts& counts_of(const Item& item) {
    switch (item.kind) {
      case Item::Corpus: return report_.corpus;
      case Item::Cell: return report_.cells[item.index].counts;
      default: return report_.rules[item.index].counts;
    }
  }

  std::vector<std::string>* repros_of(const Item& item) {
    switch (item.kind) {
      case Item::Corpus: return nullptr;
      case Item::Cell: return &report_.cells[item.index].repros;
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
    CaseOutcome out = engine_.run(work);
    if (!out.generated) {
      ++counts_of(item)[static_cast<size_t>(Outcome::Skipped)];
      return;
    }
    if (out.cls.case_class == CaseClass::Valid) shapes_.add(out.c);
    record(item.key, out, counts_of(item), repros_of(item));
  }

  // A family of related cases, back to back in the backend's process, all sampled at one seed.
  // Valid members count towards their cell; a member that is invalid or class U at its level
  // counts towards the first rule it breaks.
  void execute_family(const Item& item, uint64_t seed) {
    const SupportCell& cell = report_.cells[item.index].cell;
    for (const RelatedCase& member :
         related_cases(cell, item.level, item.mode, o_.budget.size, seed, o_.level)) {
      if (o_.stop_after_failures > 0 && engine_.failures() >= static_cast<size_t>(o_.stop_after_failures))
        return;
      WorkItem work;
      work.key = item.key + "/" + member.name;
      work.gen = member.gen;
      work.seed = seed;
      work.size = member.size;
      work.origin =
          "certify seed=" + std::to_string(seed) + " size=" + std::to_string(member.size) + " " + member.name;
      CaseOutcome out = engine_.run(work);
      if (!out.generated) {
        ++report_.cells[item.index].counts[static_cast<size_t>(Outcome::Skipped)];
        continue;
      }
      if (out.cls.case_class == CaseClass::Valid) {
        shapes_.add(out.c);
        const auto at = cell_index_.find(cert::cell_key(member.cell));
        cert::CellResult& entry = report_.cells[at == cell_index_.end() ? item.index : at->second];
        record(work.key, out, entry.counts, &entry.repros);
      } else {
        const auto section = out.cls.case_class == CaseClass::Invalid ? cert::RuleSection::Invalid
                                                                      : cert::RuleSection::Unspecified;
        cert::RuleResult& entry =
            report_
                .rules[rule_index(out.cls.findings.empty() ? "?" : out.cls.findings.front().rule, section)];
        record(work.key, out, entry.counts, &entry.repros);
      }
    }
  }

  void record(const std::string& key, const CaseOutcome& out, cert::Counts& counts,
              std::vector<std::string>* repros) {
    ++counts[static_cast<size_t>(out.report.outcome)];
    if (!out.failure) return;
    const Failure& f = *out.failure;
    if (repros) {
      if (!f.repro.empty()) repros->push_back(f.repro);
      if (!f.shrunk.empty()) repros->push_back(f.shrunk);
      if (!f.sequence.empty()) repros->push_back(f.sequence);
    }
    report_.failures.push_back({key, out.c.name, f.outcome, f.detail, f.repro, f.shrunk, f.sequence,
                                std::string(name(f.confirmation)), f.reproduce, f.seed});
  }

  const CertifyOptions& o_;
  Backend& under_test_;
  Engine& engine_;
  std::vector<Item> items_;
  cert::Report report_;
  std::map<std::string, size_t> cell_index_;  // cell key -> report_.cells
  ShapeGroups shapes_;
};

}  // namespace

std::optional<Budget> budget_named(const std::string& name) {
  // Calibrated on a two-core machine (docs/design.md, "Budgets"): quick about a minute, standard
  // about five, thorough about thirty.
  // smoke: a few seconds, for the tests of a CI pipeline, not a certification to publish.
  if (name == "smoke") return Budget{"smoke", 1, 8, 6, 25, 1.0, 10, 0.125, 0.25, 2};
  if (name == "quick") return Budget{"quick", 4, 150, 300, 25, 1.0, 10, 1.5, 2, 30};
  if (name == "standard") return Budget{"standard", 24, 1200, 1500, 40, 5.0, 50, 8, 8, 240};
  if (name == "thorough") return Budget{"thorough", 80, 4000, 5000, 60, 20.0, 200, 25, 25, 800};
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
  std::unique_ptr<Backend> under_test = open();
  if (!under_test) {
    *error = "cannot open the backend " + options.backend;
    return std::nullopt;
  }
  EngineOptions eo = options.engine;
  eo.shrink_seconds = options.budget.shrink_seconds;
  eo.max_shrinks = options.budget.max_shrinks;
  std::error_code ec;
  fs::create_directories(eo.repro_dir, ec);
  if (ec) {
    *error = "cannot create the repro directory " + eo.repro_dir + ": " + ec.message();
    return std::nullopt;
  }
  CertifyOptions o = options;
  std::erase_if(o.corpus, [&](const Case& c) { return c.level > o.level || !has_op(o.ops, op_kind(c.op)); });
  Engine engine(*under_test, oracle, open, eo);
  Certification run(o, *under_test, engine);
  return run.run();
}

}  // namespace dmlcert::engine

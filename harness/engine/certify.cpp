#include "certify.h"

#include <signal.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <limits>
#include <map>

#include "dmlcert/interrupt.h"
#include "generators.h"

namespace dmlcert::engine {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// One unit of work. The full list is the same for every shard; a shard takes every n-th item,
// and each item's seed depends only on its key, so merged shards equal the unsharded run.
struct Item {
  enum Kind { Corpus, Cell, Rule, Robustness } kind;
  size_t index;  // into corpus cases, report cells or report rules
  OpKind op;     // whose timeouts and limits it counts toward
  props::DataMode mode = props::DataMode::Exact;
  int rep = 0;
  std::string key;  // stable and unique: the seed and the repro file name come from it
};

uint64_t fnv1a(const std::string& s) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char ch : s) h = (h ^ ch) * 1099511628211ull;
  return h;
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
  // `under_test` and `engine` are null for a certification that could not start.
  Certification(const CertifyOptions& o, Backend* under_test, Engine* engine)
      : o_(o), under_test_(under_test), engine_(engine) {}

  cert::Report run() {
    plan();
    interleave();
    for (size_t i = 0; i < items_.size(); ++i) item_by_key_[items_[i].key] = i;
    std::vector<const Item*> mine;
    for (size_t i = 0; i < items_.size(); ++i)
      if (i % o_.shard.count == o_.shard.index) mine.push_back(&items_[i]);
    const auto start = Clock::now();
    auto elapsed = [&] { return std::chrono::duration<double>(Clock::now() - start).count(); };
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
    if (auto late = engine_->settle()) count_earlier(*late);
    if (report_.stopped.empty()) shut_down();
    report_.seconds = elapsed();
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
    if (o_.time_limit_seconds > 0 && elapsed >= o_.time_limit_seconds)
      return "stopped at the time limit of " + std::to_string(static_cast<int64_t>(o_.time_limit_seconds)) +
             " s (--time-limit) before every case had run";
    if (o_.max_timeouts > 0 && timeouts_ >= o_.max_timeouts)
      return "stopped after " + std::to_string(timeouts_) +
             " timeouts and limits (--max-timeouts): the backend hangs or runs away";
    return {};
  }

  // Why one item is not run: an earlier timeout (or memory or CPU limit: as costly) in its cell or
  // rule check, or several in its operator.
  std::string reason_to_skip(const Item& item) const {
    if (item.kind != Item::Corpus)
      if (const auto it = timed_out_.find({item.kind == Item::Cell, item.index}); it != timed_out_.end())
        return "not run after a " + std::string(name(it->second)) + " in this " +
               std::string(item.kind == Item::Cell ? "cell" : "rule check");
    const auto op = static_cast<size_t>(item.op);
    if (o_.timeouts_per_operator > 0 && timeouts_by_op_[op] >= o_.timeouts_per_operator)
      return "not run after " + std::to_string(timeouts_by_op_[op]) + " timeouts and limits in " +
             std::string(name(item.op));
    return {};
  }

  void not_run(const Item& item, const std::string& why) {
    switch (item.kind) {
      case Item::Corpus: report_.corpus_not_run.add(why); break;
      case Item::Cell: report_.cells[item.index].not_run.add(why); break;
      default: report_.rules[item.index].not_run.add(why); break;
    }
  }

  void plan() {
    report_.backend = o_.backend;
    report_.backend_name = under_test_ ? under_test_->name() : "";
    report_.level = o_.level;
    report_.backend_max_level = under_test_ ? under_test_->max_feature_level() : o_.level;
    report_.budget = o_.budget.name;
    report_.shards = {o_.shard};
    for (size_t i = 0; i < o_.corpus.size(); ++i)
      items_.push_back({Item::Corpus,
                        i,
                        op_kind(o_.corpus[i].op),
                        {},
                        0,
                        "corpus/" + std::to_string(i) + "-" + o_.corpus[i].name});
    for (const SupportCell& cell : support_cells(o_.level)) {
      if (!has_op(o_.ops, cell.op)) continue;
      const size_t index = report_.cells.size();
      report_.cells.push_back({cell, {}, {}, {}});
      for (auto mode : {props::DataMode::Exact, props::DataMode::Random})
        for (int rep = 0; rep < o_.budget.per_cell_mode; ++rep)
          items_.push_back({Item::Cell, index, cell.op, mode, rep,
                            "cells/" + cert::cell_key(cell) +
                                (mode == props::DataMode::Exact ? "/exact/" : "/random/") +
                                std::to_string(rep)});
    }
    auto add_rules = [&](const std::vector<std::string>& rules, cert::RuleSection section) {
      for (const std::string& rule : rules) {
        const size_t index = report_.rules.size();
        report_.rules.push_back({rule, section, {}, {}, {}});
        for (int rep = 0; rep < o_.budget.per_rule; ++rep)
          items_.push_back({Item::Rule,
                            index,
                            op_of_rule(rule),
                            {},
                            rep,
                            std::string(cert::name(section)) + "/" + rule + "/" + std::to_string(rep)});
      }
    };
    add_rules(props::invalid_rules(o_.level, o_.ops), cert::RuleSection::Invalid);
    add_rules(props::unspecified_rules(o_.level, o_.ops), cert::RuleSection::Unspecified);
    // Every operator that reads indices gets cases with index values at the extremes of their
    // type (its INDEX_RANGE rule, docs/semantics.md): the values no generator of valid cases makes.
    for (OpKind op : all_ops()) {
      const auto op_roles = roles(op);
      if (std::find(op_roles.begin(), op_roles.end(), Role::INDICES) == op_roles.end()) continue;
      if (!has_op(o_.ops, op) || o_.level < introduced_at(op)) continue;
      const std::string rule = std::string(info(op).rule_prefix) + ".INDEX_RANGE.extreme";
      const size_t index = report_.rules.size();
      report_.rules.push_back({rule, cert::RuleSection::Robustness, {}, {}, {}});
      for (int rep = 0; rep < o_.budget.per_robustness; ++rep)
        items_.push_back(
            {Item::Robustness, index, op, {}, rep, "robustness/" + rule + "/" + std::to_string(rep)});
    }
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
    std::stable_sort(generated, items_.end(),
                     [&](const Item& a, const Item& b) { return mixed(a) < mixed(b); });
  }

  std::optional<rc::Gen<Case>> generator(const Item& item) {
    switch (item.kind) {
      case Item::Cell: return props::valid_case_for_cell(report_.cells[item.index].cell, o_.level, item.mode);
      case Item::Rule: {
        const auto& rule = report_.rules[item.index];
        return rule.section == cert::RuleSection::Invalid
                   ? props::invalid_case(rule.rule, o_.level, o_.ops)
                   : props::unspecified_case(rule.rule, o_.level, o_.ops);
      }
      case Item::Robustness: {
        const std::string& key = report_.rules[item.index].rule;  // "<prefix>.INDEX_RANGE.extreme"
        const std::string rule = key.substr(0, key.rfind('.'));
        const auto op = std::find_if(all_ops().begin(), all_ops().end(), [&](OpKind k) {
          return rule == std::string(info(k).rule_prefix) + ".INDEX_RANGE";
        });
        const int rep = item.rep;
        return rc::gen::map(props::valid_case(o_.level, {*op}),
                            [rep, rule](Case c) { return with_extreme_index(std::move(c), rep, rule); });
      }
      case Item::Corpus: break;
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
      not_run(item, reason_to_stop(0));
      return;
    }
    if (!out.generated) {
      ++counts_of(item)[static_cast<size_t>(Outcome::Skipped)];
      for (const Failure& f : out.earlier) count_earlier(f);
      return;
    }
    ++counts_of(item)[static_cast<size_t>(out.report.outcome)];
    note_output(item, out.report.exec);
    if (out.report.outcome == Outcome::Timeout || out.report.outcome == Outcome::Limit) {
      ++timeouts_;
      ++timeouts_by_op_[static_cast<size_t>(item.op)];
      if (item.kind != Item::Corpus)
        timed_out_.emplace(std::pair{item.kind == Item::Cell, item.index}, out.report.outcome);
    }
    if (out.failure) record(item, *out.failure);
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
    if (!problem.empty())
      report_.failures.push_back({"robustness/BACKEND.DESTROY", "destroy", Outcome::Crash, problem, "", "",
                                  "", "unchecked", "", 0, "", 0});
    report_.rules.push_back(std::move(check));
  }

  // A late fault of an earlier case counts against that case, not the one that revealed it.
  void count_earlier(const Failure& f) {
    const auto it = item_by_key_.find(f.key);
    if (it == item_by_key_.end()) return;
    cert::Counts& counts = counts_of(items_[it->second]);
    if (counts[static_cast<size_t>(Outcome::Passed)] > 0) --counts[static_cast<size_t>(Outcome::Passed)];
    ++counts[static_cast<size_t>(f.outcome)];
    record(items_[it->second], f);
  }

  void record(const Item& item, const Failure& f) {
    if (auto* repros = repros_of(item)) {
      if (!f.repro.empty()) repros->push_back(f.repro);
      if (!f.shrunk.empty()) repros->push_back(f.shrunk);
      if (!f.sequence.empty()) repros->push_back(f.sequence);
    }
    report_.failures.push_back({item.key, f.case_name, f.outcome, f.detail, f.repro, f.shrunk, f.sequence,
                                std::string(name(f.confirmation)), f.reproduce, f.seed, f.backend_output,
                                f.backend_output_dropped});
  }

  // What the backend printed goes to the report, never to dmlcert's own output.
  void note_output(const Item& item, const ExecResult& exec) {
    if (exec.output_text.empty() && exec.output_dropped == 0) return;
    cert::BackendOutput& o = report_.backend_output;
    ++o.calls;
    o.bytes += exec.output_text.size() + exec.output_dropped;
    if (o.samples.size() < cert::BackendOutput::kSamples)
      o.samples.push_back({item.key, exec.output_text, exec.output_dropped});
  }

  const CertifyOptions& o_;
  Backend* under_test_;
  Engine* engine_;
  std::vector<Item> items_;
  std::map<std::string, size_t> item_by_key_;
  cert::Report report_;
  int timeouts_ = 0;
  std::array<int, kOpCount> timeouts_by_op_{};
  // (is a cell, index) of cells and rule checks with a timeout or a limit, and which.
  std::map<std::pair<bool, size_t>, Outcome> timed_out_;
};

}  // namespace

std::optional<Budget> budget_named(const std::string& name) {
  if (name == "quick") return Budget{"quick", 1, 4, 4, 25, 1.0, 10};
  if (name == "standard") return Budget{"standard", 4, 20, 16, 40, 5.0, 50};
  if (name == "thorough") return Budget{"thorough", 16, 100, 64, 60, 20.0, 200};
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
  if (!under_test)
    return stopped_report(options, "", "the backend " + options.backend + " could not be opened");
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
  Certification run(o, under_test.get(), &engine);
  return run.run();
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

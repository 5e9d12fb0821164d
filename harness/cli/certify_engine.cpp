#include "certify_engine.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <limits>

#include "cli_common.h"
#include "generators.h"
#include "plugin/isolated_backend.h"

namespace dmlcert::cli {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// One unit of work. The full list is the same for every shard; a shard takes every n-th item,
// and each item's seed depends only on its key, so merged shards equal the unsharded run.
struct Item {
  enum Kind { Corpus, Cell, Rule, Robustness } kind;
  size_t index;  // into corpus cases, report cells or report rules
  props::DataMode mode = props::DataMode::Exact;
  int rep = 0;
  std::string key;  // stable and unique: the seed and the repro file name come from it
};

uint64_t fnv1a(const std::string& s) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char ch : s) h = (h ^ ch) * 1099511628211ull;
  return h;
}

std::string file_safe(const std::string& key) {
  std::string out;
  for (char ch : key)
    out += (std::isalnum(static_cast<unsigned char>(ch)) || ch == '.' || ch == '-') ? ch : '_';
  return out;
}

bool has_op(const std::vector<OpKind>& ops, OpKind op) {
  return ops.empty() || std::find(ops.begin(), ops.end(), op) != ops.end();
}

// Replaces one index element with a value far outside every dimension (type maximum, minimum,
// or 2^31): the case becomes class U (*.INDEX_RANGE) and must neither crash nor touch memory
// outside the buffers.
Case with_extreme_index(Case c, int rep, const char* rule) {
  TensorDesc* indices = tensor(c.op, Role::INDICES);
  Bytes& data = c.data.indices;
  if (!indices || data.empty()) return c;
  size_t esize = element_size(indices->type);
  size_t count = data.size() / esize;
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

// Bindings are capped at 16 MiB: generated valid cases stay far below it, and an invalid case
// that declares a huge TotalTensorSizeInBytes must be rejected without touching its buffers, so
// copying gigabytes into the isolation child per case would only slow the run.
RunOptions run_options() {
  RunOptions options;
  options.max_buffer_bytes = uint64_t{16} << 20;
  return options;
}

class Certification {
 public:
  Certification(const CertifyOptions& o, Backend& under_test, Backend& reference)
      : o_(o), under_test_(under_test), runner_(under_test, reference, run_options()) {}

  cert::Report run(std::vector<Case> corpus) {
    corpus_ = std::move(corpus);
    plan();
    interleave();
    std::vector<const Item*> mine;
    for (size_t i = 0; i < items_.size(); ++i)
      if (i % o_.shard.count == o_.shard.index) mine.push_back(&items_[i]);
    start_ = last_progress_ = Clock::now();
    for (size_t i = 0; i < mine.size(); ++i) {
      execute(*mine[i]);
      progress(i + 1, mine.size(), false);
      if (stop_requested()) break;
    }
    progress(mine.size(), mine.size(), true);
    report_.seconds = std::chrono::duration<double>(Clock::now() - start_).count();
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
    for (size_t i = 0; i < corpus_.size(); ++i)
      items_.push_back({Item::Corpus, i, {}, 0, "corpus/" + std::to_string(i) + "-" + corpus_[i].name});
    for (const SupportCell& cell : support_cells(o_.level)) {
      if (!has_op(o_.ops, cell.op)) continue;
      size_t index = report_.cells.size();
      report_.cells.push_back({cell, {}, {}});
      for (auto mode : {props::DataMode::Exact, props::DataMode::Random})
        for (int rep = 0; rep < o_.budget.per_cell_mode; ++rep)
          items_.push_back({Item::Cell, index, mode, rep,
                            "cells/" + cert::cell_key(cell) +
                                (mode == props::DataMode::Exact ? "/exact/" : "/random/") +
                                std::to_string(rep)});
    }
    auto add_rules = [&](const std::vector<std::string>& rules, cert::RuleSection section) {
      for (const std::string& rule : rules) {
        size_t index = report_.rules.size();
        report_.rules.push_back({rule, section, {}, {}});
        for (int rep = 0; rep < o_.budget.per_rule; ++rep)
          items_.push_back({Item::Rule,
                            index,
                            {},
                            rep,
                            std::string(cert::name(section)) + "/" + rule + "/" + std::to_string(rep)});
      }
    };
    add_rules(props::invalid_rules(o_.level, o_.ops), cert::RuleSection::Invalid);
    add_rules(props::unspecified_rules(o_.level, o_.ops), cert::RuleSection::Unspecified);
    for (OpKind op : {OpKind::GATHER_ELEMENTS, OpKind::SCATTER_ND}) {
      if (!has_op(o_.ops, op) || o_.level < introduced_at(op)) continue;
      std::string rule = op == OpKind::GATHER_ELEMENTS ? "GATHERELEMENTS.INDEX_RANGE.extreme"
                                                       : "SCATTERND.INDEX_RANGE.extreme";
      size_t index = report_.rules.size();
      report_.rules.push_back({rule, cert::RuleSection::Robustness, {}, {}});
      for (int rep = 0; rep < o_.budget.per_robustness; ++rep)
        items_.push_back(
            {Item::Robustness, index, {}, rep, "robustness/" + rule + "/" + std::to_string(rep)});
    }
  }

  // Runs the generated items in a deterministic shuffle (ordered by a hash of their keys), after
  // the corpus: a run that stops at its first failures (--stop-after-failures) has by then touched
  // every operator, function, type and rule evenly instead of finishing SLICE before REDUCE. Keys
  // and seeds do not change, and every shard still takes every n-th item of the same list.
  void interleave() {
    auto mixed = [](const Item& i) {
      uint64_t z = fnv1a(i.key) + 0x9E3779B97F4A7C15ull;  // splitmix64 finalizer: spreads similar keys
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
        bool gather = report_.rules[item.index].rule.starts_with("GATHER");
        OpKind op = gather ? OpKind::GATHER_ELEMENTS : OpKind::SCATTER_ND;
        const char* rule = gather ? "GATHERELEMENTS.INDEX_RANGE" : "SCATTERND.INDEX_RANGE";
        int rep = item.rep;
        return rc::gen::map(props::valid_case(o_.level, {op}),
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

  // The case file goes to disk before the backend sees the case: a crash cannot lose it.
  bool save(const std::string& path, const Case& c) {
    std::string error;
    fs::create_directories(fs::path(path).parent_path());
    if (write_case_file(path, c, &error)) return true;
    std::cerr << "dmlcert certify: cannot write " << path << ": " << error << "\n";
    return false;
  }

  void execute(const Item& item) {
    const uint64_t seed = fnv1a(item.key) ^ o_.seed;
    std::optional<rc::Shrinkable<Case>> shrinkable;
    Case c;
    if (item.kind == Item::Corpus) {
      c = corpus_[item.index];
    } else {
      try {
        auto gen = generator(item);
        if (!gen) {  // the rule cannot be broken at this level for these operators
          ++counts_of(item)[static_cast<size_t>(Outcome::Skipped)];
          return;
        }
        shrinkable = props::sample(*gen, seed, o_.budget.size);
        c = shrinkable->value();
      } catch (const std::exception& e) {
        ++counts_of(item)[static_cast<size_t>(Outcome::Skipped)];
        std::cerr << "dmlcert certify: cannot generate " << item.key << ": " << e.what() << "\n";
        return;
      }
      c.name = item.key;
      c.origin = "certify seed=" + std::to_string(seed) + " size=" + std::to_string(o_.budget.size);
    }
    const std::string path = (fs::path(o_.repro_dir) / (file_safe(item.key) + ".json")).string();
    save(path, c);
    CaseReport r = run_case(runner_, c);
    ++counts_of(item)[static_cast<size_t>(r.outcome)];
    if (!fails_run(r.outcome)) {
      std::error_code ec;
      fs::remove(path, ec);
      return;
    }
    cert::Failure f{item.key, c.name, r.outcome, r.detail, path, "", seed};
    // A shrink step that still hangs costs a whole --timeout, so only the first hang of a run is
    // shrunk, with room for a handful of such steps; other failures shrink within the budget.
    const bool hang = r.outcome == Outcome::Timeout;
    if (shrinkable && shrinks_ < o_.budget.max_shrinks && !(hang && hang_shrinks_ > 0)) {
      ++shrinks_;
      if (hang) ++hang_shrinks_;
      const std::string trial = (fs::path(o_.repro_dir) / (file_safe(item.key) + ".shrinking.json")).string();
      const Outcome want = r.outcome;
      Case smallest = props::shrink_failure(
          *shrinkable,
          [&](const Case& candidate) {
            Case named = candidate;
            named.name = c.name + "/shrunk";
            save(trial, named);
            return run_case(runner_, named).outcome == want;
          },
          hang ? std::max(o_.budget.shrink_seconds, 6 * o_.timeout_seconds) : o_.budget.shrink_seconds);
      std::error_code ec;
      fs::remove(trial, ec);
      if (!(smallest.op == c.op && smallest.data.input == c.data.input)) {
        smallest.name = c.name + "/shrunk";
        smallest.origin = c.origin + " shrunk";
        f.shrunk = (fs::path(o_.repro_dir) / (file_safe(item.key) + ".min.json")).string();
        if (!save(f.shrunk, smallest)) f.shrunk.clear();
      }
    }
    if (auto* repros = repros_of(item)) {
      repros->push_back(path);
      if (!f.shrunk.empty()) repros->push_back(f.shrunk);
    }
    ++failures_;
    std::cerr << (isatty(2) ? "\r\033[K" : "") << "FAILED " << item.key << ": " << name(r.outcome) << ": "
              << r.detail << "\n  case file: " << path << (f.shrunk.empty() ? "" : "\n  shrunk: " + f.shrunk)
              << "\n  reproduce: " << reproduce_command(f.shrunk.empty() ? path : f.shrunk, o_.backend, "")
              << "\n";
    report_.failures.push_back(std::move(f));
  }

  // --stop-after-failures: enough failures seen to stop the run.
  bool stop_requested() const {
    return o_.stop_after_failures > 0 && failures_ >= static_cast<size_t>(o_.stop_after_failures);
  }

  void progress(size_t done, size_t total, bool last) {
    auto now = Clock::now();
    const bool tty = isatty(2);
    auto every = tty ? std::chrono::milliseconds(500) : std::chrono::milliseconds(15000);
    if (!last && now - last_progress_ < every) return;
    last_progress_ = now;
    double elapsed = std::chrono::duration<double>(now - start_).count();
    double rate = elapsed > 0 ? done / elapsed : 0;
    double left = rate > 0 ? (total - done) / rate : 0;
    char line[160];
    std::snprintf(line, sizeof line, "certify: %zu/%zu cases, %.0f/s, %zu failing, %.0f s left", done, total,
                  rate, failures_, left);
    if (tty)
      std::cerr << "\r\033[K" << line << (last ? "\n" : "") << std::flush;
    else if (!last)
      std::cerr << line << "\n";
  }

  const CertifyOptions& o_;
  Backend& under_test_;
  Runner runner_;
  std::vector<Case> corpus_;
  std::vector<Item> items_;
  cert::Report report_;
  size_t failures_ = 0;
  int shrinks_ = 0;
  int hang_shrinks_ = 0;
  Clock::time_point start_, last_progress_;
};

}  // namespace

std::optional<Budget> budget_named(const std::string& name) {
  if (name == "quick") return Budget{"quick", 1, 4, 4, 25, 1.0, 10};
  if (name == "standard") return Budget{"standard", 4, 20, 16, 40, 5.0, 50};
  if (name == "thorough") return Budget{"thorough", 16, 100, 64, 60, 20.0, 200};
  return std::nullopt;
}

std::string find_corpus() {
  std::vector<fs::path> candidates;
  if (const char* env = std::getenv("DMLCERT_CORPUS")) candidates.emplace_back(env);
  std::error_code ec;
  fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) candidates.push_back(self.parent_path().parent_path() / "share" / "dmlcert" / "corpora");
#ifdef DMLCERT_SOURCE_CORPUS_DIR
  candidates.emplace_back(DMLCERT_SOURCE_CORPUS_DIR);
#endif
  for (const auto& c : candidates)
    if (fs::is_directory(c, ec)) return c.string();
  return {};
}

std::optional<cert::Report> run_certification(const CertifyOptions& o, std::string* error) {
  plugin::IsolationOptions isolation;
  isolation.timeout_seconds = o.timeout_seconds;
  // Built-ins and plugins alike run in the isolation child, behind guard pages.
  std::unique_ptr<Backend> under_test = plugin::make_isolated_backend(o.backend, isolation, error);
  if (!under_test) return std::nullopt;
  std::unique_ptr<Backend> reference = make_backend("reference", error);
  if (!reference) return std::nullopt;
  std::error_code ec;
  fs::create_directories(o.repro_dir, ec);
  if (ec) {
    *error = "cannot create the repro directory " + o.repro_dir + ": " + ec.message();
    return std::nullopt;
  }

  std::vector<Case> corpus;
  std::string corpus_dir = o.corpus.empty() ? find_corpus() : o.corpus;
  if (corpus_dir.empty()) {
    std::cerr
        << "dmlcert certify: no corpus found (set --corpus or DMLCERT_CORPUS); skipping the corpus replay\n";
  } else {
    LoadedCases loaded = load_cases({corpus_dir});
    for (const CaseError& e : loaded.errors)
      std::cerr << "dmlcert certify: corpus: " << e.to_string() << "\n";
    for (Case& c : loaded.cases)
      if (c.level <= o.level && has_op(o.ops, op_kind(c.op))) corpus.push_back(std::move(c));
  }
  Certification run(o, *under_test, *reference);
  return run.run(std::move(corpus));
}

}  // namespace dmlcert::cli

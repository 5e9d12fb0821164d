// The machine-readable certification report: complete (every count, every failure, the verdict)
// and read back by `dmlcert merge`.
#include <nlohmann/json.hpp>

#include "report.h"
#include "report_code_coverage.h"
#include "report_matrix.h"
#include "report_summary.h"

namespace dmlcert::cert {
namespace {

using json = nlohmann::ordered_json;

json counts_json(const Counts& c) {
  json j = json::object();
  for (int i = 0; i < kOutcomeCount; ++i)
    j[std::string(name(static_cast<Outcome>(i)))] = c[static_cast<size_t>(i)];
  return j;
}

Counts counts_from(const json& j) {
  Counts c{};
  for (int i = 0; i < kOutcomeCount; ++i)
    c[static_cast<size_t>(i)] = j.value(std::string(name(static_cast<Outcome>(i))), uint64_t{0});
  return c;
}

void put_not_run(json& j, const NotRun& n) {
  if (n.count) j["not_run"] = {{"count", n.count}, {"reason", n.reason}};
}
NotRun not_run_from(const json& j) {
  NotRun n;
  if (j.contains("not_run")) {
    n.count = j["not_run"].at("count").get<uint64_t>();
    n.reason = j["not_run"].at("reason").get<std::string>();
  }
  return n;
}

template <class T, class F>
T parse_enum(const std::string& s, F parse, const char* what) {
  auto v = parse(s);
  if (!v) throw std::runtime_error(std::string("unknown ") + what + " '" + s + "'");
  return *v;
}

std::optional<RuleSection> parse_section(std::string_view s) {
  for (RuleSection r : {RuleSection::Invalid, RuleSection::Unspecified, RuleSection::Robustness})
    if (name(r) == s) return r;
  return std::nullopt;
}

CheckId check_id(const std::string& text) {
  auto id = CheckId::parse(text);
  if (!id) throw std::runtime_error("'" + text + "' does not name a check");
  return *id;
}

json share_json(const Share& s) {
  return {{"reached", s.reached}, {"total", s.total}};
}

// The edges and what reached them, as ranges ("reached", per operator and while loading), with
// the functions: enough to merge shards and to summarize again; and the summary itself, for
// people and dashboards.
json code_coverage_json(const Report& r) {
  if (!r.code_coverage) return nullptr;
  const CodeCoverage& c = *r.code_coverage;
  if (!c.instrumented) return {{"instrumented", false}, {"why_not", c.why_not}};
  json j = {{"instrumented", true}};
  if (!c.partial.empty()) j["partial"] = c.partial;
  j["modules"] = json::array();
  for (const CodeCoverage::Module& m : c.modules)
    j["modules"].push_back({{"path", m.path}, {"first_edge", m.first_edge}, {"edges", m.edge_count}});
  const CodeCoverageSummary s = summarize_code(r);
  j["edges"] = share_json(s.edges);
  j["functions"] = share_json(s.functions);
  j["operators"] = json::array();
  for (const auto& o : s.operators)
    j["operators"].push_back({{"op", std::string(name(o.op))},
                              {"edges", share_json(o.edges)},
                              {"functions", share_json(o.functions)}});
  j["files"] = json::array();
  for (const auto& f : s.files)
    j["files"].push_back(
        {{"file", f.file}, {"edges", share_json(f.edges)}, {"functions", share_json(f.functions)}});
  j["never_reached"] = json::array();
  for (const CodeFunction* f : s.never_reached)
    j["never_reached"].push_back({{"function", f->name}, {"file", f->file}, {"line", f->line}});
  j["reached"] = {{"loading", ranges_text(c.reached_loading)}};
  // Only the operators whose calls reached something: a report names no operator the run did not
  // check (docs/design.md, "Scope").
  for (OpKind op : all_ops())
    if (const std::string ranges = ranges_text(c.reached[static_cast<size_t>(op)]); !ranges.empty())
      j["reached"][std::string(name(op))] = ranges;
  j["function_table"] = json::array();
  for (const CodeFunction& f : r.code_functions)
    j["function_table"].push_back({{"name", f.name},
                                   {"file", f.file},
                                   {"line", f.line},
                                   {"first_edge", f.first_edge},
                                   {"edges", f.edge_count}});
  // Where each edge is: what a tracefile's lines are made of, after a merge too.
  j["source_files"] = r.code_files;
  j["edge_sources"] = sources_text(r);
  return j;
}

// A whole number within [0, max] that the report gives for `what`; a float, a negative or a larger
// number is refused (a conversion from 1e300 would be undefined).
uint64_t bounded(const json& v, uint64_t max, const std::string& what) {
  if (!v.is_number_unsigned() || v.get<uint64_t>() > max)
    throw std::runtime_error("code_coverage." + what + " is not a whole number from 0 to " +
                             std::to_string(max));
  return v.get<uint64_t>();
}

std::optional<CodeCoverage> code_coverage_from(const json& j, std::vector<CodeFunction>& functions,
                                               std::vector<std::string>& files,
                                               std::vector<Report::EdgeSource>& sources) {
  if (j.is_null()) return std::nullopt;
  CodeCoverage c;
  c.instrumented = j.at("instrumented").get<bool>();
  if (!c.instrumented) {
    c.why_not = j.value("why_not", "");
    return c;
  }
  c.partial = j.value("partial", "");
  // As many edges as the isolation child maps at most (edge_counters.cpp).
  const uint64_t total = bounded(j.at("edges").at("total"), uint64_t{4} << 20, "edges.total");
  for (const json& m : j.at("modules"))
    c.modules.push_back({m.at("path").get<std::string>(),
                         static_cast<uint32_t>(bounded(m.at("first_edge"), total, "modules.first_edge")),
                         static_cast<uint32_t>(bounded(m.at("edges"), total, "modules.edges"))});
  c.edges.resize(total);
  // Functions in edge order, disjoint, each at least one edge, within the edges.
  uint64_t next = 0;
  for (const json& f : j.at("function_table")) {
    CodeFunction fn{f.at("name").get<std::string>(), f.at("file").get<std::string>(),
                    static_cast<uint32_t>(bounded(f.at("line"), UINT32_MAX, "function_table.line")),
                    static_cast<uint32_t>(bounded(f.at("first_edge"), total, "function_table.first_edge")),
                    static_cast<uint32_t>(bounded(f.at("edges"), total, "function_table.edges"))};
    if (fn.first_edge < next || fn.edge_count == 0 || uint64_t{fn.first_edge} + fn.edge_count > total)
      throw std::runtime_error(
          "code_coverage.function_table: functions must cover disjoint, ascending edge ranges");
    next = uint64_t{fn.first_edge} + fn.edge_count;
    c.edges[fn.first_edge].function_entry = true;
    functions.push_back(std::move(fn));
  }
  files = j.value("source_files", std::vector<std::string>{});
  if (!parse_sources(j.value("edge_sources", ""), files.size(), total, sources))
    throw std::runtime_error("code_coverage.edge_sources is not a list of the edges' files and lines");
  auto read = [&](const std::string& key, std::vector<uint8_t>& flags) {
    flags.assign(c.edges.size(), 0);
    if (!parse_ranges(j.at("reached").value(key, ""), flags))
      throw std::runtime_error("code_coverage.reached." + key + " is not a list of edge ranges");
  };
  read("loading", c.reached_loading);
  for (OpKind op : all_ops()) read(std::string(name(op)), c.reached[static_cast<size_t>(op)]);
  return c;
}

}  // namespace

std::string to_json(const Report& r) {
  json j;
  j["format"] = r.format;
  j["tool"] = "dmlcert certify";
  j["backend"] = r.backend;
  j["backend_name"] = r.backend_name;
  j["level"] = std::string(name(r.level));
  j["backend_max_level"] = std::string(name(r.backend_max_level));
  j["budget"] = r.budget;
  j["fp16_accumulation"] = r.accumulation == AccumulationProfile::Relaxed ? "float16" : "float32";
  j["shards"] = json::array();
  for (const Shard& s : r.shards) j["shards"].push_back({{"index", s.index}, {"count", s.count}});
  j["seconds"] = r.seconds;
  j["started"] = r.started;
  j["dmlcert_version"] = r.dmlcert_version;
  j["seed"] = r.seed;
  j["verdict"] = verdict(r);
  // The failures one bug at a time (report_summary.h), before everything else a reader looks at:
  // derived from `failures`, so not read back; a merged report lists the causes of all its shards.
  j["causes"] = json::array();
  for (const FailureGroup& g : group_failures(r)) {
    json levels = json::array();
    for (FeatureLevel l : g.levels) levels.push_back(std::string(name(l)));
    j["causes"].push_back({{"cause", g.cause.name()},
                           {"where", g.cause.where},
                           {"family", g.cause.family},
                           {"outcome", std::string(name(g.outcome))},
                           {"known", g.known},
                           {"failures", g.failures.size()},
                           {"checks", g.checks},
                           {"levels", levels},
                           {"detail", g.detail},
                           {"example", g.example->id.to_string()},
                           {"case", minimal_case(*g.example)},
                           {"reproduce", g.example->reproduce}});
  }
  j["scope"] = {{"summary", scope_text(r)},
                {"outside", outside_text(r)},
                {"asked", json::array()},
                {"claims", json::array()},
                {"index_claims", json::array()}};
  for (const Scope::IndexClaim& c : r.scope.index_claims)
    j["scope"]["index_claims"].push_back(
        {{"op", std::string(name(c.op))}, {"type", std::string(name(c.type))}, {"claimed", c.claimed}});
  for (OpKind k : r.scope.asked) j["scope"]["asked"].push_back(std::string(name(k)));
  j["scope"]["checked"] = nullptr;
  if (r.scope.checked) {
    j["scope"]["checked"] = json::array();
    for (OpKind k : *r.scope.checked) j["scope"]["checked"].push_back(std::string(name(k)));
  }
  for (const Scope::Claim& c : r.scope.claims)
    j["scope"]["claims"].push_back({{"op", std::string(name(c.op))},
                                    {"function", c.function ? json(name(*c.function)) : json(nullptr)},
                                    {"type", std::string(name(c.type))},
                                    {"claimed", c.claimed}});
  j["stopped"] = r.stopped.empty() ? json(nullptr) : json(r.stopped);
  j["containment"] = r.containment.empty() ? json(nullptr) : json(r.containment);
  j["time_limit"] = {{"seconds", r.time_limit_seconds},
                     {"from", r.time_limit_seconds <= 0 ? "none"
                              : r.time_limit_is_budgets ? "the budget"
                                                        : "--time-limit"}};
  j["backend_time"] = {{"calls", r.backend_time.calls},
                       {"seconds", r.backend_time.seconds},
                       {"slowest", r.backend_time.slowest},
                       {"slow", slow(r)}};
  j["repro_error"] = r.repro_error.empty() ? json(nullptr) : json(r.repro_error);
  j["code_coverage"] = code_coverage_json(r);
  j["complete"] = complete(r);
  j["certified"] = certified(r);
  j["flaky_fails"] = r.flaky_fails;
  // What passed when run again alone, by name: also among "failures", with outcome "flaky".
  j["flaky"] = json::array();
  for (const Failure* f : flaky_failures(r))
    j["flaky"].push_back(
        {{"where", f->counts_at.to_string()}, {"case", f->case_name}, {"detail", f->detail}});
  j["totals"] = counts_json(totals(r));
  json missing = json::array();
  for (const CellResult* c : missing_cells(r))
    missing.push_back({{"cell", cell_key(c->cell)}, {"status", status_word(c->counts, c->not_run.count)}});
  j["missing_cells"] = missing;
  j["cells"] = json::array();
  for (const CellResult& c : r.cells) {
    json cell = {{"key", cell_key(c.cell)},
                 {"op", std::string(name(c.cell.op))},
                 {"function", c.cell.function ? json(name(*c.cell.function)) : json(nullptr)},
                 {"role", std::string(name(c.cell.role))},
                 {"type", std::string(name(c.cell.type))},
                 {"rank", c.cell.rank},
                 {"status", status_word(c.counts, c.not_run.count)},
                 {"counts", counts_json(c.counts)},
                 {"seconds", c.seconds},
                 {"repros", c.repros}};
    put_not_run(cell, c.not_run);
    j["cells"].push_back(cell);
  }
  j["rules"] = json::array();
  for (const RuleResult& rule : r.rules) {
    json x = {{"rule", rule.rule},
              {"section", std::string(name(rule.section))},
              {"status", status_word(rule.counts, rule.not_run.count)},
              {"counts", counts_json(rule.counts)},
              {"seconds", rule.seconds},
              {"repros", rule.repros}};
    put_not_run(x, rule.not_run);
    j["rules"].push_back(x);
  }
  j["corpus"] = {{"status", status_word(r.corpus, r.corpus_not_run.count)},
                 {"counts", counts_json(r.corpus)},
                 {"cases", json::array()}};
  for (const CorpusCaseResult& c : r.corpus_cases)
    j["corpus"]["cases"].push_back({{"name", c.name},
                                    {"status", status_word(c.counts, 0)},
                                    {"counts", counts_json(c.counts)},
                                    {"seconds", c.seconds}});
  put_not_run(j["corpus"], r.corpus_not_run);
  j["behaviour_profile"] = json::array();
  for (const BehaviourCounts& b : r.profile)
    j["behaviour_profile"].push_back({{"rule", b.rule},
                                      {"cases", b.cases},
                                      {"behaviours", b.by_behaviour},
                                      {"same_every_time", b.consistent()}});
  if (r.expectations) {
    const ExpectationCheck& e = *r.expectations;
    json entries = json::array();
    for (const auto& entry : e.entries)
      entries.push_back({{"pattern", entry.pattern},
                         {"cause", entry.cause},
                         {"status", entry.status},
                         {"reason", entry.reason},
                         {"expires", entry.expires.empty() ? json(nullptr) : json(entry.expires)},
                         {"expired", entry.expired},
                         {"matched", entry.matched},
                         {"not_run", entry.not_run},
                         {"unexpected_pass", entry.matched.empty() && !entry.not_run}});
    j["expectations"] = {{"file", e.file},
                         {"holds", e.holds()},
                         {"unexpected_passes_fail", e.unexpected_passes_fail},
                         {"known_failures", e.known},
                         {"new_failures", e.unexpected},
                         {"entries", entries}};
  }
  j["exit_status"] = exit_status(r);
  j["backend_output"] = {
      {"calls", r.backend_output.calls}, {"bytes", r.backend_output.bytes}, {"samples", json::array()}};
  for (const auto& sample : r.backend_output.samples)
    j["backend_output"]["samples"].push_back(
        {{"where", sample.where}, {"text", sample.text}, {"dropped_bytes", sample.dropped}});
  const CellSpread spread = cases_per_cell(r);
  j["cases_per_cell"] = {{"min", spread.min}, {"median", spread.median}, {"max", spread.max}};
  for (const auto& [key, field] : engine::kShapeRecurrenceFields)
    j["shape_groups"][key] = r.recurrence.*field;
  j["failures"] = json::array();
  for (const Failure& f : r.failures)
    j["failures"].push_back(
        {{"where", f.id.to_string()},
         {"key", f.counts_at.to_string()},  // what it counts against, as --expect names it
         {"case", f.case_name},
         {"operator", f.op},
         {"outcome", std::string(name(f.outcome))},
         {"detail", f.detail},
         {"repro", f.repro},
         {"shrunk", f.shrunk},
         {"sequence", f.sequence},
         {"confirmation", name(f.confirmation)},
         {"reproduce", f.reproduce},
         {"seed", f.seed},
         {"backend_output", f.backend_output},
         {"backend_output_dropped_bytes", f.backend_output_dropped}});
  // What a backend printed may not be UTF-8: replaced, never a reason to lose the report.
  return j.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

std::optional<Report> report_from_json(const std::string& text, std::string* error) {
  try {
    json j = json::parse(text);
    Report r;
    r.format = j.at("format").get<int>();
    if (r.format != 1) throw std::runtime_error("unsupported report format " + std::to_string(r.format));
    r.backend = j.at("backend").get<std::string>();
    r.backend_name = j.value("backend_name", std::string());
    r.level = parse_enum<FeatureLevel>(j.at("level").get<std::string>(), parse_feature_level, "level");
    r.backend_max_level =
        parse_enum<FeatureLevel>(j.at("backend_max_level").get<std::string>(), parse_feature_level, "level");
    r.budget = j.at("budget").get<std::string>();
    r.accumulation = j.value("fp16_accumulation", std::string("float32")) == "float16"
                         ? AccumulationProfile::Relaxed
                         : AccumulationProfile::Default;
    for (const json& s : j.at("shards"))
      r.shards.push_back({s.at("index").get<uint32_t>(), s.at("count").get<uint32_t>()});
    r.seconds = j.value("seconds", 0.0);
    if (j.contains("stopped") && j["stopped"].is_string()) r.stopped = j["stopped"].get<std::string>();
    if (j.contains("containment") && j["containment"].is_string())
      r.containment = j["containment"].get<std::string>();
    if (j.contains("time_limit") && j["time_limit"].is_object()) {
      r.time_limit_seconds = j["time_limit"].value("seconds", 0.0);
      r.time_limit_is_budgets = j["time_limit"].value("from", "") == "the budget";
    }
    if (j.contains("repro_error") && j["repro_error"].is_string())
      r.repro_error = j["repro_error"].get<std::string>();
    r.flaky_fails = j.value("flaky_fails", false);
    if (j.contains("code_coverage"))
      r.code_coverage =
          code_coverage_from(j["code_coverage"], r.code_functions, r.code_files, r.edge_sources);
    if (j.contains("backend_time") && j["backend_time"].is_object()) {
      const json& t = j["backend_time"];
      r.backend_time = {t.value("calls", uint64_t{0}), t.value("seconds", 0.0), t.value("slowest", 0.0)};
    }
    r.started = j.value("started", "");
    r.dmlcert_version = j.value("dmlcert_version", "");
    r.seed = j.value("seed", uint64_t{0});
    if (j.contains("scope")) {
      for (const json& k : j["scope"].value("asked", json::array()))
        r.scope.asked.push_back(parse_enum<OpKind>(k.get<std::string>(), parse_op, "operator"));
      for (const json& c : j["scope"].value("claims", json::array())) {
        Scope::Claim claim{parse_enum<OpKind>(c.at("op").get<std::string>(), parse_op, "operator"),
                           std::nullopt,
                           parse_enum<DataType>(c.at("type").get<std::string>(), parse_data_type, "type"),
                           c.at("claimed").get<bool>()};
        if (!c.at("function").is_null())
          claim.function = parse_enum<ReduceFunction>(c.at("function").get<std::string>(),
                                                      parse_reduce_function, "function");
        r.scope.claims.push_back(claim);
      }
      if (const json checked = j["scope"].value("checked", json()); checked.is_array()) {
        r.scope.checked.emplace();
        for (const json& k : checked)
          r.scope.checked->push_back(parse_enum<OpKind>(k.get<std::string>(), parse_op, "operator"));
      }
      for (const json& c : j["scope"].value("index_claims", json::array()))
        r.scope.index_claims.push_back(
            {parse_enum<OpKind>(c.at("op").get<std::string>(), parse_op, "operator"),
             parse_enum<DataType>(c.at("type").get<std::string>(), parse_data_type, "type"),
             c.at("claimed").get<bool>()});
    }
    for (const json& b : j.value("behaviour_profile", json::array()))
      r.profile.push_back({b.at("rule").get<std::string>(), b.value("cases", uint64_t{0}),
                           b.at("behaviours").get<std::map<std::string, uint64_t>>()});
    for (const json& c : j.at("cells")) {
      CellResult cell;
      cell.cell.op = parse_enum<OpKind>(c.at("op").get<std::string>(), parse_op, "operator");
      if (!c.at("function").is_null())
        cell.cell.function = parse_enum<ReduceFunction>(c.at("function").get<std::string>(),
                                                        parse_reduce_function, "function");
      cell.cell.role = parse_enum<Role>(c.at("role").get<std::string>(), parse_role, "role");
      cell.cell.type = parse_enum<DataType>(c.at("type").get<std::string>(), parse_data_type, "type");
      cell.cell.rank = c.at("rank").get<uint32_t>();
      cell.counts = counts_from(c.at("counts"));
      cell.repros = c.at("repros").get<std::vector<std::string>>();
      cell.not_run = not_run_from(c);
      cell.seconds = c.value("seconds", 0.0);
      r.cells.push_back(std::move(cell));
    }
    for (const json& x : j.at("rules")) {
      RuleResult rule;
      rule.rule = x.at("rule").get<std::string>();
      rule.section = parse_enum<RuleSection>(x.at("section").get<std::string>(), parse_section, "section");
      rule.counts = counts_from(x.at("counts"));
      rule.repros = x.at("repros").get<std::vector<std::string>>();
      rule.not_run = not_run_from(x);
      rule.seconds = x.value("seconds", 0.0);
      r.rules.push_back(std::move(rule));
    }
    r.corpus = counts_from(j.at("corpus").at("counts"));
    r.corpus_not_run = not_run_from(j.at("corpus"));
    for (const json& c : j.at("corpus").value("cases", json::array()))
      r.corpus_cases.push_back(
          {c.at("name").get<std::string>(), counts_from(c.at("counts")), c.value("seconds", 0.0)});
    if (j.contains("backend_output")) {
      const json& o = j["backend_output"];
      r.backend_output.calls = o.value("calls", uint64_t{0});
      r.backend_output.bytes = o.value("bytes", uint64_t{0});
      for (const json& sample : o.value("samples", json::array()))
        r.backend_output.samples.push_back({sample.value("where", ""), sample.value("text", ""),
                                            sample.value("dropped_bytes", uint64_t{0})});
    }
    if (j.contains("shape_groups"))
      for (const auto& [key, field] : engine::kShapeRecurrenceFields)
        r.recurrence.*field = j.at("shape_groups").value(key, uint64_t{0});
    for (const json& f : j.at("failures")) {
      Failure failure;
      failure.id = check_id(f.at("where").get<std::string>());
      failure.case_name = f.at("case").get<std::string>();
      failure.op = f.value("operator", "");
      failure.outcome = parse_enum<Outcome>(f.at("outcome").get<std::string>(), parse_outcome, "outcome");
      failure.detail = f.at("detail").get<std::string>();
      failure.repro = f.at("repro").get<std::string>();
      failure.shrunk = f.at("shrunk").get<std::string>();
      failure.sequence = f.value("sequence", "");
      failure.confirmation =
          parse_confirmation(f.value("confirmation", "unchecked")).value_or(Confirmation::Unchecked);
      failure.reproduce = f.value("reproduce", "");
      failure.seed = f.at("seed").get<uint64_t>();
      failure.counts_at = f.contains("key") ? check_id(f.at("key").get<std::string>()) : failure.id.check();
      failure.backend_output = f.value("backend_output", "");
      failure.backend_output_dropped = f.value("backend_output_dropped_bytes", uint64_t{0});
      r.failures.push_back(std::move(failure));
    }
    return r;
  } catch (const std::exception& e) {
    // nlohmann's "[json.exception.out_of_range.403] key 'backend' not found": the part after the
    // tag is what a person needs.
    std::string what = e.what();
    if (what.starts_with("[json.exception.") && what.find("] ") != std::string::npos)
      what.erase(0, what.find("] ") + 2);
    if (error) *error = what;
    return std::nullopt;
  }
}

}  // namespace dmlcert::cert

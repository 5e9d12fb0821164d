#include "fuzz_corpus.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "dmlcert/file_writer.h"

namespace dmlcert::engine {
namespace {

using ordered = nlohmann::ordered_json;

std::optional<props::DataMode> plan_mode(const std::string& s) {
  for (props::DataMode m : {props::DataMode::Exact, props::DataMode::Random, props::DataMode::Special})
    if (props::name(m) == s) return m;
  return std::nullopt;
}

std::optional<CaseClass> plan_class(const std::string& s) {
  for (CaseClass c : {CaseClass::Valid, CaseClass::Invalid, CaseClass::Unspecified})
    if (name(c) == s) return c;
  return std::nullopt;
}

template <class T>
T plan_field(const std::optional<T>& v, const std::string& field, const std::string& text) {
  if (!v) throw std::runtime_error(field + " '" + text + "' is not one dmlcert knows");
  return *v;
}

}  // namespace

std::string plan_to_text(const FuzzPlan& p) {
  ordered j;
  j["level"] = std::string(name(p.level));
  j["class"] = std::string(name(p.case_class));
  if (p.target) {
    const props::CellTarget& t = *p.target;
    j["target"] = {
        {"op", std::string(name(t.op))},
        {"function", t.function ? ordered(name(*t.function)) : ordered(nullptr)},
        {"type", std::string(name(t.data_type))},
        {"index_type", t.index_type ? ordered(std::string(name(*t.index_type))) : ordered(nullptr)},
        {"rank", t.rank}};
  } else {
    j["rule"] = p.rule;
  }
  j["mode"] = std::string(props::name(p.mode));
  j["seed"] = p.case_seed;
  j["size"] = p.size;
  return j.dump(2) + "\n";
}

std::optional<FuzzPlan> plan_from_text(const std::string& text, std::string* error) {
  try {
    const nlohmann::json j = nlohmann::json::parse(text);
    FuzzPlan p;
    const std::string level = j.at("level").get<std::string>(), cls = j.at("class").get<std::string>();
    p.level = plan_field(parse_feature_level(level), "level", level);
    p.case_class = plan_field(plan_class(cls), "class", cls);
    if (j.contains("target")) {
      const auto& t = j.at("target");
      const std::string op = t.at("op").get<std::string>(), type = t.at("type").get<std::string>();
      if (!t.at("rank").is_number_unsigned() || t.at("rank").get<uint64_t>() < 1 ||
          t.at("rank").get<uint64_t>() > 8)
        throw std::runtime_error("rank must be 1 to 8");
      props::CellTarget target{plan_field(parse_op(op), "op", op), std::nullopt,
                               plan_field(parse_data_type(type), "type", type), std::nullopt,
                               static_cast<uint32_t>(t.at("rank").get<uint64_t>())};
      if (!t.at("function").is_null()) {
        const std::string f = t.at("function").get<std::string>();
        target.function = plan_field(parse_reduce_function(f), "function", f);
      }
      if (!t.at("index_type").is_null()) {
        const std::string it = t.at("index_type").get<std::string>();
        target.index_type = plan_field(parse_data_type(it), "index_type", it);
      }
      p.target = target;
    } else {
      p.rule = j.at("rule").get<std::string>();
    }
    const std::string mode = j.at("mode").get<std::string>();
    p.mode = plan_field(plan_mode(mode), "mode", mode);
    if (!j.at("seed").is_number_unsigned()) throw std::runtime_error("seed must be a whole number");
    p.case_seed = j.at("seed").get<uint64_t>();
    if (!j.at("size").is_number_unsigned() || j.at("size").get<uint64_t>() > 100)
      throw std::runtime_error("size must be 0 to 100");
    p.size = static_cast<int>(j.at("size").get<uint64_t>());
    return p;
  } catch (const std::exception& e) {
    if (error) *error = e.what();
    return std::nullopt;
  }
}

bool save_corpus_entry(const std::string& dir, const FuzzPlan& plan, const Case& c, std::string* error) {
  const std::string text = plan_to_text(plan);
  // FNV-1a: the same name for the same plan on every machine, so that corpora merge by copying.
  uint64_t hash = 0xcbf29ce484222325ull;
  for (unsigned char ch : text) hash = (hash ^ ch) * 0x100000001b3ull;
  char id[17];
  std::snprintf(id, sizeof id, "%016llx", static_cast<unsigned long long>(hash));
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  const std::string base = (std::filesystem::path(dir) / id).string();
  if (const FileWritten w = write_file_atomically(base + ".plan", text); !w) {
    if (error) *error = w.message;
    return false;
  }
  if (const FileWritten w = write_case_file(base + ".json", c); !w) {
    if (error) *error = w.message;
    return false;
  }
  return true;
}

std::vector<CorpusEntry> load_corpus(const std::string& dir, std::vector<std::string>* errors) {
  std::vector<std::filesystem::path> files;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec))
    if (entry.path().extension() == ".plan") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  std::vector<CorpusEntry> plans;
  for (const auto& f : files) {
    std::string why;
    // A plan is a few hundred bytes of a regular file: anything else (a FIFO, which would block
    // the read, or a huge file) is not read at all.
    if (!std::filesystem::is_regular_file(f, ec) || std::filesystem::file_size(f, ec) > 4096) {
      why = "not a regular file of at most 4096 bytes";
    } else {
      std::ifstream in(f);
      std::stringstream text;
      text << in.rdbuf();
      if (auto p = plan_from_text(text.str(), &why)) {
        plans.push_back({f.string(), *p});
        continue;
      }
    }
    if (errors) errors->push_back(f.string() + ": " + why);
  }
  return plans;
}

}  // namespace dmlcert::engine

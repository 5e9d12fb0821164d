#include "check_id.h"

#include <charconv>
#include <vector>

namespace dmlcert::cert {
namespace {

// The first word of a case's name, by kind (the corpus and fuzz cases' are prefixes of their own).
constexpr std::string_view kLevels = "levels", kCells = "cells", kSequences = "sequences",
                           kCorpus = "corpus/", kFuzz = "fuzz-s";

std::vector<std::string_view> split(std::string_view text) {
  std::vector<std::string_view> parts;
  for (size_t start = 0;;) {
    const size_t slash = text.find('/', start);
    parts.push_back(
        text.substr(start, slash == std::string_view::npos ? std::string_view::npos : slash - start));
    if (slash == std::string_view::npos) return parts;
    start = slash + 1;
  }
}

std::optional<uint64_t> number_in(std::string_view text) {
  uint64_t v = 0;
  if (text.empty() || text.find_first_not_of("0123456789") != std::string_view::npos) return std::nullopt;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return v;
}

std::optional<props::DataMode> mode_named(std::string_view text) {
  for (auto m : {props::DataMode::Exact, props::DataMode::Random, props::DataMode::Special})
    if (props::name(m) == text) return m;
  return std::nullopt;
}

std::optional<RuleSection> section_named(std::string_view text) {
  for (auto s : {RuleSection::Invalid, RuleSection::Unspecified, RuleSection::Robustness})
    if (name(s) == text) return s;
  return std::nullopt;
}

CheckKind kind_of(RuleSection s) {
  switch (s) {
    case RuleSection::Invalid: return CheckKind::Invalid;
    case RuleSection::Unspecified: return CheckKind::Unspecified;
    case RuleSection::Robustness: return CheckKind::Robustness;
  }
  return CheckKind::Invalid;
}

// "OP[.FUNCTION]", "ROLE", "TYPE", "rRANK".
std::optional<SupportCell> cell_from(std::string_view op_part, std::string_view role_part,
                                     std::string_view type_part, std::string_view rank_part) {
  SupportCell cell{};
  const size_t dot = op_part.find('.');
  const auto op = parse_op(op_part.substr(0, dot));
  const auto role = parse_role(role_part);
  const auto type = parse_data_type(type_part);
  if (!rank_part.starts_with('r')) return std::nullopt;
  const uint64_t rank = number_in(rank_part.substr(1)).value_or(uint64_t{UINT32_MAX} + 1);
  if (!op || !role || !type || rank > UINT32_MAX) return std::nullopt;
  cell.op = *op, cell.role = *role, cell.type = *type, cell.rank = static_cast<uint32_t>(rank);
  if (dot != std::string_view::npos) {
    cell.function = parse_reduce_function(op_part.substr(dot + 1));
    if (!cell.function) return std::nullopt;
  }
  return cell;
}

// The parts after "levels/L/": a cell's case or a rule's case.
std::optional<CheckId> case_at_level(const std::vector<std::string_view>& parts, size_t first) {
  const size_t n = parts.size() - first;
  if (parts[first] == kCells && n == 7) {
    const auto cell = cell_from(parts[first + 1], parts[first + 2], parts[first + 3], parts[first + 4]);
    const auto mode = mode_named(parts[first + 5]);
    const auto rep = number_in(parts[first + 6]);
    if (!cell || !mode || !rep) return std::nullopt;
    return CheckId::cell_case(*cell, *mode, *rep);
  }
  const auto section = section_named(parts[first]);
  if (!section || *section == RuleSection::Robustness || n != 3 || parts[first + 1].empty())
    return std::nullopt;
  const auto rep = number_in(parts[first + 2]);
  if (!rep) return std::nullopt;
  return CheckId::rule_case(*section, parts[first + 1], *rep);
}

}  // namespace

std::string_view name(RuleSection s) {
  switch (s) {
    case RuleSection::Invalid: return "invalid";
    case RuleSection::Unspecified: return "unspecified";
    case RuleSection::Robustness: return "robustness";
  }
  return "?";
}

std::optional<RuleSection> section_of(CheckKind k) {
  switch (k) {
    case CheckKind::Invalid: return RuleSection::Invalid;
    case CheckKind::Unspecified: return RuleSection::Unspecified;
    case CheckKind::Robustness: return RuleSection::Robustness;
    default: return std::nullopt;
  }
}

std::string cell_key(const SupportCell& c) {
  std::string op(name(c.op));
  if (c.function) op += "." + name(*c.function);
  return op + "/" + std::string(name(c.role)) + "/" + std::string(name(c.type)) + "/r" +
         std::to_string(c.rank);
}

CheckId CheckId::cell_case(const SupportCell& cell, props::DataMode mode, uint64_t rep,
                           std::optional<FeatureLevel> lower) {
  CheckId id;
  id.kind = CheckKind::Cell;
  id.cell = cell;
  id.mode = mode;
  id.number = rep;
  id.level = lower;
  return id;
}

CheckId CheckId::family(const SupportCell& cell, props::DataMode mode, uint64_t rep) {
  CheckId id = cell_case(cell, mode, rep);
  id.kind = CheckKind::Sequence;
  return id;
}

CheckId CheckId::member(std::string_view member_name) const {
  CheckId id = *this;
  id.name = member_name;
  return id;
}

CheckId CheckId::rule_case(RuleSection section, std::string_view rule, uint64_t rep,
                           std::optional<FeatureLevel> lower) {
  CheckId id = of_rule(section, rule);
  id.number = rep;
  id.level = lower;
  return id;
}

CheckId CheckId::corpus_case(uint64_t place, std::string_view case_name) {
  CheckId id;
  id.kind = CheckKind::Corpus;
  id.name = case_name;
  id.number = place;
  return id;
}

CheckId CheckId::fuzz_case(uint64_t seed, uint64_t index) {
  CheckId id;
  id.kind = CheckKind::Fuzz;
  id.seed = seed;
  id.number = index;
  return id;
}

CheckId CheckId::given(std::string_view case_name) {
  CheckId id;
  id.kind = CheckKind::Case;
  id.name = case_name.empty() ? "case" : case_name;
  return id;
}

CheckId CheckId::of_cell(const SupportCell& cell) {
  CheckId id;
  id.kind = CheckKind::Cell;
  id.cell = cell;
  return id;
}

CheckId CheckId::of_rule(RuleSection section, std::string_view rule) {
  CheckId id;
  id.kind = kind_of(section);
  id.rule = rule;
  return id;
}

bool CheckId::is_check() const {
  switch (kind) {
    case CheckKind::Fuzz:
    case CheckKind::Case: return true;
    case CheckKind::Sequence: return false;
    default: return !number && !mode && !level;
  }
}

CheckId CheckId::check() const {
  switch (kind) {
    case CheckKind::Cell:
    case CheckKind::Sequence: return of_cell(cell);
    case CheckKind::Invalid:
    case CheckKind::Unspecified:
    case CheckKind::Robustness: return of_rule(*section(), rule);
    case CheckKind::Corpus: {
      CheckId id = *this;
      id.number.reset();
      return id;
    }
    case CheckKind::Fuzz:
    case CheckKind::Case: return *this;
  }
  return *this;
}

std::string CheckId::subject() const {
  switch (kind) {
    case CheckKind::Cell:
    case CheckKind::Sequence: {
      std::string op(dmlcert::name(cell.op));
      if (cell.function) op += "." + dmlcert::name(*cell.function);
      return op;
    }
    case CheckKind::Invalid:
    case CheckKind::Unspecified:
    case CheckKind::Robustness: return check().to_string();
    case CheckKind::Corpus: return "corpus";
    case CheckKind::Fuzz:
    case CheckKind::Case: return to_string();
  }
  return to_string();
}

std::string CheckId::to_string() const {
  const std::string lower =
      level ? std::string(kLevels) + "/" + std::string(dmlcert::name(*level)) + "/" : "";
  const std::string rep = number ? "/" + std::to_string(*number) : "";
  switch (kind) {
    case CheckKind::Cell:
      if (is_check()) return cell_key(cell);
      return lower + std::string(kCells) + "/" + cell_key(cell) + "/" + std::string(props::name(*mode)) + rep;
    case CheckKind::Sequence:
      return std::string(kSequences) + "/" + cell_key(cell) + "/" + std::string(props::name(*mode)) + rep +
             (name.empty() ? "" : "/" + name);
    case CheckKind::Invalid:
    case CheckKind::Unspecified:
    case CheckKind::Robustness: return lower + std::string(cert::name(*section())) + "/" + rule + rep;
    case CheckKind::Corpus:
      return std::string(kCorpus) + (number ? std::to_string(*number) + "-" : "") + name;
    case CheckKind::Fuzz: return std::string(kFuzz) + std::to_string(seed) + "-c" + std::to_string(*number);
    case CheckKind::Case: return name;
  }
  return name;
}

std::optional<CheckId> CheckId::parse(std::string_view text) {
  if (text.starts_with(kCorpus)) {
    const std::string_view rest = text.substr(kCorpus.size());
    const size_t dash = rest.find('-');
    if (dash != std::string_view::npos && dash + 1 < rest.size())
      if (const auto place = number_in(rest.substr(0, dash)))
        return corpus_case(*place, rest.substr(dash + 1));
    CheckId id;
    id.kind = CheckKind::Corpus;
    id.name = rest;
    if (id.name.empty()) return std::nullopt;
    return id;
  }
  if (text.starts_with(kFuzz)) {
    const std::string_view rest = text.substr(kFuzz.size());
    const size_t c = rest.find("-c");
    if (c == std::string_view::npos) return std::nullopt;
    const auto seed = number_in(rest.substr(0, c));
    const auto index = number_in(rest.substr(c + 2));
    if (!seed || !index) return std::nullopt;
    return fuzz_case(*seed, *index);
  }
  const std::vector<std::string_view> parts = split(text);
  const size_t n = parts.size();
  if (parts[0] == kLevels) {
    if (n < 3) return std::nullopt;
    const auto lower = parse_feature_level(parts[1]);
    auto id = lower ? case_at_level(parts, 2) : std::nullopt;
    if (id) id->level = lower;
    return id;
  }
  if (parts[0] == kCells) return case_at_level(parts, 0);
  if (parts[0] == kSequences) {
    if (n != 7 && n != 8) return std::nullopt;
    const auto cell = cell_from(parts[1], parts[2], parts[3], parts[4]);
    const auto mode = mode_named(parts[5]);
    const auto rep = number_in(parts[6]);
    if (!cell || !mode || !rep || (n == 8 && parts[7].empty())) return std::nullopt;
    CheckId id = family(*cell, *mode, *rep);
    return n == 8 ? id.member(parts[7]) : id;
  }
  if (const auto section = section_named(parts[0])) {
    if (n == 3 && *section != RuleSection::Robustness) return case_at_level(parts, 0);
    if (n < 2 || n > 3 || parts[1].empty()) return std::nullopt;
    CheckId id = of_rule(*section, parts[1]);
    if (n == 3) {
      id.number = number_in(parts[2]);
      if (!id.number) return std::nullopt;
    }
    return id;
  }
  if (n == 4)
    if (const auto cell = cell_from(parts[0], parts[1], parts[2], parts[3])) return of_cell(*cell);
  return std::nullopt;
}

}  // namespace dmlcert::cert

#include "report_code_coverage.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <map>
#include <optional>
#include <sstream>

namespace dmlcert::cert {
namespace {

std::string with_commas(uint64_t n) {
  std::string digits = std::to_string(n), out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

bool flag(const std::vector<uint8_t>& flags, size_t i) {
  return i < flags.size() && flags[i];
}

std::vector<OpKind> operators_of(const Report& r) {
  if (r.scope.checked) return *r.scope.checked;
  return {all_ops().begin(), all_ops().end()};
}

}  // namespace

std::string Share::text() const {
  char buf[32];
  std::snprintf(buf, sizeof buf, " (%.1f%%)", percent());
  return with_commas(reached) + " of " + with_commas(total) + buf;
}

CodeCoverageSummary summarize_code(const Report& r) {
  CodeCoverageSummary s;
  if (!r.code_coverage || !r.code_coverage->instrumented) return s;
  const CodeCoverage& c = *r.code_coverage;
  s.edges.total = c.edges.size();
  for (size_t e = 0; e < c.edges.size(); ++e) s.edges.reached += c.any(e);
  s.functions.total = r.code_functions.size();
  std::map<std::string, CodeCoverageSummary::File> files;
  for (const CodeFunction& f : r.code_functions) {
    const bool reached = c.any(f.first_edge);
    s.functions.reached += reached;
    if (!reached) s.never_reached.push_back(&f);
    CodeCoverageSummary::File& file = files[f.file];
    file.file = f.file;
    ++file.functions.total;
    file.functions.reached += reached;
    for (uint32_t e = f.first_edge; e < f.first_edge + f.edge_count && e < c.edges.size(); ++e) {
      ++file.edges.total;
      file.edges.reached += c.any(e);
    }
  }
  for (auto& [name, file] : files) s.files.push_back(std::move(file));
  for (OpKind op : operators_of(r)) {
    const std::vector<uint8_t>& mine = c.reached[static_cast<size_t>(op)];
    CodeCoverageSummary::Operator o{op, {0, c.edges.size()}, {0, r.code_functions.size()}};
    for (size_t e = 0; e < mine.size(); ++e) o.edges.reached += mine[e] != 0;
    for (const CodeFunction& f : r.code_functions) o.functions.reached += flag(mine, f.first_edge);
    s.operators.push_back(o);
  }
  return s;
}

std::string code_coverage_line(const Report& r) {
  if (!r.code_coverage) return {};
  const CodeCoverage& c = *r.code_coverage;
  if (!c.instrumented) return "Code coverage: none: " + c.why_not;
  if (r.code_functions.empty() && !c.edges.empty())
    return "Code coverage: not named (the report was written before its functions were)";
  const CodeCoverageSummary s = summarize_code(r);
  return "Code coverage of the backend's own code: " + s.edges.text() + " edges, " + s.functions.text() +
         " functions" + (c.partial.empty() ? "" : " (partial: " + c.partial + ")");
}

std::vector<std::string> code_coverage_details(const Report& r, size_t shown) {
  std::vector<std::string> out;
  if (!r.code_coverage || !r.code_coverage->instrumented) return out;
  const CodeCoverageSummary s = summarize_code(r);
  std::string per_op;
  for (const auto& o : s.operators) {
    char buf[96];
    std::snprintf(buf, sizeof buf, "%s %.1f%% of edges, %.1f%% of functions", std::string(name(o.op)).c_str(),
                  o.edges.percent(), o.functions.percent());
    per_op += (per_op.empty() ? "" : "; ") + std::string(buf);
  }
  if (!per_op.empty()) out.push_back("per operator: " + per_op);
  if (!s.never_reached.empty()) {
    std::string names;
    for (size_t i = 0; i < s.never_reached.size() && i < shown; ++i) {
      const CodeFunction& f = *s.never_reached[i];
      names += (names.empty() ? "" : ", ") + f.name +
               (f.file.empty() ? "" : " (" + f.file + ":" + std::to_string(f.line) + ")");
    }
    out.push_back("never reached: " + with_commas(s.never_reached.size()) + " functions" +
                  (s.never_reached.size() > shown ? ", the first " + std::to_string(shown) + ": " : ": ") +
                  names);
  }
  return out;
}

std::string to_lcov(const Report& r) {
  if (!r.code_coverage || !r.code_coverage->instrumented || r.code_functions.empty()) return {};
  const CodeCoverage& c = *r.code_coverage;
  // Per file: the functions defined in it, and per line whether any edge on it was reached (an
  // edge of code inlined from a header is on the header's line).
  struct File {
    std::vector<const CodeFunction*> functions;
    std::map<uint32_t, bool> lines;
  };
  std::map<std::string, File> files;
  for (const CodeFunction& f : r.code_functions)
    if (!f.file.empty()) files[f.file].functions.push_back(&f);
  for (size_t e = 0; e < r.edge_sources.size() && e < c.edges.size(); ++e) {
    const Report::EdgeSource& where = r.edge_sources[e];
    if (where.line == 0 || where.file >= r.code_files.size()) continue;
    bool& hit = files[r.code_files[where.file]].lines[where.line];
    hit = hit || c.any(e);
  }
  std::ostringstream out;
  for (const auto& [path, file] : files) {
    std::string source = path;
    for (char& ch : source)
      if (static_cast<unsigned char>(ch) < 0x20 || ch == 0x7f) ch = '?';
    out << "TN:dmlcert\nSF:" << source << "\n";
    size_t hit_functions = 0;
    // lcov keys functions by name; a name twice in one file (overloads demangled alike) gets its
    // line appended.
    std::map<std::string, int> seen;
    std::vector<std::string> names;
    for (const CodeFunction* f : file.functions) {
      // lcov reads a function's name up to the first comma (template arguments, parameter lists).
      std::string name = f->name;
      std::replace(name.begin(), name.end(), ',', ';');
      // One record per line: a name or path with a control character would break the file.
      for (char& ch : name)
        if (static_cast<unsigned char>(ch) < 0x20 || ch == 0x7f) ch = '?';
      if (seen[name]++) name += "@" + std::to_string(f->line);
      names.push_back(name);
      out << "FN:" << f->line << "," << name << "\n";
    }
    for (size_t i = 0; i < file.functions.size(); ++i) {
      const bool reached = c.any(file.functions[i]->first_edge);
      hit_functions += reached;
      out << "FNDA:" << (reached ? 1 : 0) << "," << names[i] << "\n";
    }
    out << "FNF:" << file.functions.size() << "\nFNH:" << hit_functions << "\n";
    size_t hit_lines = 0;
    for (const auto& [line, hit] : file.lines) {
      hit_lines += hit;
      out << "DA:" << line << "," << (hit ? 1 : 0) << "\n";
    }
    out << "LF:" << file.lines.size() << "\nLH:" << hit_lines << "\nend_of_record\n";
  }
  return out.str();
}

std::string ranges_text(const std::vector<uint8_t>& flags) {
  std::string out;
  for (size_t i = 0; i < flags.size();) {
    if (!flags[i]) {
      ++i;
      continue;
    }
    size_t j = i;
    while (j + 1 < flags.size() && flags[j + 1]) ++j;
    out += (out.empty() ? "" : ",") + std::to_string(i) + (j > i ? "-" + std::to_string(j) : "");
    i = j + 1;
  }
  return out;
}

namespace {

// A decimal number of at most 10 digits at s[*at], advancing *at; nullopt when there is none.
std::optional<uint64_t> number_at(const std::string& s, size_t* at) {
  uint64_t v = 0;
  size_t digits = 0;
  while (*at < s.size() && s[*at] >= '0' && s[*at] <= '9' && digits < 11)
    v = v * 10 + uint64_t(s[(*at)++] - '0'), ++digits;
  if (digits == 0 || digits > 10) return std::nullopt;
  return v;
}

}  // namespace

bool parse_ranges(const std::string& text, std::vector<uint8_t>& flags) {
  // Ascending and disjoint, as ranges_text writes them: each edge is read once, whatever the
  // file says (a report that repeats a range a million times is refused, not worked through).
  size_t at = 0;
  uint64_t next = 0;
  while (at < text.size()) {
    const auto first = number_at(text, &at);
    if (!first) return false;
    uint64_t last = *first;
    if (at < text.size() && text[at] == '-') {
      ++at;
      const auto end = number_at(text, &at);
      if (!end) return false;
      last = *end;
    }
    if (*first < next || last < *first || last >= flags.size()) return false;
    std::fill(flags.begin() + static_cast<std::ptrdiff_t>(*first),
              flags.begin() + static_cast<std::ptrdiff_t>(last) + 1, uint8_t{1});
    next = last + 1;
    if (at < text.size() && (text[at++] != ',' || at == text.size())) return false;
  }
  return true;
}

std::string sources_text(const Report& r) {
  // Runs of edges in one file: "F:line,line,...;" with F the file's index + 1, 0 for edges whose
  // file is not known (then a count of them: "0:12;").
  std::string out;
  for (size_t e = 0; e < r.edge_sources.size();) {
    const Report::EdgeSource& first = r.edge_sources[e];
    const bool known = first.line != 0 && first.file < r.code_files.size();
    size_t end = e;
    if (!known) {
      while (end < r.edge_sources.size() &&
             (r.edge_sources[end].line == 0 || r.edge_sources[end].file >= r.code_files.size()))
        ++end;
      out += "0:" + std::to_string(end - e) + ";";
    } else {
      out += std::to_string(first.file + 1) + ":";
      for (; end < r.edge_sources.size() && r.edge_sources[end].line != 0 &&
             r.edge_sources[end].file == first.file;
           ++end)
        out += (end > e ? "," : "") + std::to_string(r.edge_sources[end].line);
      out += ";";
    }
    e = end;
  }
  return out;
}

bool parse_sources(const std::string& text, size_t files, size_t edges,
                   std::vector<Report::EdgeSource>& out) {
  out.clear();
  size_t at = 0;
  while (at < text.size()) {
    const auto file = number_at(text, &at);
    if (!file || *file > files || at >= text.size() || text[at++] != ':') return false;
    if (*file == 0) {
      const auto count = number_at(text, &at);
      if (!count || *count == 0 || *count > edges - out.size()) return false;
      out.resize(out.size() + *count);
    } else {
      do {
        const auto line = number_at(text, &at);
        if (!line || *line == 0 || *line > UINT32_MAX || out.size() >= edges) return false;
        out.push_back({static_cast<uint32_t>(*file - 1), static_cast<uint32_t>(*line)});
      } while (at < text.size() && text[at] == ',' && ++at);
    }
    if (at >= text.size() || text[at++] != ';') return false;
  }
  return out.size() == edges || out.empty();
}

void merge_code_coverage(Report& into, const Report& from) {
  if (!from.code_coverage) return;
  if (!into.code_coverage) {
    into.code_coverage = from.code_coverage;
    into.code_functions = from.code_functions;
    into.code_files = from.code_files;
    into.edge_sources = from.edge_sources;
    return;
  }
  CodeCoverage& a = *into.code_coverage;
  const CodeCoverage& b = *from.code_coverage;
  if (!a.instrumented || !b.instrumented) {
    if (a.instrumented != b.instrumented) {
      a = CodeCoverage{};
      a.why_not = "the shards disagree on whether the plugin has counters: different plugin builds";
      into.code_functions.clear();
    }
    return;
  }
  if (a.edges.size() != b.edges.size()) {
    a = CodeCoverage{};
    a.why_not = "the shards ran different builds of the plugin (their edges differ)";
    into.code_functions.clear();
    return;
  }
  auto unite = [](std::vector<uint8_t>& x, const std::vector<uint8_t>& y) {
    if (x.size() < y.size()) x.resize(y.size(), 0);
    for (size_t i = 0; i < y.size(); ++i) x[i] |= y[i];
  };
  for (size_t op = 0; op < a.reached.size(); ++op) unite(a.reached[op], b.reached[op]);
  if (a.partial.empty()) a.partial = b.partial;
  unite(a.reached_loading, b.reached_loading);
  if (into.code_functions.empty()) into.code_functions = from.code_functions;
  if (into.edge_sources.empty()) into.code_files = from.code_files, into.edge_sources = from.edge_sources;
}

}  // namespace dmlcert::cert

#include "report_matrix.h"

#include <filesystem>

namespace dmlcert::cert {

std::vector<MatrixRow> build_matrix(const Report& r) {
  std::vector<MatrixRow> rows;
  std::map<std::string, size_t> index;
  for (const CellResult& c : r.cells) {
    std::string label = matrix_row(c.cell);
    auto [it, fresh] = index.emplace(label, rows.size());
    if (fresh) rows.push_back(MatrixRow{label, {}, {}});
    MatrixRow& row = rows[it->second];
    const bool outside = outside_scope(r, c);
    for (MatrixEntry* e : {&row.by_type[c.cell.type], &row.by_type_rank[{c.cell.type, c.cell.rank}]}) {
      e->present = true;
      e->outside &= outside;
      add(e->counts, c.counts);
      if (!outside) e->not_run += c.not_run.count;  // what the scope leaves out is not missed
      e->repros.insert(e->repros.end(), c.repros.begin(), c.repros.end());
    }
  }
  return rows;
}

char status_letter(const Counts& c, uint64_t not_run, bool outside) {
  auto s = status(c);
  if (!s) return outside ? 'U' : not_run ? 'S' : '-';
  switch (*s) {
    case Outcome::Passed: return 'P';
    case Outcome::Failed: return 'F';
    case Outcome::Mistrusted: return 'M';
    case Outcome::Unimplemented: return 'U';
    case Outcome::Crash: return 'C';
    case Outcome::Timeout: return 'T';
    case Outcome::Oob: return 'O';
    case Outcome::LateWrite: return 'W';
    case Outcome::Limit: return 'L';
    case Outcome::Flaky: return 'K';
    case Outcome::Skipped: return '-';
  }
  return '?';
}

std::string status_word(const Counts& c, uint64_t not_run, bool outside) {
  auto s = status(c);
  return s ? std::string(name(*s)) : outside ? "unimplemented" : not_run ? "stopped" : "not-run";
}

std::string short_type(DataType t) {
  std::string n(name(t));
  std::string out(1, n[0]);
  for (char ch : n)
    if (ch >= '0' && ch <= '9') out += ch;
  return out;
}

std::string relative_link(const std::string& path, const std::string& base) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path p = fs::absolute(path, ec);
  if (ec || base.empty()) return path;
  fs::path rel = fs::relative(p, fs::absolute(base, ec), ec);
  return ec || rel.empty() ? path : rel.generic_string();
}

}  // namespace dmlcert::cert

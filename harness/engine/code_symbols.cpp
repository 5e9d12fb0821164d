#include "code_symbols.h"

#include <cxxabi.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <system_error>
#include <vector>

#if DMLCERT_HAVE_LIBDW
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#endif

namespace dmlcert::engine {
namespace {

std::string demangled(const char* name) {
  int status = 0;
  std::unique_ptr<char, decltype(&std::free)> out(abi::__cxa_demangle(name, nullptr, nullptr, &status),
                                                  &std::free);
  return status == 0 && out ? std::string(out.get()) : std::string(name);
}

std::string by_address(const std::string& path, uint64_t address) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "+0x%llx", static_cast<unsigned long long>(address));
  return std::filesystem::path(path).filename().string() + buf;
}

// One module's symbols and lines; a no-op reader without libdw.
class ModuleReader {
 public:
  explicit ModuleReader(const std::string& path) {
#if DMLCERT_HAVE_LIBDW
    // The path comes from the isolation child, which the plugin runs in: only a regular file is
    // opened (a FIFO would block the harness), and none larger than a plugin plausibly is.
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec) ||
        std::filesystem::file_size(path, ec) > (uint64_t{4} << 30))
      return;
    dwfl_ = dwfl_begin(&kCallbacks);
    if (!dwfl_) return;
    dwfl_report_begin(dwfl_);
    module_ = dwfl_report_offline(dwfl_, "plugin", path.c_str(), -1);
    dwfl_report_end(dwfl_, nullptr, nullptr);
    // Addresses in the file become the reader's by the module's bias.
    if (module_ && !dwfl_module_getelf(module_, &bias_)) module_ = nullptr;
    if (module_) read_line_tables();
#else
    (void)path;
#endif
  }
  ~ModuleReader() {
#if DMLCERT_HAVE_LIBDW
    if (dwfl_) dwfl_end(dwfl_);
#endif
  }
  ModuleReader(const ModuleReader&) = delete;
  ModuleReader& operator=(const ModuleReader&) = delete;

  std::string function(uint64_t address) const {
#if DMLCERT_HAVE_LIBDW
    if (module_)
      if (const char* name = dwfl_module_addrname(module_, address + bias_)) return demangled(name);
#else
    (void)address;
#endif
    return {};
  }
  // The source file and line of `address`; empty and 0 when unknown.
  std::pair<std::string, uint32_t> line(uint64_t address) const {
    auto after = std::upper_bound(rows_.begin(), rows_.end(), address,
                                  [](uint64_t a, const Row& row) { return a < row.address; });
    if (after == rows_.begin()) return {};
    const Row& row = *std::prev(after);
    if (row.end_of_sequence) return {};
    return {files_[row.file], row.line};
  }

 private:
  struct Row {
    uint64_t address = 0;  // in the file
    uint32_t line = 0, file = 0;
    bool end_of_sequence = false;
  };
  std::vector<Row> rows_;  // every compilation unit's line table, by address
  std::vector<std::string> files_;

#if DMLCERT_HAVE_LIBDW
  // Every unit's line table, read whole: clang writes no address ranges table (.debug_aranges)
  // unless asked, and without it libdw's lookup by address finds no unit.
  void read_line_tables() {
    Dwarf_Addr bias = 0;
    Dwarf* dwarf = dwfl_module_getdwarf(module_, &bias);
    if (!dwarf) return;
    std::map<std::string, uint32_t> file_index;
    Dwarf_Off offset = 0, next = 0;
    size_t header = 0;
    while (dwarf_nextcu(dwarf, offset, &next, &header, nullptr, nullptr, nullptr) == 0) {
      Dwarf_Die unit;
      Dwarf_Lines* lines = nullptr;
      size_t count = 0;
      if (dwarf_offdie(dwarf, offset + header, &unit) && dwarf_getsrclines(&unit, &lines, &count) == 0) {
        for (size_t i = 0; i < count; ++i) {
          Dwarf_Line* l = dwarf_onesrcline(lines, i);
          Dwarf_Addr address = 0;
          int number = 0;
          bool end = false;
          const char* file = dwarf_linesrc(l, nullptr, nullptr);
          if (dwarf_lineaddr(l, &address) != 0 || dwarf_lineno(l, &number) != 0 ||
              dwarf_lineendsequence(l, &end) != 0)
            continue;
          const std::string path = file ? std::filesystem::path(file).lexically_normal().string() : "";
          auto [it, added] = file_index.try_emplace(path, static_cast<uint32_t>(files_.size()));
          if (added) files_.push_back(path);
          rows_.push_back({address, static_cast<uint32_t>(number), it->second, end});
        }
      }
      offset = next;
    }
    // The end of one sequence and the start of the next can share an address: the start wins.
    std::stable_sort(rows_.begin(), rows_.end(), [](const Row& a, const Row& b) {
      return a.address != b.address ? a.address < b.address : a.end_of_sequence > b.end_of_sequence;
    });
  }

  static inline char* debuginfo_path_ = nullptr;
  static constexpr Dwfl_Callbacks kCallbacks = {dwfl_build_id_find_elf, dwfl_standard_find_debuginfo,
                                                dwfl_offline_section_address, &debuginfo_path_};
  Dwfl* dwfl_ = nullptr;
  Dwfl_Module* module_ = nullptr;
  GElf_Addr bias_ = 0;
#endif
};

}  // namespace

void name_code(cert::Report& r) {
  r.code_functions.clear();
  r.code_files.clear();
  r.edge_sources.clear();
  if (!r.code_coverage || !r.code_coverage->instrumented) return;
  const CodeCoverage& c = *r.code_coverage;
  r.edge_sources.assign(c.edges.size(), {});
  std::map<std::string, uint32_t> file_index;
  for (const CodeCoverage::Module& m : c.modules) {
    const ModuleReader reader(m.path);
    const uint32_t end =
        std::min<uint32_t>(m.first_edge + m.edge_count, static_cast<uint32_t>(c.edges.size()));
    for (uint32_t e = m.first_edge; e < end; ++e) {
      const uint64_t address = c.edges[e].address;
      const auto [file, number] = reader.line(address);
      // An edge before the module's first entry (none in clang's tables) opens a function too.
      if (c.edges[e].function_entry || r.code_functions.empty() || e == m.first_edge) {
        std::string name = reader.function(address);
        r.code_functions.push_back(
            {name.empty() ? by_address(m.path, address) : std::move(name), file, number, e, 0});
      }
      ++r.code_functions.back().edge_count;
      // An edge of code inlined from a header is that header's line, whatever function it is in.
      if (file.empty() || number == 0) continue;
      auto [it, added] = file_index.try_emplace(file, static_cast<uint32_t>(r.code_files.size()));
      if (added) r.code_files.push_back(file);
      r.edge_sources[e] = {it->second, number};
    }
  }
}

}  // namespace dmlcert::engine

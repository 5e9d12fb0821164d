#include "plugin/edge_counters.h"

#include <link.h>

#include <array>
#include <climits>
#include <cstdlib>
#include <cstring>

namespace dmlcert::plugin::edge_counters {
namespace {

// What the modules registered. Plain data, zero-initialized before any constructor runs: a
// module's SanitizerCoverage constructor runs before this file's would (the host itself, when
// instrumented, registers before main).
struct Module {
  uint8_t* counters;
  uint8_t* counters_end;
  const uintptr_t* pcs;  // pairs (address, flags); flags bit 0: the edge starts a function
  const uintptr_t* pcs_end;
  bool plugin;  // registered while the plugin loaded
};
constexpr size_t kMaxModules = 256;
Module g_modules[kMaxModules];
size_t g_counter_modules = 0;  // modules whose counters registered
bool g_loading = false;
// 4 Mi edges: a greeting of 36 MiB, within a frame's 64 MiB. Larger plugins are not mapped.
constexpr size_t kMaxEdges = size_t{4} << 20;
bool loaded_too_many_ = false;

size_t edges(const Module& m) {
  return static_cast<size_t>(m.counters_end - m.counters);
}
// The edge table belongs to the counters: one entry per counter.
bool usable(const Module& m) {
  return m.plugin && m.pcs && static_cast<size_t>(m.pcs_end - m.pcs) == 2 * edges(m);
}

// The module that holds `address`: its path and its load bias (the file's virtual address of a
// code byte is its address minus the bias).
struct Where {
  std::string path;
  uintptr_t bias = 0;
};
Where module_of(uintptr_t address) {
  struct Search {
    uintptr_t address;
    Where found;
    bool ok;
  } search{address, {}, false};
  ::dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* data) {
        auto* s = static_cast<Search*>(data);
        for (int i = 0; i < info->dlpi_phnum; ++i) {
          const ElfW(Phdr)& ph = info->dlpi_phdr[i];
          const uintptr_t begin = info->dlpi_addr + ph.p_vaddr;
          if (ph.p_type != PT_LOAD || s->address < begin || s->address >= begin + ph.p_memsz) continue;
          char resolved[PATH_MAX];
          const char* name = info->dlpi_name && *info->dlpi_name ? info->dlpi_name : "/proc/self/exe";
          s->found = {::realpath(name, resolved) ? resolved : name, info->dlpi_addr};
          s->ok = true;
          return 1;
        }
        return 0;
      },
      &search);
  return search.found;
}

// Clears every counter the calls raised; each edge not yet in `sent` is added to it and to `out`.
void take_into(std::vector<uint8_t>& sent, std::vector<uint32_t>& out) {
  uint32_t base = 0;
  for (size_t m = 0; m < g_counter_modules; ++m) {
    const Module& mod = g_modules[m];
    if (!usable(mod)) continue;
    const size_t n = edges(mod);
    if (sent.size() < base + n) sent.resize(base + n, 0);
    size_t i = 0;
    // Most counters are zero after a call: skip them eight at a time.
    for (; i + 8 <= n; i += 8) {
      uint64_t word;
      std::memcpy(&word, mod.counters + i, 8);
      if (word == 0) continue;
      for (size_t k = i; k < i + 8; ++k)
        if (mod.counters[k]) {
          mod.counters[k] = 0;
          if (!sent[base + k]) sent[base + k] = 1, out.push_back(base + static_cast<uint32_t>(k));
        }
    }
    for (; i < n; ++i)
      if (mod.counters[i]) {
        mod.counters[i] = 0;
        if (!sent[base + i]) sent[base + i] = 1, out.push_back(base + static_cast<uint32_t>(i));
      }
    base += static_cast<uint32_t>(n);
  }
}

std::array<std::vector<uint8_t>, kOpCount> g_sent;  // per operator: edges already sent

}  // namespace

void loading() {
  g_loading = true;
}
void loaded() {
  g_loading = false;
}

void write_map(wire::Writer& w, bool plugin) {
  if (!plugin) {
    w.u8(0);
    w.str("a built-in backend: code coverage is measured for plugins (docs/coverage.md)");
    return;
  }
  size_t plugin_modules = 0, unusable = 0, total = 0;
  for (size_t m = 0; m < g_counter_modules; ++m) {
    if (!g_modules[m].plugin) continue;
    usable(g_modules[m]) ? ++plugin_modules : ++unusable;
    if (usable(g_modules[m])) total += edges(g_modules[m]);
  }
  // The map travels in the greeting, 9 bytes an edge, in one frame (wire::kMaxFrameBytes).
  if (total > kMaxEdges) {
    w.u8(0);
    w.str("the plugin has " + std::to_string(total) + " edges, more than the " + std::to_string(kMaxEdges) +
          " dmlcert maps (instrument its kernels alone: dmlcert_instrument_plugin(... SOURCES ...))");
    loaded_too_many_ = true;
    return;
  }
  w.u8(plugin_modules > 0);
  if (plugin_modules == 0) {
    w.str(unusable > 0
              ? "the plugin has SanitizerCoverage counters but no table of their addresses (compile it "
                "with -fsanitize-coverage=inline-8bit-counters,pc-table; docs/coverage.md)"
              : "the plugin was not compiled with SanitizerCoverage (clang's "
                "-fsanitize-coverage=inline-8bit-counters,pc-table; docs/coverage.md)");
    return;
  }
  w.u32(static_cast<uint32_t>(plugin_modules));
  for (size_t m = 0; m < g_counter_modules; ++m) {
    const Module& mod = g_modules[m];
    if (!usable(mod)) continue;
    const Where where = module_of(mod.pcs[0]);
    std::vector<uint64_t> addresses(edges(mod));
    std::vector<uint8_t> starts(edges(mod));
    for (size_t i = 0; i < addresses.size(); ++i) {
      addresses[i] = mod.pcs[2 * i] - where.bias;
      starts[i] = static_cast<uint8_t>(mod.pcs[2 * i + 1] & 1);
    }
    w.str(where.path);
    w.vec(addresses);
    w.vec(starts);
  }
  std::vector<uint8_t> sent;
  std::vector<uint32_t> reached;
  take_into(sent, reached);
  w.vec(reached);
}

std::vector<uint32_t> take(OpKind op) {
  std::vector<uint32_t> out;
  if (g_counter_modules > 0 && !loaded_too_many_) take_into(g_sent[static_cast<size_t>(op)], out);
  return out;
}

}  // namespace dmlcert::plugin::edge_counters

// The registration functions SanitizerCoverage's module constructors call; exported by the host
// (backends/CMakeLists.txt), so that a plugin's references resolve here.
extern "C" __attribute__((visibility("default"))) void __sanitizer_cov_8bit_counters_init(char* begin,
                                                                                          char* end) {
  using namespace dmlcert::plugin::edge_counters;
  if (begin >= end || g_counter_modules == kMaxModules) return;
  for (size_t m = 0; m < g_counter_modules; ++m)
    if (g_modules[m].counters == reinterpret_cast<uint8_t*>(begin)) return;  // registered already
  g_modules[g_counter_modules++] = {reinterpret_cast<uint8_t*>(begin), reinterpret_cast<uint8_t*>(end),
                                    nullptr, nullptr, g_loading};
}

// -fsanitize-coverage=inline-bool-flag: one byte per edge too, set and never wrapped (an 8-bit
// counter that an edge raised a multiple of 256 times in one call reads 0: docs/coverage.md).
extern "C" __attribute__((visibility("default"))) void __sanitizer_cov_bool_flag_init(bool* begin,
                                                                                      bool* end) {
  __sanitizer_cov_8bit_counters_init(reinterpret_cast<char*>(begin), reinterpret_cast<char*>(end));
}

extern "C" __attribute__((visibility("default"))) void __sanitizer_cov_pcs_init(const uintptr_t* begin,
                                                                                const uintptr_t* end) {
  using namespace dmlcert::plugin::edge_counters;
  // A module's constructor registers its counters, then their table: the table is the most recent
  // counters' (a module compiled without pc-table leaves its counters without one, and shifts
  // nothing). A table with no counters before it is of another mode, and ignored.
  if (begin >= end || g_counter_modules == 0) return;
  Module& last = g_modules[g_counter_modules - 1];
  if (last.pcs) return;
  last.pcs = begin;
  last.pcs_end = end;
}

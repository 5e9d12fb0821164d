#include "optimized/cpu.h"

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

namespace dmlcert::optimized {

namespace {

// "32768K" (sysfs's form), "32M" or a plain number of bytes; 0 when unreadable.
uint64_t parse_size(const std::string& text) {
  size_t used = 0;
  uint64_t v = 0;
  try {
    v = std::stoull(text, &used);
  } catch (...) {
    return 0;
  }
  const char unit = used < text.size() ? text[used] : '\0';
  if (unit == 'K') return v << 10;
  if (unit == 'M') return v << 20;
  if (unit == 'G') return v << 30;
  return v;
}

std::string read_line(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

}  // namespace

// The largest data or unified cache of CPU 0. sysconf's _SC_LEVEL3_CACHE_SIZE is not used: glibc
// computes it from CPUID and reported ten times the real L3 of a virtual machine whose sysfs was
// right.
uint64_t reported_last_level_cache_bytes() {
  static const uint64_t bytes = [] {
    uint64_t best = 0;
    int best_level = 0;
    for (int i = 0; i < 16; ++i) {
      const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(i) + "/";
      const std::string type = read_line(dir + "type");
      if (type.empty()) break;
      if (type == "Instruction") continue;
      const int level = static_cast<int>(parse_size(read_line(dir + "level")));
      const uint64_t size = parse_size(read_line(dir + "size"));
      if (size > 0 && level >= best_level) best = size, best_level = level;
    }
    return best;
  }();
  return bytes;
}

bool software_prefetch_for(PrefetchVendor vendor, const char* override_value) {
  if (override_value != nullptr && std::strcmp(override_value, "software") == 0) return true;
  if (override_value != nullptr && std::strcmp(override_value, "hardware") == 0) return false;
  return vendor == PrefetchVendor::Intel;
}

bool software_prefetch() {
  static const bool on =
      software_prefetch_for(__builtin_cpu_is("intel") ? PrefetchVendor::Intel : PrefetchVendor::Other,
                            std::getenv("DMLCERT_PREFETCH"));
  return on;
}

bool cpu_avx512_full_width() {
  static const bool full = cpu_has_avx512_kernels() && __builtin_cpu_is("intel");
  return full;
}

uint64_t last_level_cache_bytes() {
  const uint64_t reported = reported_last_level_cache_bytes();
  return reported > 0 ? reported : kAssumedLastLevelCacheBytes;
}

}  // namespace dmlcert::optimized

/* The paths a kernel library chooses between, by operator and output size: what
 * coverage_probe_plugin.cpp asks before each call. Compiled by clang with SanitizerCoverage
 * (tests/plugins/CMakeLists.txt), whatever compiles the rest: its edges are the plugin's code
 * coverage, and the certificate must name these functions. */
#include <stdint.h>

/* Operators as the ABI numbers them: 1 SLICE, 2 SLICE1, 3 SCATTER_ND, 4 REDUCE, 5 GATHER_ELEMENTS. */
int dmlcert_probe_path(uint32_t op, uint64_t output_bytes) {
  switch (op) {
    case 1: return output_bytes >= 4096 ? 11 : 10;
    case 2: return output_bytes >= 4096 ? 21 : 20;
    case 3: return 30;
    case 4:
      /* A path no certification reaches: a REDUCE output of more than 1 GiB. */
      return output_bytes > (1ull << 30) ? 41 : 40;
    case 5: return 50;
    default: return 0;
  }
}

/* Never called: the certificate lists it among the functions never reached. */
int dmlcert_probe_never_called(int x) {
  return x > 0 ? 3 * x + 1 : -x;
}

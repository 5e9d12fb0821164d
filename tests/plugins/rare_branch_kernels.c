/* Which GATHER_ELEMENTS kernel a call gets, as a vendor's dispatcher picks one: by rank, then by
 * size, element width and index width. The last kernel is the one with a bug
 * (rare_branch_plugin.cpp corrupts its output): it runs only for outputs of rank 3 or more with at
 * least 1024 one-byte elements and 32-bit indices, which unguided generation reaches about once in
 * a few thousand cases. Each test on the way is an edge of its own, which a coverage-guided run keeps.
 * Compiled by clang with SanitizerCoverage (tests/plugins/CMakeLists.txt). */
#include <stdint.h>

int dmlcert_rare_kernel(uint32_t rank, uint64_t output_elements, uint32_t element_bytes,
                        uint32_t index_bytes) {
  if (rank < 3) return 0;               /* generic */
  if (output_elements < 64) return 1;   /* small */
  if (element_bytes != 1) return 2;     /* wide elements */
  if (index_bytes != 4) return 3;       /* 64-bit indices */
  if (output_elements < 512) return 4;  /* medium */
  if (output_elements < 1024) return 5; /* large */
  return 6;                             /* blocked one-byte kernel, 32-bit indices: the bug */
}

/* Weak, empty definitions of the functions through which SanitizerCoverage's module constructors
 * register a module's edge counters and edge table (docs/coverage.md). They let an instrumented
 * plugin link with -Wl,--no-undefined and load into any process. Under dmlcert-plugin-host, which
 * defines and exports the real ones, the plugin's calls reach the host's: a shared object's
 * default-visibility symbols resolve to the executable's first. dmlcert_instrument_plugin() adds
 * this file to a plugin. */
#include <stdint.h>

#define DMLCERT_HOOK __attribute__((weak, visibility("default")))

DMLCERT_HOOK void __sanitizer_cov_8bit_counters_init(char* begin, char* end) {
  (void)begin;
  (void)end;
}

DMLCERT_HOOK void __sanitizer_cov_bool_flag_init(char* begin, char* end) {
  (void)begin;
  (void)end;
}

DMLCERT_HOOK void __sanitizer_cov_pcs_init(const uintptr_t* begin, const uintptr_t* end) {
  (void)begin;
  (void)end;
}

// Crashes inside dmlcert_get_backend, before the harness has a backend at all: certify must say so
// in a report (nothing ran, every cell marked) and exit 1, not crash or hang.
#include <csignal>

#include "dmlcert/dmlcert_backend_abi.h"

extern "C" DMLCERT_PLUGIN_EXPORT const dmlcert_backend_v1* dmlcert_get_backend(uint32_t) {
  std::raise(SIGSEGV);
  return nullptr;
}

// After every successful SLICE1, makes the page after the output binding writable with mprotect
// (no fault, so no signal handler sees anything) and writes one element there. Expected: `oob` in
// every SLICE1 cell and every other cell passes: the guard page cannot be made writable, and had it
// been, its canary bytes would show the write.
#include <sys/mman.h>
#include <unistd.h>

#include "misbehaviour.h"

namespace dmlcert::test_plugins {
plugin::AdapterHooks misbehaviour() {
  plugin::AdapterHooks hooks;
  hooks.after = [](const OperatorDesc& d, FeatureLevel, const Bindings& b) {
    if (op_kind(d) != OpKind::SLICE1) return;
    const auto page = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
    std::byte* past_end = b.output.data + b.output.size;
    const uintptr_t guard = reinterpret_cast<uintptr_t>(past_end) & ~(page - 1);
    ::mprotect(reinterpret_cast<void*>(guard), page, PROT_READ | PROT_WRITE);  // fails or not: it writes
    volatile std::byte* p = past_end;
    p[0] = std::byte{0x7F};
  };
  return hooks;
}
}  // namespace dmlcert::test_plugins

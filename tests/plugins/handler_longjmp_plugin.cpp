// Installs its own SIGSEGV handler when it is loaded, as managed runtimes do, one that recovers
// from a fault by jumping back to where the write was tried; then, after every successful SLICE1,
// tries to write one element past the output binding under that handler. Expected: `oob` in every
// SLICE1 cell (dmlcert's handler, put back before every call, sees the write first), every other
// cell passes, and the robustness check BACKEND.SIGNAL_HANDLERS fails.
#include <setjmp.h>
#include <signal.h>

#include "misbehaviour.h"

namespace dmlcert::test_plugins {
namespace {

thread_local sigjmp_buf* t_recover = nullptr;

void recover(int sig, siginfo_t*, void*) {
  if (t_recover) siglongjmp(*t_recover, 1);
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

}  // namespace

plugin::AdapterHooks misbehaviour() {
  struct sigaction sa {};
  sa.sa_sigaction = recover;
  sa.sa_flags = SA_SIGINFO | SA_NODEFER;
  ::sigaction(SIGSEGV, &sa, nullptr);
  plugin::AdapterHooks hooks;
  hooks.after = [](const OperatorDesc& d, FeatureLevel, const Bindings& b) {
    if (op_kind(d) != OpKind::SLICE1) return;
    sigjmp_buf here;
    if (sigsetjmp(here, 1) == 0) {
      t_recover = &here;
      volatile std::byte* past_end = b.output.data + b.output.size;
      past_end[0] = std::byte{0x7F};
    }
    t_recover = nullptr;
  };
  return hooks;
}
}  // namespace dmlcert::test_plugins

// Installs its own SIGSEGV handler when it is loaded, one that makes the faulting page writable and
// lets the write run again (as a garbage collector's write barrier does); then, after every
// successful SLICE1, writes one element past the output binding. Expected: `oob` in every SLICE1
// cell, every other cell passes, and BACKEND.SIGNAL_HANDLERS fails.
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include "misbehaviour.h"

namespace dmlcert::test_plugins {
namespace {

void make_writable(int sig, siginfo_t* info, void*) {
  const auto page = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
  void* at = reinterpret_cast<void*>(reinterpret_cast<uintptr_t>(info->si_addr) & ~(page - 1));
  if (::mprotect(at, page, PROT_READ | PROT_WRITE) == 0) return;  // the write runs again
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

}  // namespace

plugin::AdapterHooks misbehaviour() {
  struct sigaction sa {};
  sa.sa_sigaction = make_writable;
  sa.sa_flags = SA_SIGINFO | SA_NODEFER;
  ::sigaction(SIGSEGV, &sa, nullptr);
  plugin::AdapterHooks hooks;
  hooks.after = [](const OperatorDesc& d, FeatureLevel, const Bindings& b) {
    if (op_kind(d) != OpKind::SLICE1) return;
    volatile std::byte* past_end = b.output.data + b.output.size;
    past_end[0] = std::byte{0x7F};
  };
  return hooks;
}
}  // namespace dmlcert::test_plugins

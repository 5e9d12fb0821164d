// Installs its own SIGSEGV handler when it is loaded (one that makes a faulting page writable and
// lets the write run again), and after every accepted call whose input has rank 2 leaves a thread
// behind that writes into the output a few milliseconds after the call returned, as
// late_write_plugin.cpp does. Expected: `late-write` in exactly the rank-2 cells, each failure
// blamed on the case whose call it was; BACKEND.SIGNAL_HANDLERS fails; no thread piles up.
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "misbehaviour.h"

namespace dmlcert::test_plugins {
namespace {

void make_writable(int sig, siginfo_t* info, void*) {
  const auto page = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
  void* at = reinterpret_cast<void*>(reinterpret_cast<uintptr_t>(info->si_addr) & ~(page - 1));
  if (::mprotect(at, page, PROT_READ | PROT_WRITE) == 0) return;
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
  hooks.after = [](const OperatorDesc& d, FeatureLevel level, const Bindings& b) {
    if (!accepted(d, level) || tensor(d, Role::INPUT)->rank() != 2 || b.output.size == 0) return;
    volatile std::byte* out = b.output.data;
    std::thread([out] {
      std::this_thread::sleep_for(std::chrono::milliseconds(3));
      for (int i = 0; i < 500; ++i) {
        out[0] = std::byte{0x5A};
        std::this_thread::sleep_for(std::chrono::microseconds(100));
      }
    }).detach();
  };
  return hooks;
}
}  // namespace dmlcert::test_plugins

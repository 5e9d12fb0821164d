#include "plugin/signal_guard.h"

#include <atomic>
#include <cstring>
#include <iterator>

namespace dmlcert::plugin {
namespace {

constexpr int kSignals[] = {SIGSEGV, SIGBUS};

// The plugin's handlers, by index into kSignals, as the fault handler reads them: written by the
// main thread between calls, read in a signal handler on any thread.
struct Replaced {
  struct sigaction action {};
  std::atomic<bool> set{false};
};
Replaced g_replaced[2];

bool is_ours(const struct sigaction& sa, FaultHandler handler) {
  return (sa.sa_flags & SA_SIGINFO) && sa.sa_sigaction == handler;
}

void set_handlers(FaultHandler handler) {
  struct sigaction sa {};
  sa.sa_sigaction = handler;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
  for (int sig : kSignals) ::sigaction(sig, &sa, nullptr);
}

}  // namespace

void install_fault_handlers(FaultHandler handler) {
  static char alt_stack[1 << 16];
  stack_t ss{};
  ss.ss_sp = alt_stack;
  ss.ss_size = sizeof alt_stack;
  ::sigaltstack(&ss, nullptr);
  set_handlers(handler);
}

std::string restore_fault_handlers(FaultHandler handler) {
  std::string replaced;
  for (size_t i = 0; i < std::size(kSignals); ++i) {
    struct sigaction now {};
    if (::sigaction(kSignals[i], nullptr, &now) != 0 || is_ours(now, handler)) continue;
    g_replaced[i].set.store(false);
    g_replaced[i].action = now;
    const bool callable = (now.sa_flags & SA_SIGINFO)
                              ? now.sa_sigaction != nullptr
                              : now.sa_handler != SIG_DFL && now.sa_handler != SIG_IGN;
    g_replaced[i].set.store(callable);
    replaced += replaced.empty() ? "" : " and ";
    replaced += sigabbrev_np(kSignals[i]) ? std::string("SIG") + sigabbrev_np(kSignals[i]) : "signal";
  }
  if (replaced.empty()) return replaced;
  set_handlers(handler);
  return replaced + (replaced.find(" and ") != std::string::npos ? " handlers" : " handler");
}

bool chain_to_replaced_handler(int sig, siginfo_t* info, void* context) {
  for (size_t i = 0; i < std::size(kSignals); ++i) {
    if (kSignals[i] != sig || !g_replaced[i].set.load()) continue;
    const struct sigaction& sa = g_replaced[i].action;
    if (sa.sa_flags & SA_SIGINFO)
      sa.sa_sigaction(sig, info, context);
    else
      sa.sa_handler(sig);
    return true;
  }
  return false;
}

}  // namespace dmlcert::plugin

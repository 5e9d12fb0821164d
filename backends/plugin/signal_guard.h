// The isolation child's fault handlers (SIGSEGV, SIGBUS), kept in place whatever the plugin does.
// Runtimes a plugin may carry (a JVM, Mono, some GPU drivers) install handlers of their own for
// these signals; one that recovers from a fault (longjmp, or mprotect and retry) would swallow a
// write past an output. So the child checks its handlers after loading the plugin and before and
// after every call, puts its own back when they were replaced, and says so: the robustness check
// BACKEND.SIGNAL_HANDLERS (docs/rules.md). The plugin's handler is kept and still gets the faults
// that are not dmlcert's (outside every binding and guard page), as it would without dmlcert.
#pragma once

#include <signal.h>

#include <string>

namespace dmlcert::plugin {

using FaultHandler = void (*)(int, siginfo_t*, void*);

// Installs `handler` for SIGSEGV and SIGBUS, on an alternate stack (stack overflows too).
void install_fault_handlers(FaultHandler handler);

// Puts `handler` back for each of the two signals whose handler is another now, keeping the other
// for chain_to_replaced_handler(). Returns what was replaced ("SIGSEGV and SIGBUS handlers"), or
// empty when nothing was.
std::string restore_fault_handlers(FaultHandler handler);

// Runs the handler the plugin had installed for `sig`, if it had one that is a function, and
// returns whether it did. For faults that are not dmlcert's: async-signal-safe.
bool chain_to_replaced_handler(int sig, siginfo_t* info, void* context);

}  // namespace dmlcert::plugin

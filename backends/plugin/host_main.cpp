// dmlcert-plugin-host: the isolation child. It loads one backend (a plugin through the C ABI, or
// a built-in by name), maps each call's buffers from shared memory behind guard pages
// (call_memory.h), and runs the calls the harness sends over its socket. After a call its
// bindings are retired: the pages stay reserved but inaccessible, so a thread the plugin left
// running faults at its next write and is caught there, named with the call it belongs to; the
// child notes it (LateWriteLog), gives the thread scratch memory there, and lives on.
// When the backend faults, the signal handler notes what the address hit in the shared fault
// page and the process dies; the harness turns that into a result for the right case and starts
// a fresh host. The handlers stay dmlcert's whatever the plugin installs (signal_guard.h).
// Started as a PID namespace's first process (containment.h), the process forks and the host runs
// in the child (namespace_init.h).
//
// Usage (started by the harness, not by people): dmlcert-plugin-host SPEC PARENT_PID
// with the socket on descriptor 3 and the shared memory on descriptor 4.
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "dmlcert/backend.h"
#include "plugin/call_memory.h"
#include "plugin/edge_counters.h"
#include "plugin/host_request.h"
#include "plugin/namespace_init.h"
#include "plugin/plugin_backend.h"
#include "plugin/retired_arenas.h"
#include "plugin/signal_guard.h"
#include "plugin/wire.h"
#include "registry.h"

namespace dmlcert::plugin {
namespace {

// What the signal handler reads: plain data, no allocation.
struct HandlerState {
  const GuardedView* current = nullptr;  // the running call's bindings
  uint64_t call = 0;                     // the running (or last) call
  RetiredArenas retired;                 // earlier calls' reserved, inaccessible arenas
  FaultRecord* record = nullptr;
  LateWriteLog* late_writes = nullptr;
};
HandlerState g_state;

void on_fault(int sig, siginfo_t* info, void* context) {
  HandlerState& s = g_state;
  const auto addr = reinterpret_cast<uintptr_t>(info->si_addr);
  Fault fault = Fault::Crash;
  uint32_t role = kRoleCount;
  int64_t offset = 0;
  uint64_t call = s.call;
  if (s.current) {
    const GuardedView::Hit hit = s.current->locate(addr);
    if (hit.in_arena) {
      fault = hit.in_input_data ? Fault::InputWritten : Fault::OutOfBounds;
      role = hit.role;
      offset = hit.offset;
    }
  }
  const std::optional<RetiredArenas::Arena> late =
      fault == Fault::Crash ? s.retired.find(addr) : std::nullopt;
  if (late) {
    fault = Fault::LateWrite;
    call = late->call;
    role = late->role_of(addr);
    offset = static_cast<int64_t>(addr - (role < kRoleCount ? late->data[role] : late->begin));
  }
  // Not dmlcert's memory: the plugin's own fault handler, if it had one, gets it as it would
  // without dmlcert (a runtime's null check, a garbage collector's write barrier).
  if (fault == Fault::Crash && !late && chain_to_replaced_handler(sig, info, context)) return;
  if (late && s.late_writes) {
    const uint32_t i = __atomic_fetch_add(&s.late_writes->claimed, 1u, __ATOMIC_ACQ_REL);
    if (i < LateWriteLog::kEntries) {
      LateWriteLog::Entry& e = s.late_writes->entries[i];
      e.call = call;
      e.offset = offset;
      e.role = role;
      __atomic_store_n(&e.ready, 1u, __ATOMIC_RELEASE);
      // The whole retired arena becomes private scratch memory that no call uses, and the write
      // that faulted runs again there. The address range stays this call's until its slot goes.
      void* scratch =
          ::mmap(reinterpret_cast<void*>(late->begin), late->end - late->begin, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE, -1, 0);
      if (scratch != MAP_FAILED) return;
    }
  }
  if (s.record) {
    s.record->fault = static_cast<uint32_t>(fault);
    s.record->signal = static_cast<uint32_t>(sig);
    s.record->role = role;
    s.record->address = addr;
    s.record->code = info->si_code;
    s.record->offset = offset;
    s.record->call = call;
    s.record->magic = FaultRecord::kMagic;
  }
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

void install_handlers() {
  // A crashing plugin must not write a core file per case, into dmlcert's directory, for seconds:
  // not even one that raised its core limit first (a process that is not dumpable dumps no core).
  rlimit no_core{0, 0};
  ::setrlimit(RLIMIT_CORE, &no_core);
  ::prctl(PR_SET_DUMPABLE, 0);
  install_fault_handlers(on_fault);
}

// What the plugin did to the fault handlers since the last look, `when`, as the answer reports it
// (robustness check BACKEND.SIGNAL_HANDLERS); empty when nothing.
std::string handlers_replaced(const char* when) {
  const std::string replaced = restore_fault_handlers(on_fault);
  return replaced.empty() ? replaced
                          : "replaced dmlcert's " + replaced + " " + when + " (dmlcert put its own back)";
}

// Keeps a finished call's arena reserved and inaccessible instead of unmapping it, so that the
// address range is never handed to a later call: a late write faults, and names its call.
void retire(uintptr_t begin, uintptr_t bytes, uint64_t call, const Bindings& bindings) {
  g_state.retired.retire(
      begin, bytes, call, bindings,
      [](uintptr_t b, uintptr_t n) {
        ::mmap(reinterpret_cast<void*>(b), n, PROT_NONE,
               MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE, -1, 0);
      },
      [](uintptr_t b, uintptr_t n) { ::munmap(reinterpret_cast<void*>(b), n); });
}

void send_hello(Backend* backend, const std::string& error, const std::string& interference, bool plugin) {
  wire::Writer w;
  w.u8(backend != nullptr);
  if (!backend) {
    w.str(error);
    wire::send_frame(wire::kSocketFd, w.bytes());
    return;
  }
  w.str(backend->name());
  w.u8(static_cast<uint8_t>(backend->max_feature_level()));
  w.u8(backend->reports_rules());
  for (OpKind op : all_ops()) {
    std::vector<std::optional<ReduceFunction>> functions = {std::nullopt};
    if (has_function(op)) functions.assign(std::begin(kAllReduceFunctions), std::end(kAllReduceFunctions));
    for (const auto& fn : functions)
      for (DataType t : kAllDataTypes) w.u8(backend->implements(op, fn, t));
  }
  // Index types: asked only of operators with an index tensor, and of integer types (the others
  // are sent as not taken, never asked).
  for (OpKind op : all_ops()) {
    std::vector<std::optional<ReduceFunction>> functions = {std::nullopt};
    if (has_function(op)) functions.assign(std::begin(kAllReduceFunctions), std::end(kAllReduceFunctions));
    const bool indexed = std::any_of(functions.begin(), functions.end(),
                                     [&](const auto& fn) { return has_index_role(op, fn); });
    for (DataType t : kAllDataTypes) w.u8(indexed && is_integer(t) && backend->implements_index_type(op, t));
  }
  w.str(interference);
  edge_counters::write_map(w, plugin);
  wire::send_frame(wire::kSocketFd, w.bytes());
}

// The fault handler's view of the calls: the running one's bindings, then its retired arena.
class HandlerWatch final : public CallWatch {
 public:
  void started(uint64_t call, const GuardedView& view) override {
    note(handlers_replaced("between calls"));
    g_state.call = call;
    g_state.current = &view;
  }
  void finished(uint64_t call, uintptr_t begin, uintptr_t bytes, const Bindings& bindings) override {
    g_state.current = nullptr;
    retire(begin, bytes, call, bindings);
    note(handlers_replaced("during a call"));
  }
  std::string interference() override { return std::exchange(notes_, {}); }
  std::vector<uint32_t> edges(OpKind op) override { return edge_counters::take(op); }

 private:
  void note(const std::string& what) {
    if (!what.empty()) notes_ += (notes_.empty() ? "" : "; ") + what;
  }
  std::string notes_;
};

int serve(Backend& backend, uint64_t page, int mem_fd, int mem_read_only_fd) {
  HandlerWatch watch;
  std::string request;
  while (wire::recv_frame(wire::kSocketFd, request, -1) == wire::Io::Ok) {
    const std::string answer = answer_request(backend, request, mem_fd, page, watch, mem_read_only_fd);
    std::fflush(stdout);
    if (wire::send_frame(wire::kSocketFd, answer) != wire::Io::Ok) break;
  }
  return 0;
}

// The shared memory moved from descriptor 4 to one the plugin is unlikely to write to by mistake
// (a plugin that writes into descriptors it does not own would overwrite the fault record), and
// a second descriptor of it opened for reading only, for inputs and guard pages (GuardedView::map).
std::pair<int, int> memory_descriptors() {
  const int rw = ::fcntl(wire::kMemFd, F_DUPFD_CLOEXEC, 512);
  if (rw < 0) return {wire::kMemFd, -1};
  ::close(wire::kMemFd);
  const int ro = ::open(("/proc/self/fd/" + std::to_string(rw)).c_str(), O_RDONLY | O_CLOEXEC);
  const int ro_high = ro < 0 ? -1 : ::fcntl(ro, F_DUPFD_CLOEXEC, 512);
  if (ro >= 0) ::close(ro);
  return {rw, ro_high};
}

}  // namespace
}  // namespace dmlcert::plugin

int main(int argc, char** argv) {
  using namespace dmlcert;
  using namespace dmlcert::plugin;
  if (argc != 3) {
    std::fprintf(stderr, "usage: dmlcert-plugin-host SPEC PARENT_PID (started by dmlcert, fds 3 and 4)\n");
    return 2;
  }
  // A PID namespace's first process: the host runs in its child (namespace_init.h), whose parent
  // is that process; dmlcert, outside the namespace, has no pid here.
  const bool contained = is_namespace_init();
  if (contained) fork_host_under_namespace_init(wire::kMemFd);
  // Never outlive dmlcert: killed when the parent dies, and gone at once if it already has.
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (std::to_string(::getppid()) != (contained ? "1" : argv[2])) return 1;
  const auto page = static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
  const auto [mem_fd, mem_read_only_fd] = memory_descriptors();
  void* record = ::mmap(nullptr, page, PROT_READ | PROT_WRITE, MAP_SHARED, mem_fd, 0);
  if (record == MAP_FAILED) {
    std::perror("dmlcert-plugin-host: shared memory");
    return 2;
  }
  g_state.record = static_cast<FaultRecord*>(record);
  g_state.late_writes =
      reinterpret_cast<LateWriteLog*>(static_cast<std::byte*>(record) + LateWriteLog::kOffset);
  install_handlers();

  const std::string spec = argv[1];
  std::string error;
  std::unique_ptr<Backend> backend;
  // Counters that register while the plugin loads are its own (edge_counters.h).
  edge_counters::loading();
  if (spec.starts_with("plugin:"))
    backend = load_plugin(spec.substr(7), &error);
  else
    backend = backends::make_builtin(spec);
  edge_counters::loaded();
  if (backend == nullptr && error.empty()) error = "backend '" + spec + "' is not available";
  send_hello(backend.get(), error, handlers_replaced("while loading"), spec.starts_with("plugin:"));
  if (!backend) return 1;
  return serve(*backend, page, mem_fd, mem_read_only_fd);
}

// dmlcert-plugin-host: the isolation child. It loads one backend (a plugin through the C ABI, or
// a built-in by name), maps each call's buffers from shared memory with guard pages, and runs
// the calls the harness sends over its socket. When the backend faults, the signal handler notes
// what the address hit in the shared fault page and the process dies; the harness turns that
// into CRASH or OOB for the case and starts a fresh host.
//
// Usage (started by the harness, not by people): dmlcert-plugin-host SPEC
// with the socket on descriptor 3 and the shared memory on descriptor 4.
#include <signal.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <string>

#include "dmlcert/backend.h"
#include "plugin/plugin_backend.h"
#include "plugin/wire.h"

namespace dmlcert::plugin {
namespace {

// What the signal handler needs, kept in plain globals it may read.
struct GuardState {
  uintptr_t arena_begin = 0, arena_end = 0;
  uintptr_t region_begin[kRoleCount] = {}, region_end[kRoleCount] = {}, data_begin[kRoleCount] = {};
  bool is_input[kRoleCount] = {};
  uintptr_t page = 4096;
  wire::FaultRecord* record = nullptr;
};
GuardState g_state;

void on_fault(int sig, siginfo_t* info, void*) {
  const GuardState& s = g_state;
  auto addr = reinterpret_cast<uintptr_t>(info->si_addr);
  Fault fault = Fault::Crash;
  uint32_t role = kRoleCount;
  if (addr >= s.arena_begin && addr < s.arena_end) {
    fault = Fault::OutOfBounds;  // a guard page or a canary
    for (uint32_t r = 0; r < kRoleCount; ++r) {
      if (s.region_end[r] == 0) continue;
      if (addr >= s.data_begin[r] && addr < s.region_end[r]) {
        role = r;
        // Inside an input binding, which is mapped read-only: only a write faults there.
        if (s.is_input[r]) fault = Fault::InputWritten;
      } else if (addr >= s.region_begin[r] && addr < s.region_end[r] + s.page) {
        role = r;  // its canary, or the guard page right after it
      }
    }
  }
  if (s.record) {
    s.record->fault = static_cast<uint32_t>(fault);
    s.record->signal = static_cast<uint32_t>(sig);
    s.record->role = role;
    s.record->address = addr;
    s.record->code = info->si_code;
    s.record->offset = role < kRoleCount ? static_cast<int64_t>(addr - s.data_begin[role]) : 0;
    s.record->magic = wire::FaultRecord::kMagic;
  }
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

void install_handlers() {
  rlimit no_core{0, 0};
  ::setrlimit(RLIMIT_CORE, &no_core);  // a crashing plugin must not write core files per case
  static char alt_stack[1 << 16];      // handles stack overflows too
  stack_t ss{};
  ss.ss_sp = alt_stack;
  ss.ss_size = sizeof alt_stack;
  ::sigaltstack(&ss, nullptr);
  struct sigaction sa {};
  sa.sa_sigaction = on_fault;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
  ::sigaction(SIGSEGV, &sa, nullptr);
  ::sigaction(SIGBUS, &sa, nullptr);
}

// Maps a call's regions into a PROT_NONE arena: guard page, region, guard page, region, ...
// Inputs are read-only; the output is read-write. Returns false when mapping fails.
bool map_call(const wire::CallLayout& layout, Bindings& b) {
  uint64_t page = g_state.page, arena_bytes = page;
  for (const auto& r : layout.regions)
    if (r.present) arena_bytes += r.bytes + page;
  void* arena = ::mmap(nullptr, arena_bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (arena == MAP_FAILED) return false;
  auto base = reinterpret_cast<uintptr_t>(arena);
  g_state.arena_begin = base;
  g_state.arena_end = base + arena_bytes;
  uint64_t at = page;
  for (uint32_t i = 0; i < kRoleCount; ++i) {
    const auto& r = layout.regions[i];
    g_state.region_begin[i] = g_state.region_end[i] = g_state.data_begin[i] = 0;
    if (!r.present) continue;
    Role role = static_cast<Role>(i);
    int prot = is_input_role(role) ? PROT_READ : PROT_READ | PROT_WRITE;
    void* p = ::mmap(reinterpret_cast<void*>(base + at), r.bytes, prot, MAP_SHARED | MAP_FIXED, wire::kMemFd,
                     static_cast<off_t>(r.offset));
    if (p == MAP_FAILED) return false;
    g_state.region_begin[i] = base + at;
    g_state.region_end[i] = base + at + r.bytes;
    g_state.data_begin[i] = base + at + r.bytes - r.size;
    g_state.is_input[i] = is_input_role(role);
    auto* data = reinterpret_cast<std::byte*>(g_state.data_begin[i]);
    switch (role) {
      case Role::INPUT: b.input = {data, r.size}; break;
      case Role::INDICES: b.indices = {data, r.size}; break;
      case Role::UPDATES: b.updates = {data, r.size}; break;
      case Role::OUTPUT: b.output = {data, r.size}; break;
    }
    at += r.bytes + page;
  }
  return true;
}

void unmap_call() {
  if (g_state.arena_end)
    ::munmap(reinterpret_cast<void*>(g_state.arena_begin), g_state.arena_end - g_state.arena_begin);
  g_state.arena_begin = g_state.arena_end = 0;
  for (uint32_t i = 0; i < kRoleCount; ++i)
    g_state.region_begin[i] = g_state.region_end[i] = g_state.data_begin[i] = 0;
}

void send_hello(Backend* backend, const std::string& error) {
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
  for (OpKind op : kAllOps) {
    int functions = op == OpKind::REDUCE ? kReduceFunctionCount : 1;
    for (int f = 0; f < functions; ++f) {
      std::optional<ReduceFunction> fn;
      if (op == OpKind::REDUCE) fn = kAllReduceFunctions[f];
      for (DataType t : kAllDataTypes) w.u8(backend->implements(op, fn, t));
    }
  }
  wire::send_frame(wire::kSocketFd, w.bytes());
}

int serve(Backend& backend) {
  std::string request;
  while (wire::recv_frame(wire::kSocketFd, request, -1) == wire::Io::Ok) {
    wire::Reader rd(request);
    uint8_t level = rd.u8();
    auto desc = rd.desc();
    wire::CallLayout layout = wire::read_layout(rd);
    ExecResult result;
    Bindings b;
    if (!rd.ok() || !desc || level >= kFeatureLevelCount) {
      result = {Status::Error, Fault::None, "plugin host: malformed request", {}};
    } else if (!map_call(layout, b)) {
      result = {Status::Error,
                Fault::None,
                std::string("plugin host: cannot map buffers: ") + std::strerror(errno),
                {}};
    } else {
      result = backend.execute(*desc, static_cast<FeatureLevel>(level), b);
    }
    unmap_call();
    wire::Writer w;
    w.u32(static_cast<uint32_t>(result.status));
    w.str(result.message);
    w.u32(static_cast<uint32_t>(result.violations.size()));
    for (const auto& v : result.violations) w.str(v.rule), w.str(v.message);
    if (wire::send_frame(wire::kSocketFd, w.bytes()) != wire::Io::Ok) break;
  }
  return 0;
}

}  // namespace
}  // namespace dmlcert::plugin

int main(int argc, char** argv) {
  using namespace dmlcert;
  using namespace dmlcert::plugin;
  if (argc != 2) {
    std::fprintf(stderr, "usage: dmlcert-plugin-host SPEC (started by dmlcert, fds 3 and 4)\n");
    return 2;
  }
  g_state.page = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
  void* record = ::mmap(nullptr, g_state.page, PROT_READ | PROT_WRITE, MAP_SHARED, wire::kMemFd, 0);
  if (record == MAP_FAILED) {
    std::perror("dmlcert-plugin-host: shared memory");
    return 2;
  }
  g_state.record = static_cast<wire::FaultRecord*>(record);
  install_handlers();

  std::string spec = argv[1], error;
  std::unique_ptr<Backend> backend;
  if (spec.rfind("plugin:", 0) == 0) {
    backend = load_plugin(spec.substr(7), &error);
  } else {
    backend = make_backend(spec, &error);
  }
  if (backend == nullptr && error.empty()) error = "backend '" + spec + "' is not available";
  send_hello(backend.get(), error);
  if (!backend) return 1;
  return serve(*backend);
}

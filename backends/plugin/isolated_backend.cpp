#include "plugin/isolated_backend.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>
#include <thread>
#include <utility>

#include "dmlcert/interrupt.h"
#include "dmlcert/text.h"
#include "plugin/abi_convert.h"
#include "plugin/containment.h"
#include "plugin/wire.h"

namespace dmlcert::plugin {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// How long a child may take to exit once its socket closes (the backend's destroy, then exit)
// before shut_down() says it hung (BACKEND.DESTROY). Paid in full only by a backend that does hang
// there, once per run. One second was too little: on two cores running four test processes, a
// child that destroys in microseconds once took longer to get the CPU and exit.
constexpr double kExitGraceSeconds = 5.0;
// The same wait where nothing is checked: the destructor, which ends each of the short-lived
// backends that confirmations, bisections and shrinking start. A backend that hangs in destroy
// pays this for every one of them, so it stays short; a slow exit is killed, not reported.
constexpr double kQuietExitGraceSeconds = 1.0;

// Every live child, for kill_all_children() from a signal handler.
constexpr size_t kMaxChildren = 64;
// A deadline follows the machine: time the child spent ready to run but waiting for a CPU (a
// loaded machine, starved_seconds()) does not count against it, up to this many times the
// deadline in all. Why run-queue time rather than a calibration or the child's CPU time: a
// calibration at the start goes stale when a parallel build starts later, and CPU time cannot
// tell a starved call from a hang that sleeps (both use none), while run-queue time can: a hang
// that sleeps or blocks is never ready to run, so it is caught at its deadline on any machine,
// and one that spins is caught within this multiple of it however loaded the machine is.
constexpr double kStarvedDeadlineCap = 4.0;
std::array<std::atomic<pid_t>, kMaxChildren> g_children{};

void remember_child(pid_t pid) {
  for (auto& slot : g_children) {
    pid_t empty = 0;
    if (slot.compare_exchange_strong(empty, pid)) return;
  }
}
void forget_child(pid_t pid) {
  for (auto& slot : g_children) {
    pid_t p = pid;
    if (slot.compare_exchange_strong(p, 0)) return;
  }
}

int high_fd(int fd) {
  if (fd < 0 || fd >= 10) return fd;
  const int moved = ::fcntl(fd, F_DUPFD_CLOEXEC, 10);
  ::close(fd);
  return moved;
}

std::string describe_exit(int wstatus) {
  if (WIFSIGNALED(wstatus)) {
    const int sig = WTERMSIG(wstatus);
    const char* what = ::sigdescr_np(sig);
    return "killed by signal " + std::to_string(sig) + " (" + (what ? what : "?") + ")";
  }
  if (WIFEXITED(wstatus)) return "exited with status " + std::to_string(WEXITSTATUS(wstatus));
  return "stopped";
}

std::string bytes_text(uint64_t n) {
  char buf[32];
  if (n >= (uint64_t{1} << 30))
    std::snprintf(buf, sizeof buf, "%.1f GiB", static_cast<double>(n) / (1 << 30));
  else
    std::snprintf(buf, sizeof buf, "%.0f MiB", static_cast<double>(n) / (1 << 20));
  return buf;
}

// The child's resident bytes and CPU seconds (all threads), from /proc; 0 when unreadable.
uint64_t resident_bytes(pid_t pid) {
  std::ifstream statm("/proc/" + std::to_string(pid) + "/statm");
  uint64_t size = 0, resident = 0;
  statm >> size >> resident;
  return resident * static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
}
double cpu_seconds(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  const size_t close = text.rfind(')');  // the command name may hold spaces
  if (close == std::string::npos) return 0;
  std::istringstream fields(text.substr(close + 2));
  std::string field;
  uint64_t utime = 0, stime = 0;
  for (int i = 3; i <= 15 && fields >> field; ++i) {
    if (i == 14) utime = std::stoull(field);
    if (i == 15) stime = std::stoull(field);
  }
  return static_cast<double>(utime + stime) / static_cast<double>(::sysconf(_SC_CLK_TCK));
}

// How long the child's threads were ready to run but waited for a CPU, in seconds, summed over
// its threads (the second field of /proc/PID/task/TID/schedstat, in nanoseconds); 0 when
// unreadable.
double starved_seconds(pid_t pid) {
  uint64_t waited_ns = 0;
  std::error_code ec;
  for (fs::directory_iterator task("/proc/" + std::to_string(pid) + "/task", ec), end; !ec && task != end;
       task.increment(ec)) {
    std::ifstream schedstat(task->path() / "schedstat");
    uint64_t on_cpu = 0, waiting = 0;
    if (schedstat >> on_cpu >> waiting) waited_ns += waiting;
  }
  return static_cast<double>(waited_ns) * 1e-9;
}

// What the plugin printed during one call: the first `cap` bytes, and a count of the rest.
struct Captured {
  std::string text;
  uint64_t dropped = 0;
};

class IsolatedBackend : public Backend {
 public:
  IsolatedBackend(std::string spec, IsolationOptions options)
      : spec_(std::move(spec)), options_(std::move(options)) {}
  ~IsolatedBackend() override { stop(kQuietExitGraceSeconds); }

  bool init(std::string* error) {
    if (!memory_.init(error)) return false;
    if (options_.host_path.empty()) options_.host_path = find_host();
    if (options_.host_path.empty()) {
      *error = "cannot find dmlcert-plugin-host (set DMLCERT_PLUGIN_HOST)";
      return false;
    }
    return start(error);
  }

  std::string name() const override { return name_; }
  FeatureLevel max_feature_level() const override { return max_level_; }
  bool reports_rules() const override { return reports_rules_; }
  bool implements(OpKind op, std::optional<ReduceFunction> function, DataType type) const override {
    size_t row = 0;
    for (OpKind k : all_ops()) {
      if (k == op) break;
      row += functions_of(k);
    }
    if (has_function(op)) {
      if (!function || !is_valid(*function)) return false;
      row += static_cast<size_t>(*function);
    }
    return implemented_.at(row * kDataTypeCount + static_cast<size_t>(type)) != 0;
  }

  bool implements_index_type(OpKind op, DataType index_type) const override {
    return index_types_.at(static_cast<size_t>(op) * kDataTypeCount + static_cast<size_t>(index_type)) != 0;
  }

  std::string shut_down() override {
    if (pid_ < 0) return {};
    if (stop_requested()) {  // dmlcert's own kill, not the backend's doing
      stop(0);
      return {};
    }
    if (!stop(kExitGraceSeconds))
      return "the backend process did not exit within " +
             std::to_string(static_cast<int>(kExitGraceSeconds)) + " s of its last call (a hang in destroy?)";
    const bool clean = WIFEXITED(exit_status_) && WEXITSTATUS(exit_status_) == 0;
    return clean ? std::string()
                 : "the backend process " + describe_exit(exit_status_) + " while shutting down";
  }

  std::vector<LateFault> settle(double seconds) override {
    if (pid_ < 0 || calls_ == 0 || run_must_end()) return std::exchange(pending_late_, {});
    // A late write of the last call shows in the child's log (or kills it): wait for one, then
    // make sure with a round trip.
    const auto until =
        Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
    uint32_t claimed = 0;
    auto logged_since = [&] {
      memory_.late_writes(late_seen_, &claimed);
      return claimed > late_seen_;
    };
    while (Clock::now() < until && !exited() && !logged_since() && !run_must_end())
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    if (exited()) {
      collect_late_writes(0, nullptr);
      note_late_fault_or_drop();  // the child is gone: what its fault record says
    } else {
      ExecResult probe;
      ping(probe, calls_);
      collect_late_writes(0, nullptr);
      if (probe.fault != Fault::None) pending_late_.push_back(LateFault{calls_, probe.fault, probe.message});
    }
    return std::exchange(pending_late_, {});
  }

  ExecResult execute(const OperatorDesc& desc, FeatureLevel level, const Bindings& b) override {
    ExecResult result;
    if (run_must_end()) return finish(interrupted());
    // A child that died since the last call: a late fault of that call, reported now.
    if (pid_ >= 0 && exited()) {
      collect_late_writes(0, nullptr);
      note_late_fault_or_drop();
    } else if (pid_ >= 0 && retire_child_) {
      collect_late_writes(0, nullptr);
      stop(/*grace_seconds=*/0);
    }
    for (int attempt = 0;; ++attempt) {
      std::string error;
      if (pid_ < 0 && !start(&error))
        return finish(
            exec_result(Status::Error, Fault::Crash, "cannot restart the backend process: " + error));
      result = call(desc, level, b);
      // The child died of a late write of the previous call before this one ran: run it again
      // in a fresh child, once.
      if (result.fault == Fault::None && result.status == Status::Error && rerun_ && attempt == 0) {
        rerun_ = false;
        continue;
      }
      rerun_ = false;
      return finish(std::move(result));
    }
  }

 private:
  // Per-call results carry what happened to earlier calls, once.
  ExecResult finish(ExecResult r) {
    r.late = std::exchange(pending_late_, {});
    if (!loading_interference_.empty())
      r.interference =
          std::exchange(loading_interference_, {}) + (r.interference.empty() ? "" : "; ") + r.interference;
    return r;
  }

  static ExecResult interrupted() {
    return exec_result(Status::Error, Fault::None, "interrupted: the run is stopping");
  }

  // The late writes the child logged since the last look: the call `current`'s own go to `own`,
  // the others' to pending_late_, one per call.
  void collect_late_writes(uint64_t current, ExecResult* own) {
    uint32_t claimed = 0;
    const auto entries = memory_.late_writes(late_seen_, &claimed);
    late_seen_ += static_cast<uint32_t>(entries.size());
    for (const LateWriteLog::Entry& e : entries) {
      if (!late_reported_.insert(e.call).second) continue;
      const std::string message = late_write_message(e.role, e.offset);
      if (own && e.call == current) {
        if (own->fault == Fault::None) own->fault = Fault::LateWrite, own->message = message;
      } else {
        pending_late_.push_back(LateFault{e.call, Fault::LateWrite, message, /*ended_process=*/false});
      }
    }
    // A full log: the next late write would end the child. A fresh one before the next call.
    if (claimed >= LateWriteLog::kEntries / 2) retire_child_ = true;
  }

  static std::string late_write_message(uint32_t role, int64_t offset) {
    const std::string where = role < kRoleCount ? std::string(dmlcert::name(static_cast<Role>(role))) : "?";
    return "wrote to the " + where + " binding after the call had returned (byte offset " +
           std::to_string(offset) + ")";
  }

  static size_t functions_of(OpKind op) { return has_function(op) ? kReduceFunctionCount : 1; }

  double deadline_seconds(const CallLayout& layout) const {
    uint64_t bytes = 0;
    for (const Region& r : layout.regions) bytes += r.size;
    return options_.floor_seconds + static_cast<double>(bytes) / options_.bytes_per_second;
  }

  double load_deadline() const { return options_.load_seconds; }

  // What a deadline was made of, naming the option that changes it.
  std::string deadline_text(double deadline, bool loading) const {
    char buf[160];
    const double extra = deadline - options_.floor_seconds;
    if (loading)
      std::snprintf(buf, sizeof buf, "%.1f s of starting (--load-timeout)", deadline);
    else if (extra >= 0.05)
      std::snprintf(buf, sizeof buf, "%.1f s (--timeout %g s, plus %.1f s for the size of its bindings)",
                    deadline, options_.floor_seconds, extra);
    else
      std::snprintf(buf, sizeof buf, "%.1f s (--timeout)", deadline);
    return buf;
  }

  ExecResult call(const OperatorDesc& desc, FeatureLevel level, const Bindings& b) {
    std::array<uint64_t, kRoleCount> sizes{};
    for (Role r : roles(op_kind(desc))) sizes[static_cast<size_t>(r)] = b.of(r).size;
    const CallLayout layout = lay_out(roles(op_kind(desc)), sizes, memory_.page());
    if (!memory_.reserve(layout.total_bytes))
      return exec_result(
          Status::Error, Fault::None,
          "cannot grow shared memory to " + bytes_text(layout.total_bytes) + ": " + std::strerror(errno));
    memory_.place(layout, b);
    const uint64_t id = ++calls_;
    wire::Writer w;
    w.u8(static_cast<uint8_t>(wire::Request::Call));
    w.u64(id);
    w.u8(static_cast<uint8_t>(level));
    w.desc(desc);
    wire::write(w, layout);

    ExecResult result;
    result.call = id;
    captured_ = {};
    const double deadline = deadline_seconds(layout);
    std::string response;
    const auto sent = Clock::now();
    Wait waited = wire::send_frame(sock_, w.bytes()) == wire::Io::Ok ? wait(response, deadline) : Wait::Died;
    const double seconds = std::chrono::duration<double>(Clock::now() - sent).count();
    if (waited == Wait::Died && stop_requested()) {
      // dmlcert's own kill of its children on SIGINT or SIGTERM: nothing the backend did.
      reap(false);
      return interrupted();
    }
    if (waited == Wait::Died) {
      // Died before or during this call: its fault record says which.
      const FaultRecord record = memory_.fault_record();
      if (record.magic == FaultRecord::kMagic && record.call < id) {
        note_late_fault(record);
        reap(false);
        rerun_ = true;
        return exec_result(Status::Error, Fault::None,
                           "the backend process died of a fault of an earlier call");
      }
      result = died(record);
    } else if (waited != Wait::Answered) {
      result = killed(waited, deadline_text(deadline, false));
    } else {
      read_response(response, result, op_kind(desc));
      if (auto fault = memory_.check(layout, b)) result.fault = fault->first, result.message = fault->second;
      // A thread the plugin left running faults on the retired bindings at its next write; a
      // round trip right after the call catches the usual case, a write loop, in this call.
      if (result.fault == Fault::None) ping(result, id);
      collect_late_writes(id, &result);
      memory_.copy_output(layout, b.output);
    }
    result.call = id;
    result.seconds = seconds;
    result.output_text = std::move(captured_.text);
    result.output_dropped = captured_.dropped;
    return result;
  }

  void read_response(const std::string& response, ExecResult& result, OpKind op) {
    wire::Reader rd(response);
    const uint32_t status = rd.u32();
    result.status =
        status <= static_cast<uint32_t>(Status::Error) ? static_cast<Status>(status) : Status::Error;
    result.message = rd.str();
    for (uint32_t n = rd.u32(), i = 0; rd.ok() && i < n; ++i) {
      std::string rule = rd.str();
      result.violations.push_back({rule, rd.str()});
    }
    result.not_asked = rd.u8() != 0;
    result.interference = rd.str();
    const auto edges = rd.vec<uint32_t>();
    if (rd.ok() && !coverage_stale_) result.new_edges = coverage_.add(op, edges);
    if (!rd.ok())
      result = exec_result(Status::Error, Fault::None, "malformed answer from the backend process");
  }

  void ping(ExecResult& result, uint64_t id) {
    wire::Writer w;
    w.u8(static_cast<uint8_t>(wire::Request::Ping));
    std::string pong;
    const Wait waited =
        wire::send_frame(sock_, w.bytes()) == wire::Io::Ok ? wait(pong, options_.floor_seconds) : Wait::Died;
    if (waited == Wait::Answered) return;
    if (stop_requested() && (waited == Wait::Died || waited == Wait::Interrupted)) {
      reap(true);
      return;
    }
    if (waited != Wait::Died) {
      ExecResult k = killed(waited, deadline_text(options_.floor_seconds, false));
      result.fault = k.fault, result.message = "after the call returned: " + k.message;
      return;
    }
    const FaultRecord record = memory_.fault_record();
    if (record.magic == FaultRecord::kMagic && record.call < id) {
      // An earlier call's thread, not this call: that call carries the fault.
      note_late_fault(record);
      reap(false);
      return;
    }
    const ExecResult d = died(record);
    result.fault = d.fault;
    result.message =
        (record.magic == FaultRecord::kMagic && record.call == id ? "" : "after the call returned: ") +
        d.message;
  }

  // Garbage: bytes on the channel that are not a frame (wire.h), which only the plugin can have
  // written there.
  enum class Wait { Answered, Died, Timeout, MemoryLimit, CpuLimit, Interrupted, Garbage };

  // Waits for one frame, draining the plugin's output and watching its deadline, its memory, its
  // CPU time and the run's stop request and time bound meanwhile. Bytes read past the frame stay
  // in inbox_ for the next wait, so that whatever the plugin writes into the channel shows.
  // The deadline does not count time the child was starved of a CPU (kStarvedDeadlineCap).
  Wait wait(std::string& frame, double deadline_seconds) {
    const auto start = Clock::now();
    auto after = [&](double seconds) {
      return start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
    };
    auto deadline = after(deadline_seconds);
    const auto last_deadline = after(deadline_seconds * kStarvedDeadlineCap);
    const double cpu_start = options_.cpu_seconds_per_call > 0 ? cpu_seconds(host_pid_) : 0;
    // Read once the call has taken a tick: most calls answer within one, and never pay for /proc.
    std::optional<double> starved_start;
    std::string& buffer = inbox_;
    while (true) {
      if (!buffer.empty()) {
        const wire::FrameHeader h = wire::read_frame_header(buffer.data(), buffer.size());
        if (!h.header_ok) return Wait::Garbage;
        if (h.complete && buffer.size() - wire::kFrameHeaderBytes >= h.payload_bytes) {
          frame = buffer.substr(wire::kFrameHeaderBytes, h.payload_bytes);
          buffer.erase(0, wire::kFrameHeaderBytes + h.payload_bytes);
          drain_output();
          return Wait::Answered;
        }
      }
      if (run_must_end()) return Wait::Interrupted;
      // A process the plugin forked may hold the socket open after the child died: ask the
      // kernel, not the socket.
      if (exited()) return Wait::Died;
      auto now = Clock::now();
      if (now >= deadline && starved_start) {
        const double starved = starved_seconds(host_pid_) - *starved_start;
        deadline = std::min(last_deadline, after(deadline_seconds + std::max(0.0, starved)));
        now = Clock::now();
      }
      if (now >= deadline) return Wait::Timeout;
      const int tick = static_cast<int>(std::min<int64_t>(
          20, std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now).count() + 1));
      pollfd fds[2] = {{sock_, POLLIN, 0}, {out_fd_, POLLIN, 0}};
      const int ready = ::poll(fds, out_fd_ >= 0 ? 2 : 1, tick);
      if (ready < 0 && errno != EINTR) return Wait::Died;
      if (ready == 0 && !starved_start && host_pid_ > 0) starved_start = starved_seconds(host_pid_);
      if (ready > 0 && (fds[1].revents & (POLLIN | POLLHUP))) drain_output();
      if (ready > 0 && (fds[0].revents & (POLLIN | POLLHUP | POLLERR))) {
        char chunk[1 << 16];
        const ssize_t k = ::read(sock_, chunk, sizeof chunk);
        if (k == 0 || (k < 0 && errno != EINTR && errno != EAGAIN)) return Wait::Died;
        if (k > 0) buffer.append(chunk, static_cast<size_t>(k));
        continue;
      }
      if (options_.memory_limit_bytes && resident_bytes(host_pid_) > options_.memory_limit_bytes)
        return Wait::MemoryLimit;
      if (options_.cpu_seconds_per_call > 0 &&
          cpu_seconds(host_pid_) - cpu_start > options_.cpu_seconds_per_call)
        return Wait::CpuLimit;
    }
  }

  // What the plugin wrote into the channel: how much, and the first bytes of it.
  std::string garbage_text() {
    char chunk[1 << 16];
    while (true) {  // what else is there already
      const ssize_t k = ::recv(sock_, chunk, sizeof chunk, MSG_DONTWAIT);
      if (k <= 0) break;
      inbox_.append(chunk, static_cast<size_t>(k));
      if (inbox_.size() > (1u << 20)) break;
    }
    const size_t n = inbox_.size();
    return "the backend wrote into dmlcert's channel to its process (descriptor " +
           std::to_string(wire::kSocketFd) + "): " + std::to_string(n) + (n == 1 ? " byte" : " bytes") +
           " that are not dmlcert's messages, starting \"" + printable(inbox_.substr(0, 48), 120) + "\"";
  }

  void drain_output() {
    if (out_fd_ < 0) return;
    char chunk[1 << 16];
    while (true) {
      const size_t room =
          options_.output_cap > captured_.text.size() ? options_.output_cap - captured_.text.size() : 0;
      if (room == 0 && discard_output()) return;
      const ssize_t k = ::read(out_fd_, chunk, sizeof chunk);
      if (k <= 0) return;
      const size_t keep = std::min(room, static_cast<size_t>(k));
      captured_.text.append(chunk, keep);
      captured_.dropped += static_cast<uint64_t>(k) - keep;
    }
  }

  // Past the cap, the plugin's output is only counted: moved into /dev/null inside the kernel,
  // never copied into this process (a plugin printing 10 MB a call cost a certification most of
  // its time in read()). False when the kernel cannot splice the pipe; the caller reads instead.
  bool discard_output() {
    static const int null_fd = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
    if (null_fd < 0) return false;
    while (true) {
      const ssize_t k = ::splice(out_fd_, nullptr, null_fd, nullptr, size_t{1} << 20, SPLICE_F_NONBLOCK);
      if (k > 0) {
        captured_.dropped += static_cast<uint64_t>(k);
        continue;
      }
      if (k == 0 || errno == EAGAIN) return true;
      if (errno != EINTR) return false;
    }
  }

  // `deadline`: deadline_text() of the deadline that passed.
  ExecResult killed(Wait why, const std::string& deadline) {
    const uint64_t rss = resident_bytes(host_pid_);
    const std::string garbage = why == Wait::Garbage ? garbage_text() : "";
    reap(true);
    switch (why) {
      case Wait::Timeout: return exec_result(Status::Error, Fault::Timeout, "no answer within " + deadline);
      case Wait::Garbage: return exec_result(Status::Error, Fault::Crash, garbage);
      case Wait::MemoryLimit:
        return exec_result(Status::Error, Fault::Limit,
                           "the backend process used " + bytes_text(rss) + ", over its memory limit of " +
                               bytes_text(options_.memory_limit_bytes) + " (--memory-limit)");
      case Wait::CpuLimit: {
        char buf[128];
        std::snprintf(buf, sizeof buf, "the call used more than %.1f s of CPU time (--cpu-limit)",
                      options_.cpu_seconds_per_call);
        return exec_result(Status::Error, Fault::Limit, buf);
      }
      case Wait::Interrupted:
        return exec_result(Status::Error, Fault::None, "interrupted: the run is stopping");
      default: return exec_result(Status::Error, Fault::Crash, "the backend process stopped answering");
    }
  }

  // The child is gone: what its fault record says happened in the call that was running.
  ExecResult died(const FaultRecord& record) {
    drain_output();
    const int wstatus = reap(false);
    ExecResult result = exec_result(Status::Error, Fault::Crash, "backend process " + describe_exit(wstatus));
    if (record.magic != FaultRecord::kMagic) return result;
    const std::string where =
        record.role < kRoleCount ? std::string(dmlcert::name(static_cast<Role>(record.role))) : "?";
    result.fault = static_cast<Fault>(record.fault);
    switch (result.fault) {
      case Fault::InputWritten:
        result.message =
            "wrote to the read-only " + where + " binding at byte " + std::to_string(record.offset);
        break;
      case Fault::OutOfBounds:
        result.message = "touched a guard page or canary of the " + where + " binding at byte offset " +
                         std::to_string(record.offset) + " from its start";
        break;
      case Fault::LateWrite:
        result.message = "wrote to the " + where + " binding of call " + std::to_string(record.call) +
                         " after that call had returned (byte offset " + std::to_string(record.offset) + ")";
        break;
      default: {
        result.fault = Fault::Crash;
        if (record.code <= 0) {
          result.message += " (raised by the backend itself, not by a memory access)";
        } else {
          char addr[32];
          std::snprintf(addr, sizeof addr, "%#llx", static_cast<unsigned long long>(record.address));
          result.message += std::string(" at address ") + addr + " (outside every binding)";
        }
      }
    }
    return result;
  }

  bool exited() {
    if (reaped_) return true;
    int wstatus = 0;
    if (pid_ < 0 || ::waitpid(pid_, &wstatus, WNOHANG) != pid_) return false;
    exit_status_ = memory_.child_exit().value_or(wstatus);
    reaped_ = true;
    return true;
  }
  // The child died between calls, after the last call had returned: a thread it left running
  // wrote into retired bindings or crashed it. Either way the fault belongs to that call.
  void note_late_fault_or_drop() {
    const FaultRecord record = memory_.fault_record();
    if (stop_requested()) {
      // dmlcert killed it on SIGINT or SIGTERM: nothing to blame on a call.
    } else if (record.magic == FaultRecord::kMagic) {
      note_late_fault(record);
    } else if (calls_ > 0) {
      pending_late_.push_back(
          LateFault{calls_, Fault::Crash,
                    "the backend process " + describe_exit(exit_status_) + " after the call had returned"});
    }
    kill_group();  // whatever it forked
    forget_child(pid_);
    pid_ = -1;
    close_fds();
  }
  void note_late_fault(const FaultRecord& record) {
    if (record.fault == static_cast<uint32_t>(Fault::LateWrite)) {
      if (late_reported_.insert(record.call).second)  // not logged already (the log gives one per call)
        pending_late_.push_back(
            LateFault{record.call, Fault::LateWrite, late_write_message(record.role, record.offset)});
    } else {
      pending_late_.push_back(LateFault{record.call, Fault::Crash,
                                        "the backend process crashed (signal " +
                                            std::to_string(record.signal) + ") after the call had returned"});
    }
  }

  bool start(std::string* error) {
    int sv[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
      *error = std::string("socketpair: ") + std::strerror(errno);
      return false;
    }
    int out[2];
    if (::pipe2(out, O_CLOEXEC) != 0) {
      ::close(sv[0]), ::close(sv[1]);
      *error = std::string("pipe: ") + std::strerror(errno);
      return false;
    }
    collect_late_writes(0, nullptr);  // what the last child logged before it went
    memory_.clear_fault_record();
    late_seen_ = 0;
    late_reported_.clear();
    retire_child_ = false;
    const int child_sock = high_fd(sv[1]), child_out = high_fd(out[1]);
    sock_ = sv[0];
    out_fd_ = out[0];
    ::fcntl(out_fd_, F_SETFL, O_NONBLOCK);
    // A larger pipe wakes this side less often for a plugin that prints a lot (best effort: the
    // system may refuse the size).
    ::fcntl(out_fd_, F_SETPIPE_SZ, 1 << 20);
    HostLaunch launch;
    launch.path = options_.host_path;
    launch.args = {spec_, std::to_string(::getpid())};
    launch.socket_fd = child_sock;
    launch.memory_fd = memory_.fd();
    launch.output_fd = child_out;
    pid_ = launch_host(launch, error);
    ::close(child_sock);
    ::close(child_out);
    if (pid_ < 0) {
      close_fds();
      return false;
    }
    host_pid_ = pid_;
    inbox_.clear();
    reaped_ = false;
    remember_child(pid_);
    captured_ = {};
    std::string hello;
    const Wait waited = wait(hello, load_deadline());
    if (waited != Wait::Answered) {
      const std::string printed = captured_.text;
      const ExecResult why = waited == Wait::Died ? died(memory_.fault_record())
                                                  : killed(waited, deadline_text(load_deadline(), true));
      *error = "the backend process " + (waited == Wait::Died ? "died while loading: " + why.message
                                                              : "did not start: " + why.message);
      if (!printed.empty()) *error += "; it printed: " + printed.substr(0, 2000);
      return false;
    }
    wire::Reader rd(hello);
    if (!rd.u8()) {
      *error = rd.str();
      reap(false);
      return false;
    }
    name_ = rd.str();
    max_level_ = static_cast<FeatureLevel>(std::min<uint8_t>(rd.u8(), kFeatureLevelCount - 1));
    reports_rules_ = rd.u8() != 0;
    size_t rows = 0;
    for (OpKind k : all_ops()) rows += functions_of(k);
    implemented_.assign(rows * kDataTypeCount, 0);
    for (auto& cell : implemented_) cell = rd.u8();
    index_types_.assign(kOpCount * kDataTypeCount, 0);
    for (auto& claim : index_types_) claim = rd.u8();
    loading_interference_ = rd.str();
    read_coverage_map(rd);
    host_pid_ = host_process(pid_);
    if (!rd.ok()) {
      *error = "malformed greeting from the backend process";
      reap(true);
      return false;
    }
    return true;
  }

  // The greeting's map of the plugin's edges (edge_counters.h). Every fresh process sends it; the
  // first one's is kept, and a later one that differs (the plugin file replaced during the run)
  // is not merged into it.
  void read_coverage_map(wire::Reader& rd) {
    CodeCoverage map;
    map.instrumented = rd.u8() != 0;
    if (!map.instrumented) {
      map.why_not = rd.str();
    } else {
      for (uint32_t n = rd.u32(), m = 0; rd.ok() && m < n; ++m) {
        CodeCoverage::Module module{rd.str(), static_cast<uint32_t>(map.edges.size()), 0};
        const auto addresses = rd.vec<uint64_t>();
        const auto starts = rd.vec<uint8_t>();
        if (starts.size() != addresses.size()) {
          rd.fail();  // a malformed greeting
          break;
        }
        module.edge_count = static_cast<uint32_t>(addresses.size());
        for (size_t i = 0; i < addresses.size(); ++i) map.edges.push_back({addresses[i], starts[i] != 0});
        map.modules.push_back(std::move(module));
      }
    }
    const auto loading = map.instrumented ? rd.vec<uint32_t>() : std::vector<uint32_t>{};
    if (!rd.ok()) return;
    const bool first = !coverage_known_;
    if (first) {
      coverage_ = std::move(map);
      coverage_.reached_loading.assign(coverage_.edges.size(), 0);
      coverage_known_ = true;
    } else if (!coverage_stale_ &&
               (map.edges.size() != coverage_.edges.size() || map.instrumented != coverage_.instrumented)) {
      coverage_stale_ = true;
      coverage_.partial = "a later process of the plugin had another map of edges (" +
                          std::to_string(map.edges.size()) + " instead of " +
                          std::to_string(coverage_.edges.size()) +
                          ": the plugin file changed during the run); the calls after it are not counted";
    }
    if (!coverage_stale_)
      for (uint32_t i : loading)
        if (i < coverage_.reached_loading.size()) coverage_.reached_loading[i] = 1;
  }

 public:
  const CodeCoverage* code_coverage() const override { return coverage_known_ ? &coverage_ : nullptr; }

 private:
  // The child's process group (the child leads it), never anything else: kill(-1) would be every
  // process there is.
  void kill_group() {
    if (pid_ > 1) ::kill(-pid_, SIGKILL);
  }

  void close_fds() {
    if (sock_ >= 0) ::close(sock_), sock_ = -1;
    if (out_fd_ >= 0) ::close(out_fd_), out_fd_ = -1;
  }

  // Closes the channels and collects the child; kills its process group first unless it may
  // exit by itself.
  int reap(bool kill_first) {
    close_fds();
    if (pid_ < 0) return exit_status_;
    if (kill_first && !reaped_) kill_group();
    int wstatus = exit_status_;
    if (!reaped_) {
      ::waitpid(pid_, &wstatus, 0);
      // Under a namespace's first process, how the host itself ended (namespace_init.h).
      wstatus = memory_.child_exit().value_or(wstatus);
    }
    exit_status_ = wstatus;
    // Whatever the plugin forked into the group goes too.
    kill_group();
    forget_child(pid_);
    pid_ = -1;
    return wstatus;
  }

  // Ends the child; whether it ended by itself within grace_seconds after its socket closed (0:
  // killed at once).
  bool stop(double grace_seconds) {
    if (pid_ < 0) return true;
    bool by_itself = false;
    if (grace_seconds > 0) {
      close_fds();  // the child exits when its socket closes
      const auto until = Clock::now() + std::chrono::duration<double>(grace_seconds);
      while (!(by_itself = exited()) && Clock::now() < until)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    reap(true);
    return by_itself;
  }

  std::string spec_;
  IsolationOptions options_;
  SharedCallMemory memory_;
  pid_t pid_ = -1;       // the process launch_host() started: the one to wait for and kill
  pid_t host_pid_ = -1;  // the host process proper (host_process()): its memory and CPU time count
  int sock_ = -1, out_fd_ = -1;
  std::string inbox_;  // read from the channel, not yet a whole frame
  // What the backend did to its process while it was loaded (its fault handlers replaced): given
  // with the first call's result.
  std::string loading_interference_;
  int exit_status_ = 0;
  bool reaped_ = false;  // waitpid has collected pid_ (its status is exit_status_)
  uint64_t calls_ = 0;
  bool rerun_ = false;
  std::vector<LateFault> pending_late_;
  uint32_t late_seen_ = 0;            // entries of the child's LateWriteLog read
  std::set<uint64_t> late_reported_;  // calls whose late write was reported
  bool retire_child_ = false;         // the log is half full: a fresh child before the next call
  Captured captured_;
  std::string name_;
  FeatureLevel max_level_ = FeatureLevel::L1_0;
  bool reports_rules_ = false;
  std::vector<uint8_t> implemented_;
  std::vector<uint8_t> index_types_;  // (operator, index type) -> claimed
  CodeCoverage coverage_;             // the plugin's edges and what the calls reached
  bool coverage_known_ = false;       // a greeting has brought the map
  bool coverage_stale_ = false;       // a later process's map differed: nothing more is added
};

}  // namespace

uint64_t default_memory_limit() {
  const uint64_t physical =
      static_cast<uint64_t>(::sysconf(_SC_PHYS_PAGES)) * static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
  return std::clamp<uint64_t>(physical / 8, uint64_t{512} << 20, uint64_t{2} << 30);
}

std::string find_host() {
  const char* kName = "dmlcert-plugin-host";
  std::vector<fs::path> candidates;
  if (const char* env = std::getenv("DMLCERT_PLUGIN_HOST")) candidates.emplace_back(env);
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    candidates.push_back(self.parent_path() / kName);
    candidates.push_back(self.parent_path().parent_path() / "libexec" / kName);
  }
#ifdef DMLCERT_PLUGIN_HOST_BUILD_PATH
  candidates.emplace_back(DMLCERT_PLUGIN_HOST_BUILD_PATH);
#endif
#ifdef DMLCERT_PLUGIN_HOST_INSTALL_PATH
  candidates.emplace_back(DMLCERT_PLUGIN_HOST_INSTALL_PATH);
#endif
  for (const auto& c : candidates)
    if (::access(c.c_str(), X_OK) == 0) return c.string();
  return {};
}

std::unique_ptr<Backend> make_isolated_backend(const std::string& spec, const IsolationOptions& options,
                                               std::string* error) {
  auto backend = std::make_unique<IsolatedBackend>(spec, options);
  std::string why;
  if (!backend->init(&why)) {
    if (error) *error = why;
    return nullptr;
  }
  return backend;
}

void kill_all_children() {
  for (auto& slot : g_children) {
    const pid_t pid = slot.load();
    if (pid > 0) ::kill(-pid, SIGKILL);
  }
}

}  // namespace dmlcert::plugin

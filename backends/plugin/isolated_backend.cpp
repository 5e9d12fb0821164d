#include "plugin/isolated_backend.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <thread>

#include "plugin/wire.h"

extern char** environ;

namespace dmlcert::plugin {
namespace {

namespace fs = std::filesystem;

// A descriptor numbered 10 or more, so that dup2() onto 3 and 4 in the child never finds its
// source already sitting there (dup2(fd, fd) would keep FD_CLOEXEC set).
int high_fd(int fd) {
  if (fd >= 10) return fd;
  int moved = ::fcntl(fd, F_DUPFD_CLOEXEC, 10);
  ::close(fd);
  return moved;
}

std::string describe_exit(int wstatus) {
  if (WIFSIGNALED(wstatus)) {
    int sig = WTERMSIG(wstatus);
    const char* what = ::sigdescr_np(sig);
    return "killed by signal " + std::to_string(sig) + " (" + (what ? what : "?") + ")";
  }
  if (WIFEXITED(wstatus)) return "exited with status " + std::to_string(WEXITSTATUS(wstatus));
  return "stopped";
}

class IsolatedBackend : public Backend {
 public:
  IsolatedBackend(std::string spec, IsolationOptions options)
      : spec_(std::move(spec)), options_(std::move(options)) {
    page_ = static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
  }
  ~IsolatedBackend() override {
    stop(/*graceful=*/true);
    if (shm_) ::munmap(shm_, shm_bytes_);
    if (memfd_ >= 0) ::close(memfd_);
  }

  bool init(std::string* error) {
    memfd_ = high_fd(::memfd_create("dmlcert-buffers", MFD_CLOEXEC));
    if (memfd_ < 0 || !ensure_shm(page_)) {
      *error = std::string("cannot create shared memory: ") + std::strerror(errno);
      return false;
    }
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
    size_t row = static_cast<size_t>(op);
    if (op == OpKind::REDUCE) {
      if (!function || !is_valid(*function)) return false;
      row += static_cast<size_t>(*function);
    } else if (op > OpKind::REDUCE) {
      row += kReduceFunctionCount - 1;
    }
    return implemented_.at(row * kDataTypeCount + static_cast<size_t>(type)) != 0;
  }

  ExecResult execute(const OperatorDesc& desc, FeatureLevel level, const Bindings& b) override {
    std::string error;
    if (pid_ < 0 && !start(&error))
      return {Status::Error, Fault::Crash, "cannot restart the backend process: " + error, {}};

    std::vector<Role> op_roles = roles(op_kind(desc));
    uint64_t sizes[kRoleCount] = {};
    for (Role r : op_roles) sizes[static_cast<size_t>(r)] = b.of(r).size;
    wire::CallLayout layout = wire::lay_out(op_roles, sizes, page_);
    if (!ensure_shm(layout.total_bytes))
      return {
          Status::Error, Fault::None, std::string("cannot grow shared memory: ") + std::strerror(errno), {}};
    std::memset(shm_, 0, sizeof(wire::FaultRecord));
    for (Role r : op_roles) {
      const wire::Region& region = layout.regions[static_cast<size_t>(r)];
      std::memset(shm_ + region.offset, wire::kCanary, region.bytes - region.size);
      if (region.size) std::memcpy(shm_ + region.data_offset(), b.of(r).data, region.size);
    }

    wire::Writer w;
    w.u8(static_cast<uint8_t>(level));
    w.desc(desc);
    wire::write(w, layout);
    std::string response;
    wire::Io io = wire::send_frame(sock_, w.bytes());
    if (io == wire::Io::Ok) io = wire::recv_frame(sock_, response, timeout_ms());
    if (io == wire::Io::Timeout) {
      stop(/*graceful=*/false);
      return {Status::Error,
              Fault::Timeout,
              "no answer within " + std::to_string(options_.timeout_seconds) + " s",
              {}};
    }
    if (io != wire::Io::Ok) return died();

    ExecResult result;
    wire::Reader rd(response);
    uint32_t status = rd.u32();
    result.status =
        status <= static_cast<uint32_t>(Status::Error) ? static_cast<Status>(status) : Status::Error;
    result.message = rd.str();
    for (uint32_t n = rd.u32(), i = 0; rd.ok() && i < n; ++i) {
      std::string rule = rd.str();
      result.violations.push_back({rule, rd.str()});
    }
    check_guards(layout, b, result);
    const wire::Region& out = layout.regions[static_cast<size_t>(Role::OUTPUT)];
    if (out.size) std::memcpy(b.output.data, shm_ + out.data_offset(), out.size);
    return result;
  }

 private:
  int timeout_ms() const { return static_cast<int>(std::ceil(options_.timeout_seconds * 1000)); }

  bool ensure_shm(uint64_t bytes) {
    if (bytes <= shm_bytes_) return true;
    if (::ftruncate(memfd_, static_cast<off_t>(bytes)) != 0) return false;
    if (shm_) ::munmap(shm_, shm_bytes_);
    void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, memfd_, 0);
    if (p == MAP_FAILED) {
      shm_ = nullptr, shm_bytes_ = 0;
      return false;
    }
    shm_ = static_cast<std::byte*>(p), shm_bytes_ = bytes;
    return true;
  }

  bool start(std::string* error) {
    int fds[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) {
      *error = std::string("socketpair: ") + std::strerror(errno);
      return false;
    }
    int child_end = high_fd(fds[1]);
    sock_ = fds[0];
    posix_spawn_file_actions_t actions;
    ::posix_spawn_file_actions_init(&actions);
    ::posix_spawn_file_actions_adddup2(&actions, child_end, wire::kSocketFd);
    ::posix_spawn_file_actions_adddup2(&actions, memfd_, wire::kMemFd);
    // The backend's own prints must not mix into dmlcert's machine-readable stdout.
    ::posix_spawn_file_actions_adddup2(&actions, STDERR_FILENO, STDOUT_FILENO);
    std::string host = options_.host_path;
    std::vector<char*> argv = {host.data(), spec_.data(), nullptr};
    int rc = ::posix_spawn(&pid_, host.c_str(), &actions, nullptr, argv.data(), environ);
    ::posix_spawn_file_actions_destroy(&actions);
    ::close(child_end);
    if (rc != 0) {
      pid_ = -1;
      ::close(sock_), sock_ = -1;
      *error = "cannot start " + host + ": " + std::strerror(rc);
      return false;
    }
    std::string hello;
    wire::Io io = wire::recv_frame(sock_, hello, timeout_ms() + 10000);
    if (io != wire::Io::Ok) {
      int wstatus = reap(io == wire::Io::Timeout);
      *error = "backend process " +
               (io == wire::Io::Timeout ? std::string("did not start in time") : describe_exit(wstatus));
      return false;
    }
    wire::Reader rd(hello);
    if (!rd.u8()) {
      *error = rd.str();
      reap(false);
      return false;
    }
    name_ = rd.str();
    max_level_ = static_cast<FeatureLevel>(rd.u8());
    reports_rules_ = rd.u8() != 0;
    implemented_.assign((kOpCount - 1 + kReduceFunctionCount) * kDataTypeCount, 0);
    for (auto& cell : implemented_) cell = rd.u8();
    if (!rd.ok()) {
      *error = "malformed greeting from the backend process";
      reap(true);
      return false;
    }
    return true;
  }

  // Closes the socket and collects the child; kills it first unless it may exit by itself.
  int reap(bool kill_first) {
    if (sock_ >= 0) ::close(sock_), sock_ = -1;
    if (pid_ < 0) return 0;
    if (kill_first) ::kill(pid_, SIGKILL);
    int wstatus = 0;
    ::waitpid(pid_, &wstatus, 0);
    pid_ = -1;
    return wstatus;
  }

  void stop(bool graceful) {
    if (pid_ < 0) return;
    if (graceful) {
      if (sock_ >= 0) ::close(sock_), sock_ = -1;  // the host exits when its socket closes
      for (int i = 0; i < 100; ++i) {
        int wstatus;
        if (::waitpid(pid_, &wstatus, WNOHANG) == pid_) {
          pid_ = -1;
          return;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      }
    }
    reap(true);
  }

  ExecResult died() {
    int wstatus = reap(false);
    wire::FaultRecord record;
    std::memcpy(&record, shm_, sizeof record);
    ExecResult result{Status::Error, Fault::Crash, "backend process " + describe_exit(wstatus), {}};
    if (record.magic == wire::FaultRecord::kMagic && record.fault != static_cast<uint32_t>(Fault::Crash)) {
      result.fault = static_cast<Fault>(record.fault);
      std::string where =
          record.role < kRoleCount ? std::string(dmlcert::name(static_cast<Role>(record.role))) : "?";
      if (result.fault == Fault::InputWritten)
        result.message =
            "wrote to the read-only " + where + " binding at byte " + std::to_string(record.offset);
      else
        result.message = "touched a guard page or canary of the " + where + " binding at byte offset " +
                         std::to_string(record.offset) + " from its start";
    } else if (record.magic == wire::FaultRecord::kMagic && record.code <= 0) {
      result.message += " (raised by the backend itself, not by a memory access)";
    } else if (record.magic == wire::FaultRecord::kMagic) {
      char addr[32];
      std::snprintf(addr, sizeof addr, "%#llx", static_cast<unsigned long long>(record.address));
      result.message += std::string(" at address ") + addr + " (outside every binding)";
    }
    return result;
  }

  // Canaries in front of every binding must be intact, and inputs unchanged.
  void check_guards(const wire::CallLayout& layout, const Bindings& b, ExecResult& result) {
    for (uint32_t i = 0; i < kRoleCount; ++i) {
      const wire::Region& region = layout.regions[i];
      if (!region.present) continue;
      Role role = static_cast<Role>(i);
      const std::byte* p = shm_ + region.offset;
      for (uint64_t k = 0; k < region.bytes - region.size; ++k) {
        if (p[k] != std::byte{wire::kCanary}) {
          result.fault = Fault::OutOfBounds;
          result.message = "wrote " + std::to_string(region.bytes - region.size - k) + " bytes before the " +
                           std::string(dmlcert::name(role)) + " binding (canary changed)";
          return;
        }
      }
      if (is_input_role(role) && region.size &&
          std::memcmp(shm_ + region.data_offset(), b.of(role).data, region.size) != 0) {
        result.fault = Fault::InputWritten;
        result.message = "the " + std::string(dmlcert::name(role)) + " binding changed";
        return;
      }
    }
  }

  std::string spec_;
  IsolationOptions options_;
  uint64_t page_ = 4096;
  pid_t pid_ = -1;
  int sock_ = -1, memfd_ = -1;
  std::byte* shm_ = nullptr;
  uint64_t shm_bytes_ = 0;
  std::string name_;
  FeatureLevel max_level_ = FeatureLevel::L1_0;
  bool reports_rules_ = false;
  std::vector<uint8_t> implemented_;
};

}  // namespace

std::string find_host() {
  const char* kName = "dmlcert-plugin-host";
  std::vector<fs::path> candidates;
  if (const char* env = std::getenv("DMLCERT_PLUGIN_HOST")) candidates.emplace_back(env);
  std::error_code ec;
  fs::path self = fs::read_symlink("/proc/self/exe", ec);
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

}  // namespace dmlcert::plugin

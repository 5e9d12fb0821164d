#include "plugin/containment.h"

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>

extern char** environ;

namespace dmlcert::plugin {
namespace {

// What the cloned child does before it becomes the host: everything it touches is prepared here
// by the parent, because the child shares the parent's memory until it executes the host (as
// posix_spawn's child does) and may only make system calls.
struct ChildPlan {
  const char* path = nullptr;  // null: a probe, which exits once its namespaces are set up
  char* const* argv = nullptr;
  int socket_fd = -1, memory_fd = -1, output_fd = -1, null_fd = -1;
  bool user_namespace = false;
  char uid_map[64] = {}, gid_map[64] = {};
  int report_fd = -1;  // the write end of a close-on-exec pipe: the errno of a step that failed
};

bool write_proc_file(const char* path, const char* text) {
  const int fd = ::open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const auto n = static_cast<ssize_t>(std::strlen(text));
  const bool ok = ::write(fd, text, static_cast<size_t>(n)) == n;
  ::close(fd);
  return ok;
}

[[noreturn]] void child_failed(const ChildPlan& p) {
  const int e = errno;
  if (p.report_fd >= 0) (void)!::write(p.report_fd, &e, sizeof e);
  ::_exit(127);
}

int child_main(void* arg) {
  const ChildPlan& p = *static_cast<const ChildPlan*>(arg);
  // Every signal back to its default: dmlcert's handlers must not run in this child before it
  // executes the host (they would, on dmlcert's memory), and the plugin starts from a clean slate.
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  for (int s = 1; s < NSIG; ++s)
    if (s != SIGKILL && s != SIGSTOP) ::sigaction(s, &dfl, nullptr);  // glibc's own ones refuse: fine
  // Unprivileged, the user namespace maps only dmlcert's own user and group, as themselves.
  if (p.user_namespace) {
    write_proc_file("/proc/self/setgroups", "deny");
    if (!write_proc_file("/proc/self/uid_map", p.uid_map) ||
        !write_proc_file("/proc/self/gid_map", p.gid_map))
      child_failed(p);
  }
  if (!p.path) ::_exit(0);
  // A process group of its own: killed whole, and out of reach of the terminal's Ctrl-C, which
  // dmlcert handles (it stops the run and kills the group).
  if (::setpgid(0, 0) != 0) child_failed(p);
  if (::dup2(p.null_fd, STDIN_FILENO) < 0 || ::dup2(p.output_fd, STDOUT_FILENO) < 0 ||
      ::dup2(p.output_fd, STDERR_FILENO) < 0 || ::dup2(p.socket_fd, 3) < 0 || ::dup2(p.memory_fd, 4) < 0)
    child_failed(p);
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  ::execve(p.path, p.argv, environ);
  child_failed(p);
}

int namespace_flags(ContainmentKind kind) {
  switch (kind) {
    case ContainmentKind::PidNamespace: return CLONE_NEWPID;
    case ContainmentKind::UserPidNamespace: return CLONE_NEWUSER | CLONE_NEWPID;
    case ContainmentKind::ProcessGroup: return 0;
  }
  return 0;
}

// Clones a child that follows `plan` (with every signal blocked around the clone, so that none is
// handled in the child while it shares dmlcert's memory). Returns its pid, or -1 with errno set
// (from the clone, or from the step that failed in the child).
pid_t clone_child(ChildPlan& plan, ContainmentKind kind) {
  int report[2];
  if (::pipe2(report, O_CLOEXEC) != 0) return -1;
  plan.report_fd = report[1];
  plan.user_namespace = kind == ContainmentKind::UserPidNamespace;
  std::snprintf(plan.uid_map, sizeof plan.uid_map, "%u %u 1\n", ::geteuid(), ::geteuid());
  std::snprintf(plan.gid_map, sizeof plan.gid_map, "%u %u 1\n", ::getegid(), ::getegid());
  constexpr size_t kStackBytes = 64 << 10;
  static thread_local std::vector<char> stack(kStackBytes);
  sigset_t all, old;
  sigfillset(&all);
  ::pthread_sigmask(SIG_SETMASK, &all, &old);
  // CLONE_VFORK: this thread waits until the child has executed the host (or exited).
  const pid_t pid = ::clone(child_main, stack.data() + stack.size(),
                            CLONE_VM | CLONE_VFORK | SIGCHLD | namespace_flags(kind), &plan);
  const int clone_errno = errno;
  ::pthread_sigmask(SIG_SETMASK, &old, nullptr);
  ::close(report[1]);
  int child_errno = 0;
  const ssize_t got = pid < 0 ? 0 : ::read(report[0], &child_errno, sizeof child_errno);
  ::close(report[0]);
  if (pid < 0) {
    errno = clone_errno;
    return -1;
  }
  if (got == sizeof child_errno) {
    ::waitpid(pid, nullptr, 0);
    errno = child_errno;
    return -1;
  }
  return pid;
}

// Whether a child can be started with `kind`'s namespaces here.
bool works(ContainmentKind kind) {
  ChildPlan probe;
  const pid_t pid = clone_child(probe, kind);
  if (pid < 0) return false;
  int status = 0;
  return ::waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

Containment find_containment() {
  const char* asked = std::getenv("DMLCERT_CONTAINMENT");
  const bool fallback_asked = asked && std::string(asked) == "process-group";
  if (!fallback_asked) {
    if (works(ContainmentKind::PidNamespace))
      return {ContainmentKind::PidNamespace,
              "each backend process runs in a PID namespace of its own: nothing it starts outlives it, "
              "and it can neither see nor signal dmlcert"};
    if (works(ContainmentKind::UserPidNamespace))
      return {ContainmentKind::UserPidNamespace,
              "each backend process runs in a user and PID namespace of its own: nothing it starts "
              "outlives it, and it can neither see nor signal dmlcert"};
  }
  const std::string why = fallback_asked
                              ? "DMLCERT_CONTAINMENT=process-group asked for it"
                              : "this system allows no PID namespace, with or without a user namespace: " +
                                    std::string(std::strerror(errno));
  return {ContainmentKind::ProcessGroup,
          "each backend process runs in a process group of its own, killed whole (" + why +
              "); a process the plugin moves out of that group (setsid, setpgid) can outlive the run, and "
              "the plugin can signal dmlcert's own process"};
}

int high_cloexec(int fd) {
  if (fd < 0 || fd >= 10) return fd;
  const int moved = ::fcntl(fd, F_DUPFD_CLOEXEC, 10);
  ::close(fd);
  return moved;
}

}  // namespace

const Containment& containment() {
  static const Containment found = find_containment();
  return found;
}

pid_t launch_host(const HostLaunch& launch, std::string* error) {
  const Containment& how = containment();
  std::vector<std::string> words = {launch.path};
  words.insert(words.end(), launch.args.begin(), launch.args.end());
  std::vector<char*> argv;
  for (std::string& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);
  static const int null_fd = high_cloexec(::open("/dev/null", O_RDWR | O_CLOEXEC));
  ChildPlan plan;
  plan.path = launch.path.c_str();
  plan.argv = argv.data();
  plan.socket_fd = launch.socket_fd;
  plan.memory_fd = launch.memory_fd;
  plan.output_fd = launch.output_fd;
  plan.null_fd = null_fd;
  const pid_t pid = clone_child(plan, how.kind);
  if (pid < 0) *error = "cannot start " + launch.path + ": " + std::strerror(errno);
  return pid;
}

pid_t host_process(pid_t first) {
  if (containment().kind == ContainmentKind::ProcessGroup) return first;
  // The host is the first process's child whose pid inside the namespace is 2 (the first process
  // forks it first; processes orphaned inside the namespace are its children too). Read from the
  // "NSpid:" line of each child's status (kernels without /proc/PID/task/TID/children included).
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/proc", ec)) {
    const std::string name = entry.path().filename();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream status(entry.path() / "status");
    pid_t parent = -1;
    std::string line, nspid;
    while (std::getline(status, line)) {
      if (line.starts_with("PPid:")) parent = static_cast<pid_t>(std::atoi(line.c_str() + 5));
      if (line.starts_with("NSpid:")) nspid = line;
    }
    if (parent == first && nspid.size() > 2 && nspid.ends_with("\t2"))
      return static_cast<pid_t>(std::stoi(name));
  }
  return first;
}

}  // namespace dmlcert::plugin

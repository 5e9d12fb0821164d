#include "plugin/namespace_init.h"

#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "plugin/call_memory.h"

namespace dmlcert::plugin {

bool is_namespace_init() {
  return ::getpid() == 1;
}

void fork_host_under_namespace_init(int memory_fd) {
  // Dies with dmlcert, and the namespace with it.
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  const auto page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  void* first_page = ::mmap(nullptr, page, PROT_READ | PROT_WRITE, MAP_SHARED, memory_fd, 0);
  const pid_t host = ::fork();
  if (host == 0) {
    if (first_page != MAP_FAILED) ::munmap(first_page, page);
    return;
  }
  // The host holds the channel, the output and the shared memory; this process keeps none of
  // them, so that the harness sees the channel close when the host goes.
  for (int fd = 0; fd <= 4; ++fd) ::close(fd);
  if (host < 0) ::_exit(126);
  while (true) {
    int status = 0;
    const pid_t ended = ::waitpid(-1, &status, 0);
    if (ended < 0 && errno == EINTR) continue;
    if (ended < 0) ::_exit(126);  // no child left, and the host was never seen to end: cannot be
    if (ended != host) continue;  // a process orphaned in the namespace: reaped, nothing more
    if (first_page != MAP_FAILED) {
      auto* record = reinterpret_cast<ChildExit*>(static_cast<std::byte*>(first_page) + ChildExit::kOffset);
      record->wait_status = status;
      __atomic_store_n(&record->magic, ChildExit::kMagic, __ATOMIC_RELEASE);
    }
    // Exiting ends the namespace: the kernel kills every process the plugin left in it.
    ::_exit(WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
  }
}

}  // namespace dmlcert::plugin

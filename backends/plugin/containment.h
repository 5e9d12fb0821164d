// How the isolation child is started so that nothing the plugin does reaches dmlcert or outlives
// the run (docs/design.md, "Isolation"). The child starts as the first process of a PID namespace
// of its own (with a user namespace when dmlcert runs without privileges): that first process
// (namespace_init.h) starts the host process proper and waits for it, and when it ends the kernel
// ends every process of the namespace, however the plugin forked, detached (setsid, setpgid) or
// daemonized them. From inside the namespace dmlcert's process is invisible: getppid() is the
// first process, which ignores every signal sent from inside, so a plugin can neither stop nor
// kill nor signal dmlcert.
//
// Where the system allows no such namespace (a container without the privilege, a kernel built
// without it), the child runs as before: its own process group, killed whole, and SIGKILL when
// dmlcert dies. statement() then says what that leaves open, and the report prints it.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace dmlcert::plugin {

enum class ContainmentKind {
  PidNamespace,      // a PID namespace of its own
  UserPidNamespace,  // the same, inside a user namespace (no privileges needed)
  ProcessGroup,      // no namespace available: a process group, killed whole
};

struct Containment {
  ContainmentKind kind = ContainmentKind::ProcessGroup;
  // One sentence for the report: what contains the backend's processes and, when the machine lacks
  // a namespace, what that leaves open.
  std::string statement;
};

// What this machine allows, found out once by starting a process that exits at once. Setting
// DMLCERT_CONTAINMENT=process-group in the environment asks for the fallback (to see what a
// machine without namespaces gives).
const Containment& containment();

struct HostLaunch {
  std::string path;               // dmlcert-plugin-host
  std::vector<std::string> args;  // after the path
  int socket_fd = -1;             // becomes the child's descriptor 3 (wire::kSocketFd)
  int memory_fd = -1;             // becomes its descriptor 4 (wire::kMemFd)
  int output_fd = -1;             // becomes its stdout and stderr; stdin is /dev/null
};
// Starts the host as containment() allows, in a process group of its own with no signal blocked.
// Returns the process to wait for and to kill (the namespace's first process when there is one),
// or -1 and why.
pid_t launch_host(const HostLaunch& launch, std::string* error);

// The host process proper under a namespace's first process `first` (its only child), found in
// /proc; `first` itself when there is no namespace or it has no child yet. Its memory and CPU time
// are what the limits measure.
pid_t host_process(pid_t first);

}  // namespace dmlcert::plugin

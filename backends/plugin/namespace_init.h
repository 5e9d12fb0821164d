// The isolation child's first process, when it runs as the first process of a PID namespace of
// its own (containment.h). A namespace's first process is special: the kernel ignores every signal
// sent to it from inside the namespace that it does not handle (a plugin's raise() or abort()
// included), processes orphaned inside the namespace become its children, and when it ends the
// kernel kills every other process of the namespace. So it does one thing: it forks the host
// process proper, which loads the plugin, reaps every process that becomes its child, and when the
// host ends it records how (ChildExit, in the shared memory: the harness waits for this process,
// not the host) and exits, taking whatever the plugin started with it.
#pragma once

namespace dmlcert::plugin {

// Whether this process is a PID namespace's first process.
bool is_namespace_init();

// In a namespace's first process: forks, and returns in the child, which goes on as the host; the
// first process itself never returns. `memory_fd` is the shared memory (call_memory.h).
void fork_host_under_namespace_init(int memory_fd);

}  // namespace dmlcert::plugin

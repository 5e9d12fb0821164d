// How much of the CPUs dmlcert_bench gets: measured for every run (the counter `cpus`), and raised
// while it runs when asked (--nice).
//
// On a machine shared with other people's builds, a run's rate follows the CPU time the process got
// during it. Linux shares the CPUs first between sessions (autogroup: every terminal or login is
// one group, with one group's weight however many processes it runs) and then within each session,
// so beside three other busy sessions a bench run gets about half a CPU of two, and how much it gets
// changes from one 0.3 s run to the next. `cpus`, the CPU seconds the process used per second of
// the run, shows it: 0.1 to 0.5 in such a run, with opt/control moving from 0.4 to 3 in step with
// it (bench/README.md, "A shared machine").
#pragma once

#include <string>

namespace dmlcert::bench {

// The process's CPU time, wall time and minor page faults at one instant.
struct ProcessTimes {
  double cpu_seconds = 0, wall_seconds = 0;
  long minor_faults = 0;
  static ProcessTimes now();
};

// Lowers the nice value of this process to -n and, where the kernel groups the CPUs' share by
// session, makes the process a session of its own at that nice, so that a session of builds beside
// it takes its CPUs about 9 times less often at n = 10 (the scheduler's weights: 1024 at nice 0,
// 9548 at -10). Call it before any thread starts: threads take their nice from the one that starts
// them. Says what it did, or why it could not (the session part needs a process that does not lead
// its process group: `setsid dmlcert_bench ...` starts it so; lowering nice needs CAP_SYS_NICE).
std::string raise_cpu_share(int n);

}  // namespace dmlcert::bench

#include "cpu_share.h"

#include <sys/resource.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>

namespace dmlcert::bench {
namespace {

double seconds(timeval t) {
  return static_cast<double>(t.tv_sec) + 1e-6 * static_cast<double>(t.tv_usec);
}

bool autogroup_enabled() {
  std::ifstream f("/proc/sys/kernel/sched_autogroup_enabled");
  int on = 0;
  return f >> on && on == 1;
}

}  // namespace

ProcessTimes ProcessTimes::now() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  ProcessTimes t;
  t.cpu_seconds = seconds(u.ru_utime) + seconds(u.ru_stime);
  t.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
  t.minor_faults = u.ru_minflt;
  return t;
}

std::string raise_cpu_share(int n) {
  const std::string nice = "nice " + std::to_string(-n);
  if (setpriority(PRIO_PROCESS, 0, -n) != 0)
    return "not raised: setpriority to " + nice + " failed (" + std::strerror(errno) + ")";
  if (!autogroup_enabled()) return nice;
  if (getsid(0) != getpid() && setsid() < 0)
    return nice +
           " within its session only: it leads its process group and cannot start a session of its "
           "own (start it with setsid), so other sessions still share the CPUs with it equally";
  std::ofstream group("/proc/self/autogroup");
  if (!(group << -n << std::flush))
    return nice + " within its session only: /proc/self/autogroup refused " + std::to_string(-n);
  return nice + ", in a session of its own at " + nice;
}

}  // namespace dmlcert::bench

// For plugins that misbehave once in a run and never again, in any process: the first caller of
// first_time() creates a marker file next to the plugin's library and gets true; every later
// caller, in this process or a fresh one, finds it and gets false. Each test runs its own copy
// of the library, so each starts without the marker.
#pragma once

#include <dlfcn.h>
#include <fcntl.h>
#include <unistd.h>

#include <string>

namespace dmlcert::test_plugins {

inline bool first_time() {
  Dl_info self{};
  if (::dladdr(reinterpret_cast<const void*>(&first_time), &self) == 0 || self.dli_fname == nullptr)
    return false;
  const std::string marker = std::string(self.dli_fname) + ".misbehaved";
  // O_EXCL: of two processes that ask at once, exactly one creates it.
  const int fd = ::open(marker.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) return false;
  ::close(fd);
  return true;
}

}  // namespace dmlcert::test_plugins

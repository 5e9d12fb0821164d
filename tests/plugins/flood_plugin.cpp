// Prints 10 MiB to stdout and stderr on every call, then behaves like the reference: certifies,
// with its output kept in the report and none of it in dmlcert's own output.
#include <unistd.h>

#include <string>

#include "misbehaviour.h"

namespace dmlcert::test_plugins {
namespace {
void write_all(int fd, const std::string& text, size_t times) {
  for (size_t i = 0; i < times; ++i)
    for (size_t done = 0; done < text.size();) {
      const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
      if (n <= 0) return;
      done += static_cast<size_t>(n);
    }
}
}  // namespace

plugin::AdapterHooks misbehaviour() {
  plugin::AdapterHooks hooks;
  hooks.before = [](const OperatorDesc&, FeatureLevel, const Bindings&) {
    static const std::string line = [] {
      std::string l = "flood plugin: debug line of a noisy vendor library ";
      l.resize(1023, '.');
      return l + "\n";  // 1 KiB
    }();
    write_all(STDOUT_FILENO, line, 5 * 1024);  // 5 MiB
    write_all(STDERR_FILENO, line, 5 * 1024);
  };
  return hooks;
}
}  // namespace dmlcert::test_plugins

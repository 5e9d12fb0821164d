// Text that came from outside (file names, plugin messages, case names) on its way to a
// terminal, a log or a one-line error.
#pragma once

#include <string>
#include <string_view>

namespace dmlcert {

// Control characters and invalid UTF-8 bytes as \n, \x1b, ...; at most max_bytes long, the
// "..." that marks a cut included.
std::string printable(std::string_view s, size_t max_bytes = 400);

}  // namespace dmlcert

#include "dmlcert/text.h"

#include <algorithm>
#include <cstdio>

namespace dmlcert {
namespace {

// The length of the valid UTF-8 sequence starting at s[i], or 0.
size_t utf8_length(std::string_view s, size_t i) {
  const auto c = static_cast<unsigned char>(s[i]);
  const size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
  if (n == 0 || i + n > s.size()) return 0;
  for (size_t k = 1; k < n; ++k)
    if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return 0;
  return n;
}

}  // namespace

std::string printable(std::string_view s, size_t max_bytes) {
  constexpr std::string_view kEllipsis = "...";
  std::string out;
  // Where the text was cut last with room left for the ellipsis: a cut never splits an escape or
  // a UTF-8 sequence, and the result, ellipsis included, is never longer than max_bytes.
  size_t cut = 0;
  for (size_t i = 0; i < s.size();) {
    if (out.size() + kEllipsis.size() <= max_bytes) cut = out.size();
    if (out.size() > max_bytes) break;
    const auto c = static_cast<unsigned char>(s[i]);
    const size_t n = utf8_length(s, i);
    if (n > 1 || (n == 1 && c >= 0x20 && c != 0x7F)) {
      out.append(s.substr(i, n));
      i += n;
      continue;
    }
    char buf[8];
    if (c == '\n')
      out += "\\n";
    else if (c == '\t')
      out += "\\t";
    else if (c == '\r')
      out += "\\r";
    else
      std::snprintf(buf, sizeof buf, "\\x%02x", c), out += buf;
    ++i;
  }
  if (out.size() <= max_bytes) return out;
  out.resize(cut);
  out += kEllipsis.substr(0, std::min(kEllipsis.size(), max_bytes - cut));
  return out;
}

}  // namespace dmlcert

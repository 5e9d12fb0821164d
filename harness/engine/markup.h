// Text inside HTML and XML reports.
#pragma once

#include <string>
#include <string_view>

namespace dmlcert::cert {

// Escapes the characters markup gives meaning to, and drops control characters other than tab,
// newline and carriage return: XML 1.0 cannot carry them at all, and in HTML they show as
// nothing useful. Messages from a backend under test may contain anything.
inline std::string markup_escape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char ch : s) {
    switch (ch) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default:
        if (static_cast<unsigned char>(ch) >= 0x20 || ch == '\n' || ch == '\t' || ch == '\r') out += ch;
    }
  }
  return out;
}

}  // namespace dmlcert::cert

#include "codegen/line_directive.hpp"

#include <fmt/format.h>

namespace jitvec::codegen {

std::string c_string_literal(std::string_view text) {
  std::string out = "\"";
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (byte < 0x20 || byte >= 0x7f) {
      // Always three digits: a digit that follows cannot extend the escape.
      out += fmt::format("\\{:03o}", byte);
    } else {
      out += c;
    }
  }
  out += '"';
  return out;
}

std::string line_directive(int line, std::string_view file) {
  return fmt::format("#line {} {}\n", line, c_string_literal(file));
}

}  // namespace jitvec::codegen

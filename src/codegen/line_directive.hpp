// src/codegen/line_directive.hpp: `#line N "name"` for generated source, whatever the name.
//
// The user's code goes under `#line` directives naming its definition file (its base name, see
// engine.cpp's origin_name) or "ufunc:<name>", so compiler messages point at the user's lines.
// A file name may hold any byte but '/' and NUL: quotes, backslashes, newlines (which, pasted
// as they are, would end the directive and let the rest of the name be a preprocessor line of
// its own), other control characters, UTF-8. c_string_literal() writes a name as a C string
// literal that every compiler reads back as the same bytes: `\\` and `\"` for backslash and
// quote, a three-digit octal escape for every control character (0x00-0x1f, 0x7f) and every
// byte from 0x80 (so a multi-byte character means the same bytes whatever the compiler's
// source character set), the other printable ASCII characters as they are. NVRTC, GCC and
// Clang all print the decoded name in their messages (the raw bytes, newlines included), which
// codegen::annotate_compile_log() maps back to the user's path.
//
// An ordinary name (printable ASCII) is spelled as it always was, so the generated source and
// the cache keys of existing definitions do not change.
#pragma once

#include <string>
#include <string_view>

namespace jitvec::codegen {

/// `text` as a C/C++ string literal, quotes included: "a\"b\\c\012d".
std::string c_string_literal(std::string_view text);

/// "#line <line> <c_string_literal(file)>\n".
std::string line_directive(int line, std::string_view file);

}  // namespace jitvec::codegen

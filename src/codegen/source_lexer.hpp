// src/codegen/source_lexer.hpp: ufunc source split into the tokens the preprocessor sees.
//
// What a source may include or use is decided on what the compilers' preprocessors will see,
// not on its text: after translation phases 1-3, where
//   - phase 1 may replace trigraphs (`??=` is `#`, `??/` is `\`, ...);
//   - phase 2 removes line splices (a backslash at the end of a line joins the next one), so
//     `#inc\<newline>lude` is `#include`;
//   - phase 3 cuts the text into preprocessing tokens and white space: comments become one
//     space (a block comment may span lines; the line it starts on goes on after it), string
//     and character literals are tokens (raw strings `R"d(...)d"` keep their text as written,
//     splices and trigraphs included, and may span lines), `%:` and `%:%:` are the digraphs of
//     `#` and `##`, and after `#include` (or `include_next`, `import`, `embed`) a `<...>` is
//     one header name.
// A directive is a logical line whose first token is `#`: `/**/ # /**/ include` and
// `%:include` are directives, `x; /* newline */ #include` is not.
//
// The compilers jitvec runs do not read every source alike, so each difference is a
// SourceReading bit, and a check must hold under every reading (every_source_reading()):
//   - trigraphs: replaced by C++14 compilers and GCC's -trigraphs, ignored by C++17 (NVRTC,
//     GCC and Clang as jitvec runs them);
//   - spaced_splices: a backslash, then spaces or tabs, then a newline, is a splice for GCC
//     and Clang, not for NVRTC;
//   - lone_cr_newlines: a carriage return not followed by a newline ends a line for GCC and
//     Clang, not for NVRTC;
//   - extended_identifiers: `$` and bytes from 0x80 (UTF-8) are parts of names for GCC and
//     Clang, stray characters for NVRTC (which changes where a name ends, and so whether
//     `xR"(` starts a raw string).
// Positions are byte offsets into the source; lines are 0-based and counted by '\n'.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace jitvec::codegen {

struct SourceReading {
  bool trigraphs = false;
  bool spaced_splices = false;
  bool lone_cr_newlines = false;
  bool extended_identifiers = false;

  /// How this reading differs from the plain one, for messages ("" for the plain one).
  std::string description() const;
};

/// The readings `source` can differ under: the plain one first, then every combination of the
/// bits that some character of `source` can make matter (a source without "??" is read alike
/// with and without trigraphs, ...).
std::vector<SourceReading> every_source_reading(std::string_view source);

struct SourceToken {
  enum class Kind {
    identifier,
    number,       // a preprocessing number: 1, 0x1p-3f, 1'000
    literal,      // a string or character literal, with its prefix; raw strings too
    header_name,  // <...> after #include and its kin
    punctuator,   // one character, or "#" / "##" (digraphs spelled as these)
    malformed,    // a raw string literal whose delimiter is not valid
  };
  Kind kind;
  /// The spelling after phases 1-2 (a raw string as written); `%:` and `%:%:` as "#" and "##".
  std::string text;
  /// The line of its first character.
  int line = 0;
  /// The first token of its logical line.
  bool first_on_line = false;
  /// Where it is in the source: [begin, end).
  std::size_t begin = 0;
  std::size_t end = 0;
};

/// `source`'s preprocessing tokens under `reading`. Never throws: an unterminated literal ends
/// at the end of its line, an unterminated comment or raw string at the end of the source.
std::vector<SourceToken> preprocessing_tokens(std::string_view source, SourceReading reading);

/// A directive: a logical line that begins with `#`.
struct SourceDirective {
  /// The directive's name ("include", "define", "pragma"), or "" when the `#` is followed by
  /// something else (a line marker `# 12 "file"`, nothing).
  std::string name;
  /// The tokens after the name, up to the end of the logical line.
  std::vector<SourceToken> operands;
  /// The line of its `#`, and where it is in the source: from its `#` to its last token.
  int line = 0;
  std::size_t begin = 0;
  std::size_t end = 0;
};

/// The directives among `tokens` (from preprocessing_tokens), in order.
std::vector<SourceDirective> source_directives(const std::vector<SourceToken>& tokens);

}  // namespace jitvec::codegen

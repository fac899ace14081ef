// src/codegen/portable_source.hpp: what ufunc source may use, the same on every target.
//
// A ufunc's source (and its helpers') is compiled by NVRTC for the GPU and by the host C++
// compiler for the cpu and parallel targets. So that a source compiles on both or on neither,
// check_portable_source() rejects, before either compiler runs, what only one of them accepts
// or what would read files other than the source:
//   - any `#include` other than the standard headers listed in portable_headers() (`<cmath>` or
//     `"cmath"`), and `#include_next`, `#import`, `#embed`. The check looks at what the
//     preprocessor will see (source_lexer.hpp: line splices, comments, digraphs, literals, under
//     every reading NVRTC, GCC or Clang may take), so `%:include`, `#inc\<newline>lude` and
//     `/**/ # /**/ include` are directives like any other, and an #include in a comment or a
//     string literal is not one; an #include of anything but a header name (a macro) is refused;
//   - the pragmas that read files or bring in code (`GCC dependency`, `clang module`,
//     `clang __debug`, `GCC pch_preprocess`, `include_alias`, `comment`, ...), also as
//     `_Pragma("...")`; a _Pragma of anything but a string literal, `__pragma`, `__has_include`
//     and `__has_embed`; and, where the source pastes tokens (`##`), names that begin one of
//     those (`CAT(__has_, include)` would make one);
//   - a raw string literal with a delimiter that is not valid (compilers disagree on where it
//     ends, so on which lines are directives);
//   - per-thread and kernel constructs (threadIdx, blockIdx, blockDim, gridDim, __syncthreads,
//     __shared__, __global__): a ufunc is per-element code, which the host cannot run and the
//     GPU loops already index for it.
// The allowed headers add nothing on either target (the device prelude and CUDA's built-ins
// give the GPU what they declare, the host prelude gives the host the same), except <cfloat> and
// <climits>, whose macros (FLT_MAX, INT_MAX, ...) are defined only where they are included.
// portable_headers() also holds the small texts NVRTC is given for them (nvrtcCreateProgram's
// headers), which NVRTC reads only when a source includes one.
// diagnostic_path() and annotate_compile_log() put the user's path back into compiler messages
// (the `#line` directives carry the bare file name, so the generated text and its cache key do
// not depend on where a definition file was read from) and add the source line and a caret to
// messages that lack them (GCC and Clang run with -fno-diagnostics-show-caret: they would print
// a line of whatever file of that bare name is in their working folder).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "codegen/helper_closure.hpp"
#include "codegen/source_parts.hpp"
#include "jitvec/errors.hpp"

namespace jitvec::codegen {

struct PortableHeader {
  const char* name;         // as written between <>, "cmath"
  const char* nvrtc_text;   // what NVRTC reads for it
};

/// The standard headers a ufunc source may include, on every target.
const std::vector<PortableHeader>& portable_headers();

/// "<cmath>, <math.h>, ..." for messages and the README.
std::string portable_header_list();

/// Throws jitvec::DefinitionError reading "<file>:<line>: <definition>: <what is wrong>" when
/// `source` (whose first line is line `first_line` of `file`; `definition` is "ufunc 'f'" or
/// "device function 'g'") breaks a rule above.
void check_portable_source(std::string_view source, const std::string& file, int first_line,
                           const std::string& definition);

/// The user's compile log with every `#line` name of `ufunc` and `helpers` that has an
/// origin_path replaced by that path, and with the source line and a caret (at `column`, when
/// the compiler gave one) added under each GCC/Clang-style `file:line:column: ` message that
/// points into user code. `generated` is the source the compiler was given. NVRTC's messages
/// (`file(line): error: ...`) already carry the line and caret; only their file is mapped.
std::string annotate_compile_log(const std::string& log, const std::string& generated,
                                 const UfuncSource& ufunc,
                                 const std::vector<const HelperSource*>& helpers);

/// `error` with its log, and the log inside its message, passed through annotate_compile_log();
/// the message ends with `ufunc.compile_hint` when it has one.
CompileError with_user_lines(const CompileError& error, const std::string& generated,
                             const UfuncSource& ufunc,
                             const std::vector<const HelperSource*>& helpers);

}  // namespace jitvec::codegen

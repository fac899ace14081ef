// src/codegen/parameter_names.hpp: the names a ufunc's source gives its inputs.
//
// Accuracy reports (jitvec/accuracy.hpp) name each input by its parameter in the source, so a
// range reads `x = [-10, 10]` rather than by position. parameter_names() finds the first
// `NAME(` in the source's tokens (source_lexer.hpp: comments and literals are no tokens) that
// follows a type (a name other than `return` and its kin, `>`, `*`, `&`) and is followed by a
// parameter list and a body or a `;` (a definition or a declaration, not a call), and takes from each parameter, up to a default argument, its last name. A parameter
// without a name, or a source where no such list is found, gives the input's position instead
// ("0", "1", ...), so there is always one distinct name per input.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace jitvec::codegen {

/// The first `count` parameter names of function `name` in `source`, as described above.
std::vector<std::string> parameter_names(std::string_view source, const std::string& name,
                                         int count);

}  // namespace jitvec::codegen

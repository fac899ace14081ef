// src/codegen/function_declaration.hpp: the declaration of a named function in ufunc source.
//
// Engine::derivative (src/engine/derivative.hpp) needs to know, before it generates any code,
// whether the user's function is a template, which of its parameters have a type that names a
// template parameter (those can take jitvec::dual<T>), and what the parameters are called (a
// derivative may name its input: `wrt = "x"`). This reads that from the source's preprocessing
// tokens (source_lexer.hpp: comments, literals and directives are not mistaken for code): the
// first declaration of `name` at namespace scope (outside every brace), a template one
// preferred when the source overloads the name. It is no C++ parser: it splits the template
// head and the parameter list at their top-level commas and takes a parameter's last
// identifier as its name, which is what a ufunc's declaration is made of.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace jitvec::codegen {

struct FunctionParameter {
  /// The parameter's type as written, tokens joined by one space ("const T &").
  std::string type;
  /// Its name, or empty when the declaration gives none.
  std::string name;
  /// Whether `type` names one of the template's type parameters.
  bool dependent = false;
};

struct FunctionDeclaration {
  /// The names of the template's parameters ("T" of `template <typename T>`); empty for a
  /// function that is not a template.
  std::vector<std::string> template_parameters;
  bool is_template = false;
  std::vector<FunctionParameter> parameters;
  /// The return type as written, without the declaration's specifiers (__device__, inline, ...).
  std::string return_type;
  /// The line of the function's name, 0-based within the source.
  int line = 0;
};

/// The declaration of `function_name` in `source` (see above), or nullopt when the source has
/// no declaration of it at namespace scope.
std::optional<FunctionDeclaration> find_function_declaration(std::string_view source,
                                                             const std::string& function_name);

}  // namespace jitvec::codegen

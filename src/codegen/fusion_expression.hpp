// src/codegen/fusion_expression.hpp: the text of a fusion, "h(g(f(x, y), z))", as a tree.
//
// Engine::fuse (src/engine/fusion.hpp) composes registered ufuncs into one; its expression is
// parsed here, before any name is looked up. The grammar:
//
//     expr    := call | input | literal
//     call    := NAME '(' expr (',' expr)* ')'       a ufunc (looked up by the engine)
//     input   := NAME                                 a named input of the fused ufunc
//     literal := ['-'|'+'] digits ['.' digits] [('e'|'E') ['-'|'+'] digits] | true | false
//
// Whitespace is free. The root must be a call. Inputs are numbered in order of first
// appearance (x, y, z in "h(g(f(x, y), z))"); an input named twice is one input. A literal
// with a '.' or an exponent is a float64 scalar, one without an int64 scalar, `true`/`false`
// bool scalars: weak scalars, as if passed to the stage's call. A malformed text throws
// DefinitionError naming the column, with the text and a caret under it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace jitvec::codegen {

struct FusionLiteral {
  enum class Kind : std::uint8_t { integer, floating, boolean };
  Kind kind = Kind::integer;
  std::int64_t integer = 0;
  double floating = 0.0;
  bool boolean = false;
  std::string text;  // as written
};

struct FusionNode {
  enum class Kind : std::uint8_t { call, input, literal };
  Kind kind = Kind::call;
  /// The ufunc (call) or the input's name.
  std::string name;
  /// 1-based column of the node's first character in the expression.
  int column = 1;
  /// input: its index in FusionExpression::inputs; literal: in FusionExpression::literals.
  int index = 0;
  std::vector<FusionNode> args;  // call only
};

struct FusionExpression {
  FusionNode root;
  std::vector<std::string> inputs;     // in order of first appearance
  std::vector<FusionLiteral> literals; // in order of appearance
  /// The expression with canonical spacing, "h(g(f(x, y), z))".
  std::string canonical;
};

/// Parses `text`; `fusion` names the fusion in messages. Throws DefinitionError.
FusionExpression parse_fusion_expression(std::string_view text, const std::string& fusion);

/// "fusion 'fgh': <what> at column N of the expression:\n  <text>\n  <caret>"
std::string fusion_error_at(const std::string& fusion, std::string_view text, int column,
                            const std::string& what);

}  // namespace jitvec::codegen

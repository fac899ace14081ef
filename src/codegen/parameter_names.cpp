#include "codegen/parameter_names.hpp"

#include <algorithm>
#include <cstddef>
#include <optional>

#include "codegen/source_lexer.hpp"

namespace jitvec::codegen {
namespace {

using Tokens = std::vector<SourceToken>;

bool is(const SourceToken& token, std::string_view text) {
  return token.kind == SourceToken::Kind::punctuator && token.text == text;
}

// The index of the `)` that closes the `(` at `open`, or nullopt.
std::optional<std::size_t> closing_paren(const Tokens& tokens, std::size_t open) {
  int depth = 0;
  for (std::size_t i = open; i < tokens.size(); ++i) {
    if (is(tokens[i], "(")) ++depth;
    if (is(tokens[i], ")") && --depth == 0) return i;
  }
  return std::nullopt;
}

// Whether the token before the name at `at` can end a declaration's return type (a type name,
// a qualifier, `>`, `*`, `&`), rather than begin an expression (`=`, `(`, `return`).
bool after_a_type(const Tokens& tokens, std::size_t at) {
  if (at == 0) return false;
  const SourceToken& before = tokens[at - 1];
  if (before.kind == SourceToken::Kind::identifier) {
    for (const char* keyword : {"return", "else", "do", "case", "throw", "new", "delete", "sizeof"}) {
      if (before.text == keyword) return false;
    }
    return true;
  }
  return is(before, ">") || is(before, "*") || is(before, "&");
}

// Whether the tokens after a parameter list's `)` at `close` make it a declaration: a body
// (after qualifiers and a trailing return type) or a `;`, before any other statement.
bool declares(const Tokens& tokens, std::size_t close) {
  for (std::size_t i = close + 1; i < tokens.size(); ++i) {
    if (is(tokens[i], "{") || is(tokens[i], ";")) return true;
    if (is(tokens[i], ")") || is(tokens[i], "}") || is(tokens[i], ",") || is(tokens[i], "+") ||
        is(tokens[i], "*") || is(tokens[i], "/") || is(tokens[i], "?")) {
      return false;
    }
  }
  return false;
}

// Each parameter's name in the list between `open` and `close` (empty where it has none).
std::vector<std::string> names_in_list(const Tokens& tokens, std::size_t open, std::size_t close) {
  std::vector<std::string> names;
  std::string last;     // the last name of the current parameter
  std::size_t parts = 0;  // its tokens before any default argument
  bool in_default = false;
  int depth = 0;
  auto finish = [&] {
    // A lone name ("float") is a type without a parameter name.
    names.push_back(parts > 1 ? last : std::string());
    last.clear();
    parts = 0;
    in_default = false;
  };
  for (std::size_t i = open + 1; i < close; ++i) {
    const SourceToken& token = tokens[i];
    if (is(token, "(") || is(token, "<") || is(token, "[")) ++depth;
    if (is(token, ")") || is(token, ">") || is(token, "]")) --depth;
    if (depth == 0 && is(token, ",")) {
      finish();
      continue;
    }
    if (depth == 0 && is(token, "=")) in_default = true;
    if (in_default) continue;
    ++parts;
    if (token.kind == SourceToken::Kind::identifier && depth == 0) last = token.text;
  }
  if (close > open + 1) finish();
  return names;
}

}  // namespace

std::vector<std::string> parameter_names(std::string_view source, const std::string& name,
                                         int count) {
  const Tokens tokens = preprocessing_tokens(source, SourceReading{});
  std::vector<std::string> found;
  for (std::size_t i = 0; i + 1 < tokens.size(); ++i) {
    if (tokens[i].kind != SourceToken::Kind::identifier || tokens[i].text != name ||
        !is(tokens[i + 1], "(") || !after_a_type(tokens, i)) {
      continue;
    }
    const std::optional<std::size_t> close = closing_paren(tokens, i + 1);
    if (close && declares(tokens, *close)) {
      found = names_in_list(tokens, i + 1, *close);
      break;
    }
  }
  std::vector<std::string> names;
  for (int k = 0; k < count; ++k) {
    const std::size_t at = static_cast<std::size_t>(k);
    std::string chosen = at < found.size() ? found[at] : std::string();
    // A missing or repeated name: the position.
    if (chosen.empty() || std::find(names.begin(), names.end(), chosen) != names.end()) {
      chosen = std::to_string(k);
    }
    names.push_back(std::move(chosen));
  }
  return names;
}

}  // namespace jitvec::codegen

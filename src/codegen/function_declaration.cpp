#include "codegen/function_declaration.hpp"

#include <algorithm>
#include <array>

#include "codegen/source_lexer.hpp"

namespace jitvec::codegen {
namespace {

// Words before a function's return type that are not part of it.
constexpr std::array<std::string_view, 10> kSpecifiers = {
    "__device__", "__host__", "__forceinline__", "__noinline__", "inline",
    "static",     "constexpr", "extern",        "__inline__",   "explicit"};

bool is_specifier(const std::string& word) {
  return std::find(kSpecifiers.begin(), kSpecifiers.end(), word) != kSpecifiers.end();
}

std::string joined(const std::vector<SourceToken>& tokens, std::size_t begin, std::size_t end) {
  std::string out;
  for (std::size_t k = begin; k < end; ++k) {
    if (!out.empty()) out += ' ';
    out += tokens[k].text;
  }
  return out;
}

// The tokens of the source that are code: directives (and their operands) left out.
std::vector<SourceToken> code_tokens(std::string_view source) {
  const std::vector<SourceToken> all = preprocessing_tokens(source, SourceReading{});
  std::vector<SourceToken> code;
  bool in_directive = false;
  for (const SourceToken& token : all) {
    if (token.first_on_line) in_directive = token.kind == SourceToken::Kind::punctuator && token.text == "#";
    if (!in_directive) code.push_back(token);
  }
  return code;
}

// The index just past the bracket that closes the one at `open` (tokens[open] is `open_text`).
std::size_t past_closing(const std::vector<SourceToken>& tokens, std::size_t open,
                         const char* open_text, const char* close_text) {
  int depth = 0;
  for (std::size_t k = open; k < tokens.size(); ++k) {
    if (tokens[k].text == open_text) ++depth;
    if (tokens[k].text == close_text && --depth == 0) return k + 1;
  }
  return tokens.size();
}

// [begin, end) split at its commas outside (), <>, [] and {}.
std::vector<std::pair<std::size_t, std::size_t>> split_at_commas(
    const std::vector<SourceToken>& tokens, std::size_t begin, std::size_t end) {
  std::vector<std::pair<std::size_t, std::size_t>> parts;
  int depth = 0;
  std::size_t start = begin;
  for (std::size_t k = begin; k < end; ++k) {
    const std::string& t = tokens[k].text;
    if (t == "(" || t == "<" || t == "[" || t == "{") ++depth;
    if (t == ")" || t == ">" || t == "]" || t == "}") --depth;
    if (t == ">>") depth -= 2;
    if (t == "," && depth == 0) {
      parts.emplace_back(start, k);
      start = k + 1;
    }
  }
  if (start < end) parts.emplace_back(start, end);
  return parts;
}

// One declared parameter (of the function or of its template) in [begin, end): its type and
// name, a default value (`= ...`) left out.
FunctionParameter parameter(const std::vector<SourceToken>& tokens, std::size_t begin,
                            std::size_t end) {
  for (std::size_t k = begin; k < end; ++k) {
    if (tokens[k].text == "=") {
      end = k;
      break;
    }
  }
  FunctionParameter p;
  static constexpr std::array<std::string_view, 12> kTypeWords = {
      "float", "double", "int", "long", "short", "char", "bool", "unsigned", "signed", "const", "volatile", "auto"};
  const bool named = end - begin >= 2 && tokens[end - 1].kind == SourceToken::Kind::identifier &&
                     std::find(kTypeWords.begin(), kTypeWords.end(), tokens[end - 1].text) == kTypeWords.end();
  p.name = named ? tokens[end - 1].text : std::string();
  p.type = joined(tokens, begin, named ? end - 1 : end);
  return p;
}

bool names_any(const std::vector<SourceToken>& tokens, std::size_t begin, std::size_t end,
               const std::vector<std::string>& names) {
  for (std::size_t k = begin; k < end; ++k) {
    if (tokens[k].kind == SourceToken::Kind::identifier &&
        std::find(names.begin(), names.end(), tokens[k].text) != names.end()) {
      return true;
    }
  }
  return false;
}

// The declaration whose name is tokens[at] (followed by `(`), read back to the previous `;`,
// `}` or `{` at namespace scope (`statement_begin`).
FunctionDeclaration read_declaration(const std::vector<SourceToken>& tokens,
                                     std::size_t statement_begin, std::size_t at) {
  FunctionDeclaration d;
  d.line = tokens[at].line;
  std::size_t k = statement_begin;
  if (k < at && tokens[k].text == "template" && k + 1 < at && tokens[k + 1].text == "<") {
    d.is_template = true;
    const std::size_t head_end = past_closing(tokens, k + 1, "<", ">");
    for (const auto& [b, e] : split_at_commas(tokens, k + 2, head_end - 1)) {
      const FunctionParameter p = parameter(tokens, b, e);
      if (!p.name.empty()) d.template_parameters.push_back(p.name);
    }
    k = head_end;
  }
  while (k < at && is_specifier(tokens[k].text)) ++k;
  std::size_t type_end = at;
  while (type_end > k && is_specifier(tokens[type_end - 1].text)) --type_end;
  std::string type;
  for (std::size_t j = k; j < type_end; ++j) {
    if (is_specifier(tokens[j].text)) continue;
    if (!type.empty()) type += ' ';
    type += tokens[j].text;
  }
  d.return_type = type;
  const std::size_t close = past_closing(tokens, at + 1, "(", ")") - 1;
  for (const auto& [b, e] : split_at_commas(tokens, at + 2, close)) {
    FunctionParameter p = parameter(tokens, b, e);
    if (p.type == "void" && p.name.empty() && close == at + 3) break;  // f(void)
    const auto& names = d.template_parameters;
    if (std::find(names.begin(), names.end(), p.name) != names.end()) {  // `const T`, unnamed
      p.type += " " + p.name;
      p.name.clear();
    }
    p.dependent = names_any(tokens, b, e - (p.name.empty() ? 0 : 1), d.template_parameters);
    d.parameters.push_back(std::move(p));
  }
  return d;
}

}  // namespace

std::optional<FunctionDeclaration> find_function_declaration(std::string_view source,
                                                             const std::string& function_name) {
  const std::vector<SourceToken> tokens = code_tokens(source);
  std::optional<FunctionDeclaration> first;
  int depth = 0;
  std::size_t statement_begin = 0;
  for (std::size_t k = 0; k < tokens.size(); ++k) {
    const std::string& t = tokens[k].text;
    if (t == "{" || t == "}") {
      depth += t == "{" ? 1 : -1;
      if (depth == 0) statement_begin = k + 1;
      continue;
    }
    if (depth != 0) continue;
    if (t == ";") {
      statement_begin = k + 1;
      continue;
    }
    if (tokens[k].kind != SourceToken::Kind::identifier || t != function_name ||
        k + 1 >= tokens.size() || tokens[k + 1].text != "(" || k == statement_begin) {
      continue;
    }
    FunctionDeclaration d = read_declaration(tokens, statement_begin, k);
    if (d.is_template) return d;
    if (!first) first = std::move(d);
  }
  return first;
}

}  // namespace jitvec::codegen

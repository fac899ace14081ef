#include "codegen/fusion_expression.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>

#include "jitvec/errors.hpp"

namespace jitvec::codegen {

std::string fusion_error_at(const std::string& fusion, std::string_view text, int column,
                            const std::string& what) {
  return fmt::format("fusion '{}': {} at column {} of the expression:\n  {}\n  {}^", fusion, what,
                     column, text, std::string(static_cast<std::size_t>(column - 1), ' '));
}

namespace {

bool is_name_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool is_name_part(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
bool is_digit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }

class Parser {
 public:
  Parser(std::string_view text, const std::string& fusion) : text_(text), fusion_(fusion) {}

  FusionExpression parse() {
    skip_space();
    if (at_end()) fail("the expression is empty; write a call such as h(g(f(x, y), z))");
    FusionExpression expression;
    expression.root = parse_expr(expression);
    skip_space();
    if (!at_end())
      fail(fmt::format("unexpected '{}' after the end of the expression", text_[pos_]));
    if (expression.root.kind != FusionNode::Kind::call) {
      fail_at(expression.root.column,
              "the expression must be a call of a ufunc, e.g. f(x, y), not a lone input or number");
    }
    expression.canonical = canonical(expression.root, expression);
    return expression;
  }

 private:
  [[noreturn]] void fail_at(int column, const std::string& what) const {
    throw DefinitionError(fusion_error_at(fusion_, text_, column, what));
  }
  [[noreturn]] void fail(const std::string& what) const { fail_at(column(), what); }
  int column() const { return static_cast<int>(pos_) + 1; }
  bool at_end() const { return pos_ >= text_.size(); }
  void skip_space() {
    while (!at_end() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }

  FusionNode parse_expr(FusionExpression& expression) {
    skip_space();
    if (at_end()) fail("the expression ends where an input, a number or a call was expected");
    const char c = text_[pos_];
    if (is_digit(c) || c == '-' || c == '+' || c == '.') return parse_number(expression);
    if (!is_name_start(c)) {
      fail(fmt::format("unexpected '{}' where an input, a number or a call was expected", c));
    }
    FusionNode node;
    node.column = column();
    const std::size_t start = pos_;
    while (!at_end() && is_name_part(text_[pos_])) ++pos_;
    node.name = std::string(text_.substr(start, pos_ - start));
    skip_space();
    if (!at_end() && text_[pos_] == '(') {
      ++pos_;
      node.kind = FusionNode::Kind::call;
      skip_space();
      if (!at_end() && text_[pos_] == ')') fail(fmt::format("'{}()' has no arguments", node.name));
      for (;;) {
        node.args.push_back(parse_expr(expression));
        skip_space();
        if (at_end())
          fail(fmt::format("the call of '{}' is not closed: expected ')' or ','", node.name));
        if (text_[pos_] == ',') {
          ++pos_;
          continue;
        }
        if (text_[pos_] == ')') {
          ++pos_;
          break;
        }
        fail(fmt::format("expected ')' or ',' in the call of '{}', found '{}'", node.name,
                         text_[pos_]));
      }
      return node;
    }
    if (node.name == "true" || node.name == "false") {
      FusionLiteral literal;
      literal.kind = FusionLiteral::Kind::boolean;
      literal.boolean = node.name == "true";
      literal.text = node.name;
      return literal_node(expression, std::move(literal), node.column);
    }
    node.kind = FusionNode::Kind::input;
    const auto seen = std::find(expression.inputs.begin(), expression.inputs.end(), node.name);
    node.index = static_cast<int>(seen - expression.inputs.begin());
    if (seen == expression.inputs.end()) expression.inputs.push_back(node.name);
    return node;
  }

  FusionNode literal_node(FusionExpression& expression, FusionLiteral literal, int column_of) {
    FusionNode node;
    node.kind = FusionNode::Kind::literal;
    node.column = column_of;
    node.name = literal.text;
    node.index = static_cast<int>(expression.literals.size());
    expression.literals.push_back(std::move(literal));
    return node;
  }

  FusionNode parse_number(FusionExpression& expression) {
    const int start_column = column();
    const std::size_t start = pos_;
    if (text_[pos_] == '-' || text_[pos_] == '+') ++pos_;
    const std::size_t digits_start = pos_;
    while (!at_end() && is_digit(text_[pos_])) ++pos_;
    bool floating = false;
    std::size_t digits = pos_ - digits_start;
    if (!at_end() && text_[pos_] == '.') {
      floating = true;
      ++pos_;
      const std::size_t fraction_start = pos_;
      while (!at_end() && is_digit(text_[pos_])) ++pos_;
      digits += pos_ - fraction_start;
    }
    if (digits == 0) fail_at(start_column, "a number needs at least one digit");
    if (!at_end() && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
      floating = true;
      ++pos_;
      if (!at_end() && (text_[pos_] == '-' || text_[pos_] == '+')) ++pos_;
      const std::size_t exponent_start = pos_;
      while (!at_end() && is_digit(text_[pos_])) ++pos_;
      if (pos_ == exponent_start) fail("the exponent of a number needs digits");
    }
    if (!at_end() && is_name_part(text_[pos_])) {
      fail(
          fmt::format("unexpected '{}' in a number (suffixes such as f or u are not used: a "
                      "number takes the type of the loop that receives it)",
                      text_[pos_]));
    }
    FusionLiteral literal;
    literal.text = std::string(text_.substr(start, pos_ - start));
    errno = 0;
    if (floating) {
      literal.kind = FusionLiteral::Kind::floating;
      literal.floating = std::strtod(literal.text.c_str(), nullptr);
      if (errno == ERANGE && std::isinf(literal.floating)) {
        fail_at(start_column, fmt::format("{} is beyond float64's range", literal.text));
      }
    } else {
      literal.kind = FusionLiteral::Kind::integer;
      literal.integer = std::strtoll(literal.text.c_str(), nullptr, 10);
      if (errno == ERANGE)
        fail_at(start_column, fmt::format("{} is beyond int64's range", literal.text));
    }
    return literal_node(expression, std::move(literal), start_column);
  }

  static std::string canonical(const FusionNode& node, const FusionExpression& expression) {
    if (node.kind == FusionNode::Kind::input) return node.name;
    if (node.kind == FusionNode::Kind::literal) return expression.literals[node.index].text;
    std::string out = node.name + "(";
    for (std::size_t k = 0; k < node.args.size(); ++k) {
      if (k) out += ", ";
      out += canonical(node.args[k], expression);
    }
    return out + ")";
  }

  std::string_view text_;
  const std::string& fusion_;
  std::size_t pos_ = 0;
};

}  // namespace

FusionExpression parse_fusion_expression(std::string_view text, const std::string& fusion) {
  return Parser(text, fusion).parse();
}

}  // namespace jitvec::codegen

#include "codegen/source_lexer.hpp"

#include <algorithm>

namespace jitvec::codegen {
namespace {

constexpr int kEnd = -1;

bool is_digit(int c) { return c >= '0' && c <= '9'; }
bool is_letter(int c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool is_horizontal_space(int c) { return c == ' ' || c == '\t' || c == '\f' || c == '\v'; }

// The character a trigraph `??x` stands for, or 0.
char trigraph(char x) {
  switch (x) {
    case '=': return '#';
    case '/': return '\\';
    case '\'': return '^';
    case '(': return '[';
    case ')': return ']';
    case '!': return '|';
    case '<': return '{';
    case '>': return '}';
    case '-': return '~';
    default: return 0;
  }
}

bool is_include_like(const std::string& name) {
  return name == "include" || name == "include_next" || name == "import" || name == "embed";
}

/// The source after phases 1 and 2, one logical character at a time, at physical positions.
class LogicalText {
 public:
  LogicalText(std::string_view s, SourceReading r) : s_(s), r_(r) {}

  std::size_t size() const { return s_.size(); }
  std::string_view physical() const { return s_; }

  /// The logical character at `p` (kEnd at the end; '\n' for any line end), moving `p` past it
  /// and past the line splices before it.
  int get(std::size_t& p) const {
    p = skip_splices(p);
    if (p >= s_.size()) return kEnd;
    if (const std::size_t newline = newline_length(p)) {
      p += newline;
      return '\n';
    }
    std::size_t length = 0;
    const char c = character(p, length);
    p += length;
    return static_cast<unsigned char>(c);
  }

  /// What get() would return, without moving.
  int peek(std::size_t p) const { return get(p); }

  /// The physical position of the next logical character at or after `p`.
  std::size_t skip_splices(std::size_t p) const {
    for (;;) {
      std::size_t length = 0;
      if (p >= s_.size() || character(p, length) != '\\') return p;
      std::size_t q = p + length;
      if (r_.spaced_splices) {
        while (q < s_.size() && is_horizontal_space(s_[q])) ++q;
      }
      const std::size_t newline = newline_length(q);
      if (newline == 0) return p;
      p = q + newline;
    }
  }

 private:
  // The physical character at `p` after phase 1 (a trigraph is three characters).
  char character(std::size_t p, std::size_t& length) const {
    if (r_.trigraphs && s_[p] == '?' && p + 2 < s_.size() && s_[p + 1] == '?') {
      if (const char replaced = trigraph(s_[p + 2])) {
        length = 3;
        return replaced;
      }
    }
    length = 1;
    return s_[p];
  }

  std::size_t newline_length(std::size_t q) const {
    if (q >= s_.size()) return 0;
    if (s_[q] == '\n') return 1;
    if (s_[q] == '\r') {
      if (q + 1 < s_.size() && s_[q + 1] == '\n') return 2;
      return r_.lone_cr_newlines ? 1 : 0;
    }
    return 0;
  }

  std::string_view s_;
  SourceReading r_;
};

class Lexer {
 public:
  Lexer(std::string_view source, SourceReading reading)
      : text_(source, reading), reading_(reading) {}

  std::vector<SourceToken> run() {
    std::size_t p = 0;
    bool line_start = true;
    std::size_t line_first = 0;  // the index of the current logical line's first token
    for (;;) {
      const std::size_t at = text_.skip_splices(p);
      std::size_t q = at;
      const int c = text_.get(q);
      if (c == kEnd) break;
      if (c == '\n') {
        line_start = true;
        p = q;
        continue;
      }
      if (is_horizontal_space(c) || c == '\r' || c == 0) {
        p = q;
        continue;
      }
      if (c == '/' && text_.peek(q) == '/') {  // to the end of the logical line, not past it
        p = q;
        text_.get(p);
        for (int e = text_.peek(p); e != kEnd && e != '\n'; e = text_.peek(p)) text_.get(p);
        continue;
      }
      if (c == '/' && text_.peek(q) == '*') {
        text_.get(q);
        int previous = 0;
        for (int e = text_.get(q); e != kEnd; e = text_.get(q)) {
          if (previous == '*' && e == '/') break;
          previous = e;
        }
        p = q;
        continue;
      }
      if (line_start) line_first = tokens_.size();
      const bool after_include = tokens_.size() == line_first + 2 && !line_start &&
                                 tokens_[line_first].text == "#" &&
                                 tokens_[line_first + 1].kind == SourceToken::Kind::identifier &&
                                 is_include_like(tokens_[line_first + 1].text);
      SourceToken token{SourceToken::Kind::punctuator, {}, line_of(at), line_start, at, at};
      line_start = false;
      p = at;
      lex_token(c, after_include, p, token);
      token.end = p;
      tokens_.push_back(std::move(token));
    }
    return std::move(tokens_);
  }

 private:
  bool starts_name(int c, std::size_t after) const {
    return is_letter(c) || (reading_.extended_identifiers && (c == '$' || c >= 0x80)) ||
           (c == '\\' && (text_.peek(after) == 'u' || text_.peek(after) == 'U'));
  }
  bool continues_name(int c, std::size_t after) const {
    return starts_name(c, after) || is_digit(c);
  }

  // Appends the logical character at `p` to `out` and moves past it.
  void take(std::size_t& p, std::string& out) const {
    const int c = text_.get(p);
    if (c != kEnd) out += static_cast<char>(c);
  }

  void lex_token(int c, bool after_include, std::size_t& p, SourceToken& token) {
    std::string& out = token.text;
    std::size_t next = p;
    text_.get(next);
    if (starts_name(c, next)) {
      token.kind = SourceToken::Kind::identifier;
      for (;;) {
        std::size_t after = p;
        const int d = text_.get(after);
        if (d == kEnd || !continues_name(d, after)) break;
        out += static_cast<char>(d);
        p = after;
        if (d == '\\') take(p, out);  // the u or U of a universal character name
      }
      const int quote = text_.peek(p);
      const bool raw_prefix =
          out == "R" || out == "LR" || out == "uR" || out == "UR" || out == "u8R";
      if (quote == '"' && raw_prefix) {
        lex_raw_string(p, token);
      } else if ((quote == '"' || quote == '\'') &&
                 (out == "L" || out == "u" || out == "U" || out == "u8")) {
        token.kind = SourceToken::Kind::literal;
        take(p, out);
        lex_literal_body(quote, p, out);
      }
      return;
    }
    if (is_digit(c) || (c == '.' && is_digit(text_.peek(next)))) {
      token.kind = SourceToken::Kind::number;
      take(p, out);
      for (;;) {
        std::size_t after = p;
        const int d = text_.get(after);
        if (d == '\'' && continues_name(text_.peek(after), after)) {  // a digit separator
          out += '\'';
          p = after;
          take(p, out);
        } else if (d != kEnd && (continues_name(d, after) || d == '.')) {
          out += static_cast<char>(d);
          p = after;
          if ((d == 'e' || d == 'E' || d == 'p' || d == 'P') &&
              (text_.peek(p) == '+' || text_.peek(p) == '-')) {
            take(p, out);
          }
        } else {
          break;
        }
      }
      return;
    }
    if (c == '"' || c == '\'') {
      token.kind = SourceToken::Kind::literal;
      take(p, out);
      lex_literal_body(c, p, out);
      return;
    }
    if (c == '<' && after_include) {
      token.kind = SourceToken::Kind::header_name;
      take(p, out);
      for (int d = text_.peek(p); d != kEnd && d != '\n'; d = text_.peek(p)) {
        take(p, out);
        if (d == '>') break;
      }
      return;
    }
    token.kind = SourceToken::Kind::punctuator;
    if (c == '#') {
      text_.get(p);
      out = "#";
      if (text_.peek(p) == '#') {
        text_.get(p);
        out = "##";
      }
      return;
    }
    if (c == '%' && text_.peek(next) == ':') {
      p = next;
      text_.get(p);
      out = "#";
      std::size_t after = p;
      if (text_.get(after) == '%' && text_.get(after) == ':') {
        p = after;
        out = "##";
      }
      return;
    }
    take(p, out);
  }

  // After the opening quote: to the closing one, or to the end of the line (not past it).
  void lex_literal_body(int quote, std::size_t& p, std::string& out) const {
    for (;;) {
      std::size_t after = p;
      const int d = text_.get(after);
      if (d == kEnd || d == '\n') return;
      out += static_cast<char>(d);
      p = after;
      if (d == quote) return;
      if (d == '\\' && text_.peek(p) != '\n') take(p, out);
    }
  }

  // `p` is at the opening quote of R"delimiter( ... )delimiter". Inside, phases 1 and 2 are
  // undone: the delimiter and the text are read as written.
  void lex_raw_string(std::size_t& p, SourceToken& token) const {
    const std::string_view s = text_.physical();
    text_.get(p);
    const std::size_t delimiter_begin = p;
    std::size_t q = p;
    auto valid = [](char c) {
      return c != ' ' && c != '(' && c != ')' && c != '\\' && c != '\t' && c != '\v' &&
             c != '\f' && c != '\n' && c != '\r';
    };
    while (q < s.size() && q - delimiter_begin <= 16 && valid(s[q])) ++q;
    if (q >= s.size() || s[q] != '(' || q - delimiter_begin > 16) {
      token.kind = SourceToken::Kind::malformed;
      token.text = std::string(s.substr(token.begin, q - token.begin));
      p = q;
      return;
    }
    const std::string closing =
        ")" + std::string(s.substr(delimiter_begin, q - delimiter_begin)) + "\"";
    const std::size_t close = s.find(closing, q + 1);
    p = close == std::string_view::npos ? s.size() : close + closing.size();
    token.kind = SourceToken::Kind::literal;
    token.text = std::string(s.substr(token.begin, p - token.begin));
  }

  int line_of(std::size_t at) {
    const std::string_view s = text_.physical();
    line_ += static_cast<int>(std::count(s.begin() + counted_, s.begin() + at, '\n'));
    counted_ = at;
    return line_;
  }

  LogicalText text_;
  SourceReading reading_;
  std::vector<SourceToken> tokens_;
  std::size_t counted_ = 0;
  int line_ = 0;
};

}  // namespace

std::string SourceReading::description() const {
  std::string out;
  auto add = [&](bool on, const char* what) {
    if (!on) return;
    if (!out.empty()) out += " and ";
    out += what;
  };
  add(trigraphs, "with trigraphs replaced (as C++14 and -trigraphs do)");
  add(spaced_splices,
      "with a backslash and white space before a line end taken as a line splice (as GCC and "
      "Clang take it)");
  add(lone_cr_newlines,
      "with a carriage return alone taken as a line end (as GCC and Clang take it)");
  add(extended_identifiers,
      "with '$' and non-ASCII characters taken as parts of names (as GCC and Clang take them)");
  return out;
}

std::vector<SourceReading> every_source_reading(std::string_view source) {
  const bool question_marks = source.find("??") != std::string_view::npos;
  bool spaced_backslash = false;
  bool lone_cr = false;
  bool extended = false;
  for (std::size_t i = 0; i < source.size(); ++i) {
    const auto c = static_cast<unsigned char>(source[i]);
    const bool trigraph_backslash =
        c == '/' && i >= 2 && source[i - 1] == '?' && source[i - 2] == '?';
    if (c == '\\' || trigraph_backslash) {
      std::size_t k = i + 1;
      while (k < source.size() && is_horizontal_space(source[k])) ++k;
      spaced_backslash |=
          k > i + 1 && k < source.size() && (source[k] == '\n' || source[k] == '\r');
    }
    lone_cr |= c == '\r' && (i + 1 == source.size() || source[i + 1] != '\n');
    extended |= c == '$' || c >= 0x80;
  }
  std::vector<SourceReading> readings;
  for (int bits = 0; bits < 16; ++bits) {
    const SourceReading reading{(bits & 1) != 0, (bits & 2) != 0, (bits & 4) != 0,
                                (bits & 8) != 0};
    if ((reading.trigraphs && !question_marks) || (reading.spaced_splices && !spaced_backslash) ||
        (reading.lone_cr_newlines && !lone_cr) || (reading.extended_identifiers && !extended)) {
      continue;
    }
    readings.push_back(reading);
  }
  return readings;
}

std::vector<SourceToken> preprocessing_tokens(std::string_view source, SourceReading reading) {
  return Lexer(source, reading).run();
}

std::vector<SourceDirective> source_directives(const std::vector<SourceToken>& tokens) {
  std::vector<SourceDirective> directives;
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    const SourceToken& hash = tokens[i];
    if (!hash.first_on_line || hash.kind != SourceToken::Kind::punctuator || hash.text != "#") {
      continue;
    }
    SourceDirective directive;
    directive.line = hash.line;
    directive.begin = hash.begin;
    directive.end = hash.end;
    std::size_t k = i + 1;
    if (k < tokens.size() && !tokens[k].first_on_line &&
        tokens[k].kind == SourceToken::Kind::identifier) {
      directive.name = tokens[k].text;
      directive.end = tokens[k].end;
      ++k;
    }
    for (; k < tokens.size() && !tokens[k].first_on_line; ++k) {
      directive.operands.push_back(tokens[k]);
      directive.end = tokens[k].end;
    }
    directives.push_back(std::move(directive));
    i = k - 1;
  }
  return directives;
}

}  // namespace jitvec::codegen

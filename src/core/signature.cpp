#include "jitvec/signature.hpp"

#include <fmt/format.h>

#include <cctype>

#include "jitvec/errors.hpp"

namespace jitvec {
namespace {

// A tiny recursive-descent reader over "result(arg, arg, ...)", where the result is a type or
// a parenthesized list of types "(result, result, ...)".
class SignatureReader {
 public:
  explicit SignatureReader(std::string_view text) : text_(text) {}

  Signature read() {
    Signature sig;
    skip_space();
    if (peek() == '(') {
      const std::size_t open = pos_++;
      skip_space();
      if (peek() == ')') fail("a ufunc returns at least one result: the result list is empty", open);
      read_list(sig.results, "result type");
      expect(')');
    } else {
      sig.results.push_back(read_type("result type"));
    }
    expect('(');
    skip_space();
    if (peek() != ')') read_list(sig.args, "argument type");
    expect(')');
    skip_space();
    if (pos_ != text_.size()) fail("unexpected text after ')'");
    if (sig.args.empty()) fail("a ufunc takes at least one argument");
    return sig;
  }

 private:
  // "type, type, ..." up to (not including) the closing parenthesis.
  void read_list(std::vector<DType>& types, const char* what) {
    for (;;) {
      types.push_back(read_type(what));
      skip_space();
      if (peek() != ',') return;
      ++pos_;
    }
  }
  char peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }
  void skip_space() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  void expect(char c) {
    skip_space();
    if (peek() != c) fail(fmt::format("expected '{}'", c));
    ++pos_;
  }
  DType read_type(const char* what) {
    skip_space();
    const std::size_t start = pos_;
    while (pos_ < text_.size() &&
           (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_' ||
            text_[pos_] == '?')) {
      ++pos_;
    }
    const std::string_view name = text_.substr(start, pos_ - start);
    if (name.empty()) fail(fmt::format("expected a {}", what), start);
    if (auto t = parse_dtype(name)) return *t;
    fail(fmt::format("unknown type '{}' (known: bool, int8, int16, int32, int64, uint8, uint16, "
                     "uint32, uint64, float32, float64, or short codes like f4, i2, u1, b1)",
                     name),
         start);
  }
  [[noreturn]] void fail(const std::string& why) const { fail(why, pos_); }
  [[noreturn]] void fail(const std::string& why, std::size_t at) const {
    throw SignatureError(fmt::format("bad signature \"{}\": {} at column {}\n  {}\n  {}^", text_,
                                     why, at + 1, text_, std::string(at, ' ')));
  }

  std::string_view text_;
  std::size_t pos_ = 0;
};

}  // namespace

Signature Signature::parse(std::string_view text) { return SignatureReader(text).read(); }

namespace {

std::string type_list(const std::vector<DType>& types) {
  std::string s;
  for (std::size_t i = 0; i < types.size(); ++i) {
    if (i) s += ", ";
    s += dtype_name(types[i]);
  }
  return s;
}

}  // namespace

std::string Signature::to_string() const {
  const std::string result =
      results.size() == 1 ? std::string(dtype_name(results[0])) : "(" + type_list(results) + ")";
  return result + "(" + type_list(args) + ")";
}

}  // namespace jitvec

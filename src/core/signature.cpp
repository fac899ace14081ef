#include "jitvec/signature.hpp"

#include <fmt/format.h>

#include <cctype>

#include "jitvec/errors.hpp"

namespace jitvec {
namespace {

// A tiny recursive-descent reader over "result(arg, arg, ...)".
class SignatureReader {
 public:
  explicit SignatureReader(std::string_view text) : text_(text) {}

  Signature read() {
    Signature sig;
    sig.result = read_type("result type");
    expect('(');
    skip_space();
    if (peek() != ')') {
      for (;;) {
        sig.args.push_back(read_type("argument type"));
        skip_space();
        if (peek() == ',') {
          ++pos_;
          continue;
        }
        break;
      }
    }
    expect(')');
    skip_space();
    if (pos_ != text_.size()) fail("unexpected text after ')'");
    if (sig.args.empty()) fail("a ufunc takes at least one argument");
    return sig;
  }

 private:
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

std::string Signature::to_string() const {
  std::string s = fmt::format("{}(", dtype_name(result));
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (i) s += ", ";
    s += dtype_name(args[i]);
  }
  s += ')';
  return s;
}

}  // namespace jitvec

#include "codegen/portable_source.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <optional>

#include "codegen/line_directive.hpp"
#include "codegen/source_lexer.hpp"
#include "jitvec/errors.hpp"

namespace jitvec::codegen {
namespace {

constexpr const char* kNothingMore =
    "// jitvec: provided on the GPU by CUDA's built-ins and the device prelude\n";

constexpr const char* kFloatLimits = R"(#pragma once
#define FLT_RADIX 2
#define FLT_MANT_DIG 24
#define DBL_MANT_DIG 53
#define FLT_DIG 6
#define DBL_DIG 15
#define FLT_MIN_EXP (-125)
#define DBL_MIN_EXP (-1021)
#define FLT_MAX_EXP 128
#define DBL_MAX_EXP 1024
#define FLT_MAX 3.40282347e+38F
#define DBL_MAX 1.7976931348623157e+308
#define FLT_MIN 1.17549435e-38F
#define DBL_MIN 2.2250738585072014e-308
#define FLT_EPSILON 1.19209290e-7F
#define DBL_EPSILON 2.2204460492503131e-16
#define FLT_TRUE_MIN 1.40129846e-45F
#define DBL_TRUE_MIN 4.9406564584124654e-324
)";

// LP64, as on every host jitvec builds for (and as CUDA's long is on those hosts).
constexpr const char* kIntegerLimits = R"(#pragma once
#define CHAR_BIT 8
#define SCHAR_MIN (-128)
#define SCHAR_MAX 127
#define UCHAR_MAX 255
#define CHAR_MIN SCHAR_MIN
#define CHAR_MAX SCHAR_MAX
#define SHRT_MIN (-32768)
#define SHRT_MAX 32767
#define USHRT_MAX 65535
#define INT_MIN (-2147483647 - 1)
#define INT_MAX 2147483647
#define UINT_MAX 4294967295U
#define LONG_MIN (-9223372036854775807L - 1)
#define LONG_MAX 9223372036854775807L
#define ULONG_MAX 18446744073709551615UL
#define LLONG_MIN (-9223372036854775807LL - 1)
#define LLONG_MAX 9223372036854775807LL
#define ULLONG_MAX 18446744073709551615ULL
)";

// The part of <type_traits> that scalar code uses; the host has the whole header, so a source
// that uses more compiles there and fails here with NVRTC's "not a member of std" message.
constexpr const char* kTypeTraits = R"(#pragma once
namespace std {
template <class T, T v> struct integral_constant { static constexpr T value = v; typedef T value_type; constexpr operator T() const { return v; } };
typedef integral_constant<bool, true> true_type;
typedef integral_constant<bool, false> false_type;
template <class A, class B> struct is_same : false_type {};
template <class A> struct is_same<A, A> : true_type {};
template <class A, class B> inline constexpr bool is_same_v = is_same<A, B>::value;
template <bool B, class T = void> struct enable_if {};
template <class T> struct enable_if<true, T> { typedef T type; };
template <bool B, class T = void> using enable_if_t = typename enable_if<B, T>::type;
template <bool B, class T, class F> struct conditional { typedef T type; };
template <class T, class F> struct conditional<false, T, F> { typedef F type; };
template <bool B, class T, class F> using conditional_t = typename conditional<B, T, F>::type;
template <class T> struct remove_const { typedef T type; };
template <class T> struct remove_const<const T> { typedef T type; };
template <class T> struct remove_volatile { typedef T type; };
template <class T> struct remove_volatile<volatile T> { typedef T type; };
template <class T> struct remove_cv { typedef typename remove_volatile<typename remove_const<T>::type>::type type; };
template <class T> using remove_cv_t = typename remove_cv<T>::type;
template <class T> struct remove_reference { typedef T type; };
template <class T> struct remove_reference<T&> { typedef T type; };
template <class T> struct remove_reference<T&&> { typedef T type; };
template <class T> using remove_reference_t = typename remove_reference<T>::type;
template <class T> struct jitvec_is_integer : false_type {};
template <> struct jitvec_is_integer<bool> : true_type {};
template <> struct jitvec_is_integer<char> : true_type {};
template <> struct jitvec_is_integer<signed char> : true_type {};
template <> struct jitvec_is_integer<unsigned char> : true_type {};
template <> struct jitvec_is_integer<short> : true_type {};
template <> struct jitvec_is_integer<unsigned short> : true_type {};
template <> struct jitvec_is_integer<int> : true_type {};
template <> struct jitvec_is_integer<unsigned int> : true_type {};
template <> struct jitvec_is_integer<long> : true_type {};
template <> struct jitvec_is_integer<unsigned long> : true_type {};
template <> struct jitvec_is_integer<long long> : true_type {};
template <> struct jitvec_is_integer<unsigned long long> : true_type {};
template <class T> struct jitvec_is_real : false_type {};
template <> struct jitvec_is_real<float> : true_type {};
template <> struct jitvec_is_real<double> : true_type {};
template <> struct jitvec_is_real<long double> : true_type {};
template <class T> struct is_integral : jitvec_is_integer<remove_cv_t<T>> {};
template <class T> struct is_floating_point : jitvec_is_real<remove_cv_t<T>> {};
template <class T> struct is_arithmetic : integral_constant<bool, is_integral<T>::value || is_floating_point<T>::value> {};
template <class T> struct is_signed : integral_constant<bool, is_arithmetic<T>::value && T(-1) < T(0)> {};
template <class T> struct is_unsigned : integral_constant<bool, is_arithmetic<T>::value && T(0) < T(-1)> {};
template <class T> inline constexpr bool is_integral_v = is_integral<T>::value;
template <class T> inline constexpr bool is_floating_point_v = is_floating_point<T>::value;
template <class T> inline constexpr bool is_arithmetic_v = is_arithmetic<T>::value;
template <class T> inline constexpr bool is_signed_v = is_signed<T>::value;
template <class T> inline constexpr bool is_unsigned_v = is_unsigned<T>::value;
}  // namespace std
)";

// Names of per-thread and kernel code, which a per-element function cannot use on the host and
// must not use on the GPU.
constexpr const char* kPerThreadNames[] = {"threadIdx", "blockIdx", "blockDim", "gridDim",
                                           "__syncthreads", "__shared__", "__global__"};

// Names the host's C++ library has and NVRTC has not, with what works on both instead. Refused
// on both targets, so a source that compiles for the cpu target compiles for the GPU.
struct HostOnlyName {
  const char* name;
  const char* instead;
};
constexpr HostOnlyName kHostOnlyNames[] = {
    {"numeric_limits",
     "use the macros of <cfloat> and <climits> (FLT_MAX, DBL_EPSILON, FLT_MIN, INT_MAX, "
     "LLONG_MIN, ...)"},
    {"fpclassify", "use isnan, isinf, isfinite and signbit"},
    {"FP_NAN", "use isnan"},
    {"FP_INFINITE", "use isinf"},
    {"FP_ZERO", "compare with 0"},
    {"FP_SUBNORMAL", "compare fabs(x) with FLT_MIN or DBL_MIN"},
    {"FP_NORMAL", "use isfinite and compare fabs(x) with FLT_MIN or DBL_MIN"},
};

// Names that make the preprocessor look for files (__has_include), or run a pragma that may
// (_Pragma, __pragma), wherever they appear; _Pragma with a string literal is checked as the
// pragma it spells.
constexpr const char* kFileLookupNames[] = {"__has_include", "__has_include_next", "__has_embed",
                                            "_Pragma", "__pragma"};

// Pragmas that read files or bring in code from outside the source, as the second word after
// a namespace (`#pragma GCC dependency "f"`, `#pragma clang module import m`) or the first.
constexpr const char* kFilePragmasInNamespace[] = {"dependency", "pch_preprocess", "__debug",
                                                   "module"};
constexpr const char* kFilePragmas[] = {"dependency", "include_alias", "hdrstop", "comment",
                                        "detect_mismatch"};

// Directives other than #include that read a file.
constexpr const char* kFileDirectives[] = {"include_next", "import", "embed"};

using Kind = SourceToken::Kind;

template <std::size_t N>
bool is_one_of(const std::string& text, const char* const (&names)[N]) {
  for (const char* name : names) {
    if (text == name) return true;
  }
  return false;
}

// The tokens as the preprocessor sees them, separated by spaces, for messages.
std::string spelled(const std::vector<SourceToken>& tokens) {
  std::string out;
  for (const SourceToken& t : tokens) {
    if (!out.empty()) out += ' ';
    out += t.text;
  }
  return out;
}

// What a _Pragma("...") string literal stands for: its text without the quotes (and an L
// prefix), \" and \\ undone. Empty when `literal` is not a plain or wide string literal.
std::optional<std::string> destringized(const std::string& literal) {
  std::string_view body = literal;
  if (!body.empty() && body[0] == 'L') body.remove_prefix(1);
  if (body.size() < 2 || body.front() != '"' || body.back() != '"') return std::nullopt;
  body = body.substr(1, body.size() - 2);
  std::string out;
  for (std::size_t i = 0; i < body.size(); ++i) {
    if (body[i] == '\\' && i + 1 < body.size() && (body[i + 1] == '"' || body[i + 1] == '\\')) ++i;
    out += body[i];
  }
  return out;
}

/// Checks one source under one reading; throws DefinitionError for the first problem.
class SourceCheck {
 public:
  SourceCheck(std::string_view source, const std::string& file, int first_line,
              const std::string& definition, SourceReading reading)
      : source_(source), file_(file), first_line_(first_line), definition_(definition),
        reading_(reading), tokens_(preprocessing_tokens(source, reading)) {}

  void run() const {
    // First what makes the compilers disagree on which lines are directives.
    for (const SourceToken& token : tokens_) {
      if (token.kind == Kind::malformed) {
        fail(token.line, fmt::format(
                             "{} is a raw string literal whose delimiter is not valid (at most 16 "
                             "characters before the '(', none of them a space, a parenthesis, a "
                             "backslash or a control character)",
                             c_string_literal(token.text)));
      }
    }
    for (const SourceDirective& directive : source_directives(tokens_)) check_directive(directive);
    const bool pastes = std::any_of(tokens_.begin(), tokens_.end(), [](const SourceToken& t) {
      return t.kind == Kind::punctuator && t.text == "##";
    });
    for (std::size_t i = 0; i < tokens_.size(); ++i) {
      if (tokens_[i].kind != Kind::identifier) continue;
      check_name(i);
      if (pastes) check_paste_prefix(tokens_[i]);
    }
  }

 private:
  [[noreturn]] void fail(int line, const std::string& what) const {
    const std::string reading = reading_.description();
    throw DefinitionError(
        fmt::format("{}:{}: {}: {}{}", file_, first_line_ + line, definition_, what,
                    reading.empty() ? "" : " (when the source is read " + reading + ")"));
  }

  // The directive as written, when that differs from what the preprocessor reads.
  std::string as_written(const SourceDirective& directive, const std::string& read) const {
    const std::string written(source_.substr(directive.begin, directive.end - directive.begin));
    return written == read ? std::string()
                           : fmt::format("; the line as written: {}", c_string_literal(written));
  }

  void check_directive(const SourceDirective& directive) const {
    const std::string read = "#" + directive.name +
                             (directive.operands.empty() ? "" : " " + spelled(directive.operands));
    if (directive.name == "include") {
      const std::vector<SourceToken>& operands = directive.operands;
      const bool header_name =
          operands.size() == 1 &&
          (operands[0].kind == Kind::header_name ||
           (operands[0].kind == Kind::literal && operands[0].text[0] == '"'));
      if (header_name) {
        const std::string& header = operands[0].text;
        const std::string name = header.substr(1, header.size() - 2);
        const char close = header[0] == '<' ? '>' : '"';
        const bool closed = header.size() >= 2 && header.back() == close;
        bool listed = false;
        for (const PortableHeader& h : portable_headers()) listed |= name == h.name;
        if (closed && listed) return;
        fail(directive.line,
             fmt::format("#include {} is not available to ufunc source: ufuncs compile for the "
                         "GPU (NVRTC) and the host alike, and may include only {} (the math "
                         "functions and int32_t, uint8_t, ... need no #include){}",
                         header, portable_header_list(), as_written(directive, read)));
      }
      fail(directive.line,
           fmt::format("'{}' does not name a header as <header> or \"header\": ufunc source may "
                       "include only {}, named so (not through a macro){}",
                       read, portable_header_list(), as_written(directive, read)));
    }
    if (is_one_of(directive.name, kFileDirectives)) {
      fail(directive.line,
           fmt::format("'{}' reads a file, which ufunc source may not do: it may include only "
                       "{}, with #include{}",
                       read, portable_header_list(), as_written(directive, read)));
    }
    if (directive.name == "pragma") {
      check_pragma(directive.line, directive.operands, read, as_written(directive, read));
    }
  }

  void check_pragma(int line, const std::vector<SourceToken>& operands, const std::string& read,
                    const std::string& written) const {
    auto word = [&](std::size_t k) {
      return k < operands.size() && operands[k].kind == Kind::identifier ? operands[k].text
                                                                        : std::string();
    };
    const bool refused = is_one_of(word(0), kFilePragmas) ||
                         (!word(0).empty() && is_one_of(word(1), kFilePragmasInNamespace));
    if (refused) {
      fail(line, fmt::format("'{}' reads files or brings in code from outside the source, which "
                             "ufunc source may not do{}",
                             read, written));
    }
  }

  void check_name(std::size_t i) const {
    const SourceToken& token = tokens_[i];
    if (token.text == "_Pragma") {
      // _Pragma ( "string" ): checked as the #pragma it spells.
      const bool literal = i + 3 < tokens_.size() && tokens_[i + 1].text == "(" &&
                           tokens_[i + 2].kind == Kind::literal && tokens_[i + 3].text == ")";
      const std::optional<std::string> pragma =
          literal ? destringized(tokens_[i + 2].text) : std::nullopt;
      if (!pragma) {
        fail(token.line, "_Pragma is given something other than a string literal: ufunc source "
                         "may use _Pragma only with the pragma spelled out in \"...\", so that it "
                         "can be checked");
      }
      const std::vector<SourceToken> operands = preprocessing_tokens(*pragma, reading_);
      check_pragma(token.line, operands, "_Pragma(" + tokens_[i + 2].text + ")", "");
      return;
    }
    if (token.text == "__pragma" || token.text.rfind("__has_include", 0) == 0 ||
        token.text.rfind("__has_embed", 0) == 0) {
      fail(token.line, fmt::format("'{}' looks for files or runs a pragma that cannot be checked, "
                                   "which ufunc source may not do",
                                   token.text));
    }
    for (const HostOnlyName& host_only : kHostOnlyNames) {
      if (token.text == host_only.name) {
        fail(token.line, fmt::format("'{}' is not available to ufunc source: the host's C++ "
                                     "library has it but the GPU's (NVRTC) has not, and ufuncs "
                                     "compile for both alike; {}",
                                     host_only.name, host_only.instead));
      }
    }
    for (const char* name : kPerThreadNames) {
      if (token.text == name) {
        fail(token.line, fmt::format("'{}' is per-thread or kernel code, which a ufunc cannot "
                                     "use: a ufunc is a function of one element's values, and "
                                     "jitvec writes the loops (GPU kernels and host loops) that "
                                     "call it",
                                     name));
      }
    }
  }

  // With ## in the source, a name that begins one of kFileLookupNames could be pasted into it
  // (`CAT(__has_, include)`): a paste begins with the spelling of some token of the source.
  void check_paste_prefix(const SourceToken& token) const {
    for (const char* name : kFileLookupNames) {
      const std::string_view whole = name;
      if (token.text.size() < whole.size() &&
          whole.compare(0, token.text.size(), token.text) == 0) {
        fail(token.line, fmt::format("'{}' with token pasting (##) in the source could be pasted "
                                     "into '{}', which ufunc source may not use; rename it",
                                     token.text, name));
      }
    }
  }

  std::string_view source_;
  const std::string& file_;
  int first_line_;
  const std::string& definition_;
  SourceReading reading_;
  std::vector<SourceToken> tokens_;
};

std::vector<std::string> split_lines(std::string_view text) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    lines.emplace_back(text.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

}  // namespace

const std::vector<PortableHeader>& portable_headers() {
  static const std::vector<PortableHeader> headers = {
      {"cmath", kNothingMore},         {"math.h", kNothingMore},     {"cstdint", kNothingMore},
      {"stdint.h", kNothingMore},      {"cfloat", kFloatLimits},     {"float.h", kFloatLimits},
      {"climits", kIntegerLimits},     {"limits.h", kIntegerLimits}, {"type_traits", kTypeTraits},
  };
  return headers;
}

std::string portable_header_list() {
  std::string list;
  for (const PortableHeader& h : portable_headers()) {
    list += fmt::format("{}<{}>", list.empty() ? "" : ", ", h.name);
  }
  return list;
}

void check_portable_source(std::string_view source, const std::string& file, int first_line,
                           const std::string& definition) {
  for (const SourceReading& reading : every_source_reading(source)) {
    SourceCheck(source, file, first_line, definition, reading).run();
  }
}

std::string annotate_compile_log(const std::string& log, const std::string& generated,
                                 const UfuncSource& ufunc,
                                 const std::vector<const HelperSource*>& helpers) {
  // Each #line name of the generated source, spelled as its string literal -> its lines, by
  // line number.
  std::map<std::string, std::map<int, std::string>> lines_of;
  {
    std::string current;
    int number = 0;
    for (const std::string& text : split_lines(generated)) {
      if (text.rfind("#line ", 0) == 0) {
        const std::size_t quote = text.find('"');
        const std::size_t last = text.find_last_not_of(" \t\r");
        number = std::atoi(text.c_str() + 6);
        current = quote == std::string::npos ? std::string() : text.substr(quote, last + 1 - quote);
        continue;
      }
      if (!current.empty()) lines_of[current][number] = text;
      ++number;
    }
  }
  // The names compilers print: the #line names decoded (a name may hold a newline, so a
  // message may span lines of the log), each with the path the user gave. Longest first, so a
  // name that begins another cannot take its messages.
  struct Name {
    std::string printed;
    std::string literal;
    std::string path;
  };
  std::vector<Name> names;
  auto add = [&](const std::string& name, const std::string& fallback, const std::string& path) {
    const std::string line_name = name.empty() ? fallback : name;
    names.push_back({line_name, c_string_literal(line_name), path.empty() ? line_name : path});
  };
  for (const HelperSource* h : helpers) add(h->origin_file, "helper:" + h->name, h->origin_path);
  add(ufunc.origin_file, "ufunc:" + ufunc.name, ufunc.origin_path);
  std::stable_sort(names.begin(), names.end(), [](const Name& a, const Name& b) {
    return a.printed.size() > b.printed.size();
  });

  std::string out;
  for (std::size_t at = 0; at < log.size();) {
    const Name* found = nullptr;
    for (const Name& name : names) {
      const std::size_t after = at + name.printed.size();
      if (after < log.size() && (log[after] == ':' || log[after] == '(') &&
          log.compare(at, name.printed.size(), name.printed) == 0) {
        found = &name;
        break;
      }
    }
    const std::size_t rest_at = found ? at + found->printed.size() : at;
    std::size_t end = log.find('\n', rest_at);
    if (end == std::string::npos) end = log.size();
    const std::string rest = log.substr(rest_at, end - rest_at);
    at = end + 1;
    if (!found) {
      out += rest + '\n';
      continue;
    }
    out += found->path + rest;
    // GCC/Clang: ":12:5: error: ..." -> add the user's line and a caret. NVRTC's
    // "(12): error: ..." already has them.
    int number = 0, column = 0;
    if (rest[0] == ':' && (std::sscanf(rest.c_str(), ":%d:%d:", &number, &column) == 2 ||
                           std::sscanf(rest.c_str(), ":%d:", &number) == 1)) {
      const auto& known = lines_of[found->literal];
      const auto line = known.find(number);
      if (line != known.end() && rest.find(": note:") == std::string::npos) {
        std::string caret;
        for (int k = 1; k < column && k <= static_cast<int>(line->second.size()); ++k) {
          caret += line->second[k - 1] == '\t' ? '\t' : ' ';
        }
        out += "\n  " + line->second;
        if (column > 0) out += "\n  " + caret + "^";
      }
    }
    out += '\n';
  }
  while (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

CompileError with_user_lines(const CompileError& error, const std::string& generated,
                             const UfuncSource& ufunc,
                             const std::vector<const HelperSource*>& helpers) {
  const std::string log = annotate_compile_log(error.log(), generated, ufunc, helpers);
  std::string message = error.what();
  const std::size_t at = error.log().empty() ? std::string::npos : message.find(error.log());
  if (at != std::string::npos) message.replace(at, error.log().size(), log);
  if (!ufunc.compile_hint.empty()) message += "\n" + ufunc.compile_hint;
  return CompileError(std::move(message), error.ufunc(), log, error.options());
}

}  // namespace jitvec::codegen

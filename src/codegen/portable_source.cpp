#include "codegen/portable_source.hpp"

#include <fmt/format.h>

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <map>

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

struct Token {
  enum Kind { identifier, include } kind;
  std::string text;  // the identifier, or the header as written ("<cmath>", "\"x.h\"")
  std::string name;  // for an include: the header without its delimiters
  int line;          // 0-based, in `source`
};

// Identifiers and #include directives of `s`, outside comments and string/char literals.
std::vector<Token> scan(std::string_view s) {
  std::vector<Token> tokens;
  const std::size_t n = s.size();
  std::size_t i = 0;
  int line = 0;
  bool line_start = true;  // only white space so far on this line
  auto is_part = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  while (i < n) {
    const char c = s[i];
    if (c == '\n') {
      ++line;
      line_start = true;
      ++i;
    } else if (c == '/' && i + 1 < n && s[i + 1] == '/') {
      while (i < n && s[i] != '\n') ++i;
    } else if (c == '/' && i + 1 < n && s[i + 1] == '*') {
      std::size_t end = s.find("*/", i + 2);
      end = end == std::string_view::npos ? n : end + 2;
      for (std::size_t k = i; k < end; ++k) line += s[k] == '\n';
      i = end;
      line_start = false;
    } else if (c == '"' || c == '\'') {
      ++i;
      while (i < n && s[i] != c && s[i] != '\n') i += s[i] == '\\' ? 2 : 1;
      ++i;
      line_start = false;
    } else if (c == '#' && line_start) {
      std::size_t k = i + 1;
      while (k < n && (s[k] == ' ' || s[k] == '\t')) ++k;
      std::size_t word = k;
      while (k < n && is_part(s[k])) ++k;
      if (s.substr(word, k - word) == "include") {
        while (k < n && (s[k] == ' ' || s[k] == '\t')) ++k;
        std::size_t eol = s.find('\n', k);
        if (eol == std::string_view::npos) eol = n;
        std::string_view rest = s.substr(k, eol - k);
        while (!rest.empty() && std::isspace(static_cast<unsigned char>(rest.back()))) {
          rest.remove_suffix(1);
        }
        std::string_view text = rest;
        std::string_view name = rest;
        if (!rest.empty() && (rest[0] == '<' || rest[0] == '"')) {
          const std::size_t end = rest.find(rest[0] == '<' ? '>' : '"', 1);
          text = end == std::string_view::npos ? rest : rest.substr(0, end + 1);
          name = end == std::string_view::npos ? rest.substr(1) : rest.substr(1, end - 1);
        }
        tokens.push_back({Token::include, std::string(text), std::string(name), line});
        k += text.size();
      }
      i = k;
      line_start = false;
    } else if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      const std::size_t start = i;
      while (i < n && is_part(s[i])) ++i;
      tokens.push_back({Token::identifier, std::string(s.substr(start, i - start)), {}, line});
      line_start = false;
    } else {
      if (c != ' ' && c != '\t' && c != '\r') line_start = false;
      ++i;
    }
  }
  return tokens;
}

std::string unescape(std::string_view quoted) {
  std::string out;
  for (std::size_t i = 0; i < quoted.size(); ++i) {
    if (quoted[i] == '\\' && i + 1 < quoted.size()) ++i;
    out += quoted[i];
  }
  return out;
}

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

void check_portable_source(std::string_view source, const std::string& file, int first_line) {
  for (const Token& token : scan(source)) {
    const int line = first_line + token.line;
    if (token.kind == Token::include) {
      bool allowed = false;
      for (const PortableHeader& h : portable_headers()) allowed |= token.name == h.name;
      if (!allowed) {
        throw DefinitionError(fmt::format(
            "{}:{}: #include {} is not available to ufunc source: ufuncs compile for the GPU "
            "(NVRTC) and the host alike, and may include only {} (the math functions and "
            "int32_t, uint8_t, ... need no #include)",
            file, line, token.text, portable_header_list()));
      }
    } else {
      for (const HostOnlyName& host_only : kHostOnlyNames) {
        if (token.text == host_only.name) {
          throw DefinitionError(fmt::format(
              "{}:{}: '{}' is not available to ufunc source: the host's C++ library has it but "
              "the GPU's (NVRTC) has not, and ufuncs compile for both alike; {}",
              file, line, host_only.name, host_only.instead));
        }
      }
      for (const char* name : kPerThreadNames) {
        if (token.text == name) {
          throw DefinitionError(fmt::format(
              "{}:{}: '{}' is per-thread or kernel code, which a ufunc cannot use: a ufunc is a "
              "function of one element's values, and jitvec writes the loops (GPU kernels and "
              "host loops) that call it",
              file, line, name));
        }
      }
    }
  }
}

std::string annotate_compile_log(const std::string& log, const std::string& generated,
                                 const UfuncSource& ufunc,
                                 const std::vector<const HelperSource*>& helpers) {
  // Each #line name of the generated source -> its lines, by line number.
  std::map<std::string, std::map<int, std::string>> lines_of;
  {
    const std::vector<std::string> lines = split_lines(generated);
    std::string current;
    int number = 0;
    for (const std::string& text : lines) {
      if (text.rfind("#line ", 0) == 0) {
        const std::size_t quote = text.find('"');
        number = std::atoi(text.c_str() + 6);
        current = quote == std::string::npos
                      ? std::string()
                      : unescape(std::string_view(text).substr(quote + 1, text.size() - quote - 2));
        continue;
      }
      if (!current.empty()) lines_of[current][number] = text;
      ++number;
    }
  }
  std::map<std::string, std::string> path_of;  // #line name -> the path the user gave
  auto add = [&](const std::string& name, const std::string& fallback, const std::string& path) {
    const std::string line_name = name.empty() ? fallback : name;
    path_of[line_name] = path.empty() ? line_name : path;
  };
  for (const HelperSource* h : helpers) add(h->origin_file, "helper:" + h->name, h->origin_path);
  add(ufunc.origin_file, "ufunc:" + ufunc.name, ufunc.origin_path);

  std::string out;
  for (const std::string& text : split_lines(log)) {
    std::string line = text;
    for (const auto& [name, path] : path_of) {
      if (line.rfind(name, 0) != 0 || line.size() <= name.size()) continue;
      const char next = line[name.size()];
      if (next != ':' && next != '(') continue;
      const std::string rest = line.substr(name.size());
      line = path + rest;
      if (next != ':') break;
      // GCC/Clang: ":12:5: error: ..." -> add the user's line and a caret.
      int number = 0, column = 0;
      if (std::sscanf(rest.c_str(), ":%d:%d:", &number, &column) == 2 ||
          std::sscanf(rest.c_str(), ":%d:", &number) == 1) {
        const auto& known = lines_of[name];
        const auto found = known.find(number);
        if (found != known.end() && rest.find(": note:") == std::string::npos) {
          std::string caret;
          for (int k = 1; k < column && k <= static_cast<int>(found->second.size()); ++k) {
            caret += found->second[k - 1] == '\t' ? '\t' : ' ';
          }
          line += "\n  " + found->second;
          if (column > 0) line += "\n  " + caret + "^";
        }
      }
      break;
    }
    out += line;
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
  return CompileError(std::move(message), error.ufunc(), log, error.options());
}

}  // namespace jitvec::codegen

// The rule of device_types.hpp's "Which parts a module carries": which parts of the types
// prelude a GPU module needs, from its loop's dtypes and a scan of the user's source text.
#include <array>
#include <cctype>

#include "kernels/device_types.hpp"

namespace jitvec::kernels {
namespace {

bool is_word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

bool contains(std::string_view word, std::string_view part) {
  return word.find(part) != std::string_view::npos;
}

bool names_small_floats(std::string_view word) {
  static constexpr std::array<std::string_view, 5> kHalfMath{"hexp", "hlog", "hsqrt", "hsin",
                                                             "hcos"};
  if (contains(word, "half") || contains(word, "bfloat16") || contains(word, "bf16")) return true;
  if (word.size() > 3 && word.substr(0, 3) == "__h") return true;
  for (std::string_view name : kHalfMath) {
    if (word == name) return true;
  }
  return false;
}

bool names_complex(std::string_view word) { return contains(word, "complex") || word == "polar"; }

void add_dtype(TypesParts& parts, DType type) {
  parts.small_floats |= type == DType::float16 || type == DType::bfloat16;
  parts.complex |= type == DType::complex64 || type == DType::complex128;
}

}  // namespace

TypesParts types_parts_needed(const codegen::LoopSpec& spec, std::string_view user_code) {
  TypesParts parts;
  for (DType type : spec.loop.args) add_dtype(parts, type);
  for (DType type : spec.loop.results) add_dtype(parts, type);
  for (DType type : spec.inputs) add_dtype(parts, type);
  for (DType type : spec.outputs) add_dtype(parts, type);
  // Every run of letters, digits and '_' of the whole text (comments, strings and numbers too:
  // a superset of the identifiers, which only ever adds a part).
  for (std::size_t i = 0; i < user_code.size() && !(parts.small_floats && parts.complex);) {
    if (!is_word_char(user_code[i])) {
      ++i;
      continue;
    }
    const std::size_t start = i;
    while (i < user_code.size() && is_word_char(user_code[i])) ++i;
    const std::string_view word = user_code.substr(start, i - start);
    parts.small_floats = parts.small_floats || names_small_floats(word);
    parts.complex = parts.complex || names_complex(word);
  }
  return parts;
}

}  // namespace jitvec::kernels

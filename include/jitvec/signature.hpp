// jitvec/signature.hpp: a ufunc loop's type signature, parsed from Numba's spelling.
//
// `"float32(float32, float32, float32)"` becomes Signature{result: float32, args: {float32 x3}}.
// Short NumPy codes work too (`"f4(f4, f4)"`), and so does `"void"`-free whitespace of any
// kind. A malformed text throws SignatureError pointing at the offending column.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "jitvec/dtype.hpp"

namespace jitvec {

struct Signature {
  DType result;
  std::vector<DType> args;

  /// Parses Numba's spelling; throws SignatureError with the text and the column.
  static Signature parse(std::string_view text);
  /// Canonical text, "float32(float32, float32)"; parse(to_string()) round-trips.
  std::string to_string() const;

  friend bool operator==(const Signature& a, const Signature& b) {
    return a.result == b.result && a.args == b.args;
  }
};

}  // namespace jitvec

// jitvec/signature.hpp: a ufunc loop's type signature, parsed from Numba's spelling.
//
// `"float32(float32, float32, float32)"` becomes Signature{results: {float32}, args: {float32 x3}}.
// Short NumPy codes work too (`"f4(f4, f4)"`), and so does `"void"`-free whitespace of any
// kind. A malformed text throws SignatureError pointing at the offending column.
//
// Several results: the result is a parenthesized tuple, `"(float32, float32)(float32, float32)"`
// for a function of two float32s returning two float32s (polar_to_cartesian: (r, theta) ->
// (x, y)). Why this spelling: it reads as the tuple the call returns (a Python call returns a
// tuple, Numba writes a tuple return type), it keeps every one-result signature unchanged, and
// it names no parameters, so outputs need no names in a signature. A one-element tuple
// `"(float32)(float32)"` is the one-result signature `"float32(float32)"`, which to_string()
// prints. The user's function returns its results through reference parameters after its
// inputs (jitvec/ufunc.hpp, "Several outputs").
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "jitvec/dtype.hpp"

namespace jitvec {

struct Signature {
  /// The loop's results, one per output (at least one).
  std::vector<DType> results;
  std::vector<DType> args;

  /// Number of outputs.
  int nout() const { return static_cast<int>(results.size()); }

  /// Parses Numba's spelling; throws SignatureError with the text and the column.
  static Signature parse(std::string_view text);
  /// Canonical text, "float32(float32, float32)" or "(float32, int32)(float32)" for several
  /// results; parse(to_string()) round-trips.
  std::string to_string() const;

  friend bool operator==(const Signature& a, const Signature& b) {
    return a.results == b.results && a.args == b.args;
  }
};

}  // namespace jitvec

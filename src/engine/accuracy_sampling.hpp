// src/engine/accuracy_sampling.hpp: the inputs an accuracy report evaluates, and the arrays
// that carry them and the results.
//
// sample_inputs() makes the points of jitvec/accuracy.hpp: for each input in turn, `points /
// nin` values over its range, half evenly spaced and half log-spaced in magnitude (from the
// smallest normal of its type, or the range's nearer end, to the farther end, on each side of
// zero the range covers), with every other input at a random value of its own range drawn the
// same way (a fixed seed; the generator's arithmetic is spelled out, so the points are the same
// on every platform); then each edge value of each input's type (+-0, +-smallest subnormal,
// +-smallest normal, +-largest finite, +-inf, NaN) at that input, with the others random, and
// every input at the same edge value. Each value is rounded to its input's dtype and kept in
// the range's rounded bounds (edge values excepted), so it is exact in any wider type.
// to_array() and to_doubles() move such columns into and out of host Arrays of any real float
// dtype, exactly.
#pragma once

#include <cstdint>
#include <vector>

#include "jitvec/accuracy.hpp"
#include "jitvec/array.hpp"

namespace jitvec::engine {

struct SampledInputs {
  /// One column per input, every column the same length: the values, as doubles.
  std::vector<std::vector<double>> columns;
  /// Per point, the input that was swept (an index into columns), or -1 for edge points.
  std::vector<int> swept;
};

/// The points for inputs of `types` over `ranges` (one per input, finite, low <= high).
SampledInputs sample_inputs(const std::vector<DType>& types, const std::vector<InputRange>& ranges,
                            std::size_t points, std::uint64_t seed);

/// A contiguous 1-d host Array of dtype `t` (a real float) holding `values` converted to `t`.
Array to_array(DType t, const std::vector<double>& values);

/// The elements of `a` (a 1-d host array of a real float dtype, or bool: 0 and 1) as doubles.
std::vector<double> to_doubles(const Array& a);

}  // namespace jitvec::engine

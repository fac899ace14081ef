// jitvec/accuracy.hpp: how accurate a ufunc's own loops are (Ufunc::accuracy, `jitvec check`).
//
// jitvec holds the source of every ufunc, so it can compile the same source for a wider float
// type and measure each float loop against it:
//
//     std::vector<jitvec::AccuracyReport> reports = gaussian_pdf.accuracy({});
//     // reports[0]: float32(float32, float32, float32) against the same source in float64
//     std::printf("%g ulps at x=%g\n", reports[0].max_ulps, reports[0].max_ulps_at.inputs[0]);
//
// The reference of a loop is the same source called with every float operand one type wider
// (float16 and bfloat16 -> float32, float32 -> float64), compiled for the cpu target. A
// float64 loop has no wider type (long double is no jitvec dtype): its report says so in
// `unavailable` and holds no numbers. The function must really compute in the wider type: a
// template over its float type, or an overload set that has the wider one; a function whose
// call with wider arguments returns the narrow type (a plain `float f(float)`) would only
// convert its arguments, so accuracy() throws DefinitionError saying what to write instead.
//
// Inputs: each input sweeps its range (declared with VectorizeOptions::ranges or a definition
// file's `[ufuncs.NAME.ranges]`, or given in AccuracyOptions::ranges; else the narrow type's
// whole finite range) in a mix of evenly spaced and log-spaced values while the other inputs
// take random values of their ranges (a fixed seed), plus the edge values of the narrow type
// (+-0, +-smallest subnormal, +-smallest normal, +-largest finite, +-inf, NaN) for each input.
// Inputs are made in the narrow type and converted exactly to the wide one.
//
// Errors: the reference is rounded to the loop's result type; the error of a result is its
// distance from that rounded value in ulps of the result type (counted through the bit
// patterns, so a correctly rounded result is 0 ulps), and its relative error is
// |result - reference| / |reference| against the unrounded reference (over finite references
// at least the smallest normal of the result type, where it has its full precision). A NaN or infinity the loop gives where the rounded reference is finite (or not
// NaN) is counted apart, with the first examples, as is the reverse.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "jitvec/signature.hpp"
#include "jitvec/ufunc.hpp"

namespace jitvec {

/// The values an input is checked over: [low, high], both finite, low <= high. `input` is the
/// parameter's name in the ufunc's source (or its position, "0", "1", ...).
struct InputRange {
  std::string input;
  double low = 0;
  double high = 0;
};

/// What Ufunc::accuracy measures.
struct AccuracyOptions {
  /// One loop (an index into signatures()); nullopt: every loop whose results are floats.
  std::optional<std::size_t> signature;
  /// Where the measured loop runs: cpu (the default), parallel, or cuda (needs a GPU; the
  /// reference always runs on the cpu target).
  Target target = Target::cpu;
  /// Ranges that replace the declared ones, by input name.
  std::vector<InputRange> ranges;
  /// Points swept over the inputs' ranges (the edge values come on top), at least 16.
  std::size_t points = std::size_t{1} << 16;
  /// The seed of the random values of the inputs that are not swept.
  std::uint64_t seed = 1;
  /// How many examples of NaN or infinity results to keep.
  std::size_t examples = 5;
  /// How many bins the error curves (AccuracyCurve) have, at least 1.
  std::size_t bins = 200;
};

/// One evaluated point: the inputs (exact, as doubles), the loop's result and the reference's
/// (unrounded).
struct AccuracyPoint {
  std::vector<double> inputs;
  double result = 0;
  double reference = 0;
};

/// The largest error in ulps of the points where one input was swept, per bin of its range
/// (bins of equal width; -1 marks a bin that holds no compared point).
struct AccuracyCurve {
  std::string input;
  double low = 0;
  double high = 0;
  std::vector<double> max_ulps;
};

/// How many compared points have an error of [low_ulps, high_ulps) ulps.
struct UlpBucket {
  double low_ulps = 0;
  double high_ulps = 0;
  std::size_t count = 0;
};

/// The accuracy of one result of one loop.
struct AccuracyReport {
  std::string ufunc;
  /// The loop measured, and the signature of its reference (empty when unavailable).
  Signature loop;
  std::string reference;
  Target target = Target::cpu;
  /// Which result (0 for a ufunc of one output).
  int output = 0;
  /// Non-empty when this loop has no report: why ("float64 has no wider type ...").
  std::string unavailable;

  /// The input names (the parameters' names in the source) and the ranges used, in order.
  std::vector<InputRange> ranges;
  /// Points evaluated (swept and edge values).
  std::size_t points = 0;
  /// Points compared in ulps: both results finite, or the same infinity.
  std::size_t compared = 0;

  double max_ulps = 0;
  AccuracyPoint max_ulps_at;
  double max_relative = 0;
  AccuracyPoint max_relative_at;
  /// Ulps below which half, 99% and 99.9% of the compared points lie.
  double median_ulps = 0;
  double p99_ulps = 0;
  double p999_ulps = 0;
  /// Counts of compared points by error: 0, 1, [2, 4), [4, 16), [16, 256), [256, 65536),
  /// [65536, inf).
  std::vector<UlpBucket> histogram;

  /// NaN or infinity results where the rounded reference is not NaN (for a NaN) or is finite
  /// (for an infinity): count and first examples.
  std::size_t unexpected_nonfinite = 0;
  std::vector<AccuracyPoint> unexpected_examples;
  /// The reverse: the rounded reference is NaN or infinite where the loop's result is not.
  std::size_t missing_nonfinite = 0;
  std::vector<AccuracyPoint> missing_examples;

  /// One curve per input, over its range.
  std::vector<AccuracyCurve> curves;
};

}  // namespace jitvec

// src/engine/accuracy_compare.hpp: a loop's results against its reference, as the numbers of
// an AccuracyReport (jitvec/accuracy.hpp says what each one means).
//
// compare_results() fills one report's statistics from one output: per point, the reference
// rounded to the result type, then either a NaN/infinity apart (unexpected: the loop's, or
// missing: the reference's) or an error in ulps (core/float_ulps.hpp) and, against a finite
// reference of at least the result type's smallest normal (where it keeps its full precision),
// a relative error; the largest of each with its inputs, the percentiles,
// the histogram and one curve per input (the largest ulps per bin of the swept input's range).
#pragma once

#include <vector>

#include "engine/accuracy_sampling.hpp"
#include "jitvec/accuracy.hpp"

namespace jitvec::engine {

/// Fills `report`'s statistics (points onward) from `results` (the loop's values of output
/// `report.output`, of dtype `result_type`) and `references` (the wide reference's) at the
/// points `inputs`; `report.ranges` must already hold the ranges (the curves' bounds).
void compare_results(const SampledInputs& inputs, DType result_type, const std::vector<double>& results,
                     const std::vector<double>& references, const AccuracyOptions& options,
                     AccuracyReport& report);

}  // namespace jitvec::engine

// src/engine/accuracy_ranges.hpp: which range each input of an accuracy report sweeps.
//
// An input's range is, in order of precedence: one given to Ufunc::accuracy
// (AccuracyOptions::ranges, `jitvec check --range x=LO:HI`), one declared with the ufunc
// (VectorizeOptions::ranges, a definition file's `[ufuncs.NAME.ranges]`), else the whole
// finite range of the input's type. Either bound beyond the type's largest finite value is
// brought to it. Inputs are named by their parameters in the source
// (codegen/parameter_names.hpp).
#pragma once

#include <string>
#include <vector>

#include "jitvec/accuracy.hpp"

namespace jitvec::engine {

/// Throws ArgumentError when a range names no input (listing the names, and the closest one),
/// names one twice, or has bounds that are not finite or not in order; `what` begins the
/// message ("ufunc 'f'").
void check_ranges(const std::vector<std::string>& names, const std::vector<InputRange>& ranges,
                  const std::string& what);

/// The range of each input (of the real float dtypes `types`, named `names`), as above.
std::vector<InputRange> resolve_ranges(const std::vector<std::string>& names, const std::vector<DType>& types,
                                       const std::vector<InputRange>& declared,
                                       const std::vector<InputRange>& given);

}  // namespace jitvec::engine

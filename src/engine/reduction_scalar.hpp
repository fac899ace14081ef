// src/engine/reduction_scalar.hpp: a reduction's initial and identity in the types that use them.
//
// ReduceOptions::initial and VectorizeOptions::identity are jitvec::Scalars, held exactly as
// given (a uint64 2^64 - 1, an int64 2^53 + 1, a complex, a bool). They are converted once,
// straight from their own type, never through float64:
//   - accumulator_value(): into the accumulator type T of the loop T(T, T) the reduction runs,
//     for the kernels' init_bits. The rule is type resolution's for weak scalars
//     (scalar_fits: an integer exact, a float rounded but not overflowing, a complex only into
//     a complex type), and a bool accumulator also takes the integers and floats 0 and 1 (so
//     `identity = 0` serves a logical or's bool loop, as NumPy's add.identity does).
//   - exact_value(): into where='s input dtype for its select pass, only when the value
//     survives the round trip unchanged (where= puts it in place of masked elements: a rounded
//     identity would change the result).
// Either throws ArgumentError naming the ufunc, the method, the option, the value and its
// dtype, the target type, and why it does not fit (for a complex into a real type: NumPy's
// casting rule, complex to float is not a safe cast).
#pragma once

#include <string>

#include "engine/type_resolution.hpp"
#include "jitvec/scalar.hpp"

namespace jitvec::engine {

/// `value` in the accumulator type `acc`, as the kernels read it. `what` names the option in
/// messages ("initial", "identity").
ScalarSlot accumulator_value(const std::string& ufunc, const char* method, const char* what,
                             const Scalar& value, DType acc);

/// `value` as a scalar of dtype `t` exactly (the same number), for where='s select pass of an
/// input of dtype `t`.
ScalarValue exact_value(const std::string& ufunc, const char* method, const char* what, const Scalar& value,
                        DType t);

}  // namespace jitvec::engine

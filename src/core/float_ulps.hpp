// src/core/float_ulps.hpp: how far apart two floats are, in units in the last place (ulps) of
// a float dtype, for the accuracy reports (jitvec/accuracy.hpp).
//
// Every value here travels as a double: float16, bfloat16 and float32 values are exact in it.
// round_to() rounds a double to a float dtype (to nearest, ties to even, once: the same
// rounding as the kernels' conversions, jitvec/half.hpp) and gives the result back as a
// double. ulp_distance() counts the values of the dtype between two of its values through
// their bit patterns, ordered so that each step is one ulp: adjacent values are 1 apart, +0
// and -0 are 0 apart, the smallest positive and negative subnormals 2 apart (across zero), the
// largest finite value and infinity 1 apart. NaN is no distance: the caller decides what a NaN
// means, so ulp_distance() of a NaN is NaN.
#pragma once

#include <cstdint>

#include "jitvec/dtype.hpp"

namespace jitvec::detail {

/// float16, bfloat16, float32 and float64: the dtypes ulps are counted in.
bool is_real_float(DType t);

/// `value` rounded to `t` (a real float dtype), as a double; NaN stays NaN, a value beyond the
/// largest finite one of `t` becomes infinity by IEEE's rule. Throws ArgumentError for another
/// dtype.
double round_to(DType t, double value);

/// The number of ulps of `t` from `a` to `b` (both values of `t`, as round_to gives them):
/// 0 when equal (+0 and -0 too), NaN when either is NaN. Exact up to 2^53, as a double.
double ulp_distance(DType t, double a, double b);

/// The smallest positive subnormal, the smallest positive normal and the largest finite value
/// of `t`.
struct FloatLimits {
  double smallest_subnormal;
  double smallest_normal;
  double largest;
};
FloatLimits float_limits(DType t);

}  // namespace jitvec::detail

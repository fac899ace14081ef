// tests/dtype_cases.hpp: the float16, bfloat16, complex64 and complex128 checks that run on
// every target (tests/unit/test_dtypes_extended.cpp: cpu and parallel; tests/gpu/
// test_gpu_dtypes.cpp: cuda, with host and with device arrays).
//
// Each check calls a ufunc written over the new types on fresh random inputs, into a result or a
// poisoned out= buffer, and compares every element with a reference computed here
// independently: in double (or std::complex<double>), rounded to the result type by
// round_to_format() below, which rounds with std::nearbyint (not the library's conversions).
// Stated tolerances:
//   - conversions and single half/bfloat16 operations (+ - * / of the types' own operators):
//     bit for bit (the result is the exact value rounded once);
//   - float16/bfloat16 results of float32 math (exp): within 1 ulp of the result type;
//   - complex64 arithmetic: 4 float32 ulps of the largest term; complex64 exp/log/sqrt: 8;
//     complex128: the same counts in float64 ulps.
#pragma once

#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "catch.hpp"
#include "support.hpp"

namespace jitvec_dtype_test {

using jitvec::Array;
using jitvec::DType;
using jitvec::Target;

/// `v` rounded to nearest even to a binary format of `precision` significand bits and minimum
/// normal exponent `min_exp` (2^min_exp), overflowing to infinity past `max_finite` (the
/// halfway point to the next power rounds to infinity, as IEEE says).
inline double round_to_format(double v, int precision, int min_exp, double max_finite) {
  if (!std::isfinite(v) || v == 0) return v;
  int e = 0;
  std::frexp(v, &e);  // |v| in [2^(e-1), 2^e)
  const int exponent = std::max(e - 1, min_exp);
  const double ulp = std::ldexp(1.0, exponent - (precision - 1));
  const double r = std::nearbyint(v / ulp) * ulp;  // the current rounding mode: to nearest even
  if (std::fabs(r) > max_finite) return std::copysign(HUGE_VAL, v);
  return r;
}
inline double round_half(double v) { return round_to_format(v, 11, -14, 65504.0); }
inline double round_bf16(double v) { return round_to_format(v, 8, -126, 0x1.fep127); }
inline double round_f32(double v) { return round_to_format(v, 24, -126, 0x1.fffffep127); }

/// The ulp of a float16 (bfloat16) value's binade.
inline double ulp_of(DType t, double v) {
  int e = 0;
  std::frexp(v == 0 ? 1e-300 : v, &e);
  const bool half = t == DType::float16;
  return std::ldexp(1.0, std::max(e - 1, half ? -14 : -126) - (half ? 10 : 7));
}

inline double round_to(DType t, double v) { return t == DType::float16 ? round_half(v) : round_bf16(v); }

/// Registers the ufuncs of these checks in `engine`, once.
void define_dtype_ufuncs(jitvec::Engine& engine);

/// Runs every check on `target`; `device_arrays`: the inputs and outputs live on the GPU.
void run_dtype_checks(Target target, bool device_arrays);

/// Elements of `a` (host or device) as raw bytes.
std::vector<unsigned char> bytes_of(const Array& a);

}  // namespace jitvec_dtype_test

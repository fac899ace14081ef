// src/codegen/derivative_source.hpp: the generated source of a derivative ufunc.
//
// A derivative ufunc (Engine::derivative, src/engine/derivative.hpp) is an ordinary ufunc whose
// source jitvec writes: jitvec::dual<T> (dual_number.hpp), the user's function under its own
// `#line` (so compiler messages point at the user's lines), then one function per loop, named
// like the derivative ufunc, that calls the user's template with dual arguments and returns the
// tangent:
//
//     __device__ __forceinline__ float d_gaussian_pdf_dx(float a0, float a1, float a2) {
//       return ::jitvec::dual_tangent(gaussian_pdf(::jitvec::dual<float>(a0, 1.0f),
//                                                  ::jitvec::dual<float>(a1),
//                                                  ::jitvec::dual<float>(a2)));
//     }
//
// The input the derivative is taken with respect to has tangent 1, the other float inputs whose
// parameter type names a template parameter tangent 0; integer inputs, and parameters declared
// with a plain type, get the plain value. With `value` the function has two results, written as
// a ufunc of several outputs writes them (`void f(..., float& r0, float& r1)`): the value, then
// the derivative.
#pragma once

#include <string>
#include <vector>

#include "codegen/source_parts.hpp"
#include "jitvec/signature.hpp"

namespace jitvec::codegen {

struct DerivativeSpec {
  /// The derivative ufunc's name (its generated function's).
  std::string name;
  /// The user's ufunc, whose function is differentiated.
  const UfuncSource* of = nullptr;
  /// The input the derivative is taken with respect to, and its name for the header comment.
  std::size_t wrt = 0;
  std::string wrt_name;
  /// Per input: whether its parameter takes a jitvec::dual (its type names a template
  /// parameter and the loop's type for it is a float type).
  std::vector<bool> dual_inputs;
  /// Two results (value, derivative) instead of one.
  bool value = false;
  /// The derivative's loops: each one's inputs are the user loop's, its results the float
  /// types of the user loop's result (twice with `value`).
  std::vector<Signature> loops;
};

/// The derivative ufunc's whole source (see above).
std::string derivative_source(const DerivativeSpec& spec);

}  // namespace jitvec::codegen

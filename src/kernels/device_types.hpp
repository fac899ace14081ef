// src/kernels/device_types.hpp: the 2-byte floats and the complex types of a ufunc's source.
//
// types_prelude() is C++ text that both preludes carry (host_prelude.cpp all of it, at the end
// of the host prelude; module_source.cpp, after the device prelude, only the parts a GPU module
// needs: see "Which parts a module carries" below), so one source compiles on every target with
// the same numerics and no #include (cuda_fp16.h would cost NVRTC time: bench/NOTES.md,
// "dtypes"). It defines, in the global namespace unless said:
//   - `__half` (also `half`) and `__nv_bfloat16` (also `nv_bfloat16`): 2 bytes, the bits of
//     float16 / bfloat16. Every operation converts to float, computes in float and rounds back
//     to nearest even, as NumPy does (for + - * / and sqrt that is the IEEE half operation);
//     the conversions are the GPU's cvt.rn instructions on the device (sm_80+ for bfloat16) and
//     the same rounding in integer arithmetic on the host, bit for bit; every NaN becomes 0x7fff.
//     The GPU computes `h + h`, `h - h`, `h * h` with add/sub/mul.rn.f16 (sm_53+; bfloat16:
//     .bf16 on sm_90+, float below) and `h / h` (half) as a times a two-float reciprocal of b
//     (one fma; for a divisor shared by a thread's elements, 2 instructions an element), and
//     exp of a half as ex2 of the float product x log2(e) with two corrected inputs: the same
//     bits as float then one rounding (tests/unit/test_half_native.cpp, tests/gpu/
//     test_gpu_half.cpp: every input of exp, every pair of the division);
//     a NaN result is NaN on every target, its payload may differ.
//     Implicit from and to float; `h op h` is half, `h op int` is half (the int taken as half),
//     `h op float` is float, `h op double` is double, `half op bfloat16` is float (ml_dtypes'
//     promotion). Comparisons, unary -, compound assignment. Math functions of one half return
//     a half (computed in float): abs fabs sqrt exp exp2 expm1 log log2 log10 log1p sin cos tan
//     sinh cosh tanh asin acos atan erf erfc floor ceil trunc round rint, and pow atan2 fmin
//     fmax fmod hypot; isnan isinf isfinite signbit. CUDA's names: __float2half(_rn),
//     __half2float, __double2half, __float2bfloat16(_rn), __bfloat162float, __double2bfloat16,
//     __half_as_ushort, __ushort_as_half, __bfloat16_as_ushort, __ushort_as_bfloat16, __hadd,
//     __hsub, __hmul, __hdiv, __hneg, __habs, __heq, __hne, __hlt, __hle, __hgt, __hge,
//     __hisnan, hexp, hlog, hsqrt, hsin, hcos (for both types).
//   - `jitvec::complex<T>` (T float or double; also `complex<T>`, `complex64`, `complex128` and
//     `polar` at global scope): two T, real then imaginary, as std::complex<T>. Members x and y (as
//     cuComplex's float2), real() and imag() (and their setters), `+ - * /` with complex and
//     with real values (a real operand is converted to T), unary -, ==, !=, compound
//     assignment; abs (hypot), arg, norm, conj, real, imag, exp, log, sqrt, polar, as NumPy
//     computes them (division by Smith's method as NumPy's loops do; sqrt as C99 csqrt).
// A double converts to half or bfloat16 with one rounding (through float rounded to odd).
//
// Which parts a module carries (types_parts_needed; ufunc, at() and gufunc modules alike): the
// text is a head (a few traits) and two
// parts, `small_floats` (__half, __nv_bfloat16 and their functions) and `complex`
// (jitvec::complex<T>). A GPU module carries a part when
//   - one of its loop's dtypes (the signature's, or an array's storage dtype converted in the
//     kernel) is float16 / bfloat16 (small_floats) or complex64 / complex128 (complex), or
//   - the user's and helpers' source text (comments and the #line file names included) has an
//     identifier that may name something of the part: for small_floats one containing `half`,
//     `bfloat16` or `bf16`, starting with `__h` (__hadd, __heq, ...) or one of hexp, hlog,
//     hsqrt, hsin, hcos; for complex one containing `complex`, or `polar`.
// Everything else a part declares takes a value of its types (operators, math overloads, real,
// conj, ...), which a source can only have through a dtype or a name above, so leaving a part
// out never changes what a source that compiles means; the scan errs towards including it.
// Without either part a module carries none of this text. The host prelude carries all of it
// (the host compiler reads <cmath> and friends anyway; host modules are not on the GPU's warm
// start path).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "codegen/loop_spec.hpp"

namespace jitvec::kernels {

/// The parts of the types prelude a module carries.
struct TypesParts {
  bool small_floats = false;
  bool complex = false;
  friend bool operator==(TypesParts a, TypesParts b) {
    return a.small_floats == b.small_floats && a.complex == b.complex;
  }
};

/// The parts a module for `spec` whose user code (helpers and ufunc, as codegen::user_code
/// writes them) is `user_code` needs, by the rule above.
TypesParts types_parts_needed(const codegen::LoopSpec& spec, std::string_view user_code);
/// The same for a module whose operands have `dtypes` (a gufunc's: every operand's type).
TypesParts types_parts_needed(const std::vector<DType>& dtypes, std::string_view user_code);

/// The head and the parts asked for, ending with a newline; empty when no part is.
std::string types_prelude(TypesParts parts);

/// The whole text (both parts); ends with a newline.
std::string_view types_prelude();

}  // namespace jitvec::kernels

// jitvec/dtype.hpp: the element types a ufunc can take and return.
//
// A DType names one of NumPy's fixed-size element types (bool, int8..int64, uint8..uint64,
// float16, float32, float64, complex64, complex128) or ml_dtypes' bfloat16. This header gives
// each its size, its names (Numba's spelling `float32`, NumPy's short codes `f4`), the C type
// that generated kernels use for it, and NumPy 2's `can_cast(from, to, 'safe')` and
// `'same_kind'` rules, which decide which loop serves which arrays.
//
// The 2-byte and complex types:
//   dtype       names                                   C type in a ufunc's source  host type
//   float16     float16, f2, half, e                    __half (also half)          jitvec::half
//   bfloat16    bfloat16, bf16                          __nv_bfloat16 (nv_bfloat16) jitvec::bfloat16
//   complex64   complex64, c8, csingle, F               complex<float> (complex64)  std::complex<float>
//   complex128  complex128, c16, cdouble, complex, D    complex<double>             std::complex<double>
// (`bf16` is jitvec's code for bfloat16: NumPy has none.) In a ufunc's source the same names
// compile on every target without an #include: __half and __nv_bfloat16 compute as NumPy does
// (convert to float32, compute, round to nearest even), jitvec::complex<T> has the layout of
// std::complex<T> and `+ - * /`, abs, arg, norm, conj, exp, log, sqrt, polar, real()/imag()
// (src/kernels/device_types.hpp lists everything).
// Casting: float16 -> float32/float64/complex is safe, and int8/uint8 -> float16 (int16 ->
// float16 is not: 16 bits do not fit 11); complex64 -> complex128 is safe, a float casts safely
// to a complex whose parts are at least as wide, and complex -> real is never safe nor
// same_kind. bfloat16 follows ml_dtypes: bfloat16 -> float32/float64/complex is safe, int8/uint8
// -> bfloat16 is safe, and float16 <-> bfloat16 is same_kind but not safe.
#pragma once

#include <complex>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "jitvec/half.hpp"

namespace jitvec {

enum class DType : std::uint8_t {
  bool_,
  int8,
  int16,
  int32,
  int64,
  uint8,
  uint16,
  uint32,
  uint64,
  float32,
  float64,
  float16,
  bfloat16,
  complex64,
  complex128,
};

inline constexpr int kDTypeCount = 15;

/// The kind of a dtype, in NumPy's order: b < u, i < f < c.
enum class DTypeKind : std::uint8_t { boolean, unsigned_int, signed_int, floating, complex };

/// Size of one element in bytes.
std::size_t dtype_size(DType t);
/// Alignment of one element in bytes: its size, except for a complex (that of one part).
std::size_t dtype_alignment(DType t);
DTypeKind dtype_kind(DType t);
/// Numba's name: "float32", "int16", "bool".
std::string_view dtype_name(DType t);
/// The type that generated C++ code uses: "float", "short", "bool", "long long".
std::string_view dtype_c_type(DType t);
/// Parses a Numba name ("float32", "int16", "boolean", "b1", "f4", "i2", "u8", "double", ...).
/// Returns nullopt for anything else.
std::optional<DType> parse_dtype(std::string_view name);

/// NumPy's can_cast(from, to, casting='safe'): every value of `from` is exactly representable
/// in `to` (int64 -> float64 counts as safe, as in NumPy).
bool can_cast_safe(DType from, DType to);
/// NumPy's can_cast(from, to, casting='same_kind'): safe, or a cast within the same kind or
/// towards a higher kind (float64 -> float32 yes, float -> int no).
bool can_cast_same_kind(DType from, DType to);

/// NumPy's casting= rules that jitvec applies when a caller chooses the loop (jitvec::loop):
/// `no` (and NumPy's `equiv`, the same here: jitvec has one byte order) only the dtype itself,
/// `safe` and `same_kind` as above. NumPy's `unsafe` is not offered: a float to integer
/// conversion of NaN or of a value out of range has no defined result in C++.
enum class Casting : std::uint8_t { no, safe, same_kind };
bool can_cast(DType from, DType to, Casting casting);
/// "no", "safe", "same_kind".
std::string_view casting_name(Casting casting);

/// The dtype of a C++ element type: dtype_of<float>() == DType::float32, dtype_of<jitvec::half>()
/// == DType::float16, dtype_of<std::complex<float>>() == DType::complex64.
template <class T> constexpr DType dtype_of();
template <> constexpr DType dtype_of<bool>() { return DType::bool_; }
template <> constexpr DType dtype_of<std::int8_t>() { return DType::int8; }
template <> constexpr DType dtype_of<std::int16_t>() { return DType::int16; }
template <> constexpr DType dtype_of<std::int32_t>() { return DType::int32; }
template <> constexpr DType dtype_of<long>() { return DType::int64; }
template <> constexpr DType dtype_of<long long>() { return DType::int64; }
template <> constexpr DType dtype_of<std::uint8_t>() { return DType::uint8; }
template <> constexpr DType dtype_of<std::uint16_t>() { return DType::uint16; }
template <> constexpr DType dtype_of<std::uint32_t>() { return DType::uint32; }
template <> constexpr DType dtype_of<unsigned long>() { return DType::uint64; }
template <> constexpr DType dtype_of<unsigned long long>() { return DType::uint64; }
template <> constexpr DType dtype_of<float>() { return DType::float32; }
template <> constexpr DType dtype_of<double>() { return DType::float64; }
template <> constexpr DType dtype_of<half>() { return DType::float16; }
template <> constexpr DType dtype_of<bfloat16>() { return DType::bfloat16; }
template <> constexpr DType dtype_of<std::complex<float>>() { return DType::complex64; }
template <> constexpr DType dtype_of<std::complex<double>>() { return DType::complex128; }

}  // namespace jitvec

// jitvec/dtype.hpp: the element types a ufunc can take and return.
//
// A DType names one of NumPy's fixed-size element types (bool, int8..int64, uint8..uint64,
// float32, float64). This header gives each its size, its names (Numba's spelling `float32`,
// NumPy's short codes `f4`), the C type that generated kernels use for it, and NumPy's
// `can_cast(from, to, 'safe')` and `'same_kind'` rules, which decide which loop serves which
// arrays. Half, bfloat16 and complex types are planned: they extend the enum and the tables in
// src/core/dtype.cpp, nothing else switches on the full list.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

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
};

inline constexpr int kDTypeCount = 11;

/// The kind of a dtype, in NumPy's order: b < u, i < f.
enum class DTypeKind : std::uint8_t { boolean, unsigned_int, signed_int, floating };

/// Size of one element in bytes.
std::size_t dtype_size(DType t);
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

/// The dtype of a C++ arithmetic type: dtype_of<float>() == DType::float32.
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

}  // namespace jitvec

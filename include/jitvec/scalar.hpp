// jitvec/scalar.hpp: a typed scalar value, held exactly.
//
// A Scalar is one number of one of jitvec's scalar kinds, kept exactly as it was given: a bool,
// a signed integer (as int64), an unsigned one (as uint64), a float (as double) or a complex
// (two doubles), with the dtype of the C++ type it came from. It is how options that take a
// value hold it (ReduceOptions::initial, VectorizeOptions::identity) and how a call's scalar
// arguments are held (jitvec::Arg): `std::uint64_t(-1)`, `std::int64_t(1) << 53 | 1` or
// `std::complex<double>(0.5, -0.25)` keep every digit, never passing through float64, and are
// converted once, into the type that needs them (an accumulator, a loop's argument), where a
// value that does not fit is an error naming it, that type and the option.
//
//     jitvec::ReduceOptions o;
//     o.initial = std::uint64_t(-1);                 // 18446744073709551615, exactly
//     o.initial = std::complex<double>(0.5, -0.25);  // for a complex accumulator
//     o.initial = 0.5;                               // a double, as before
//
// The rules of "fits" are type resolution's for weak scalars (README, "Loop choice"): an
// integer must be exact in the target type, a float may round but not overflow, a complex
// goes only into a complex type; for an initial or identity a bool type also takes 0 and 1.
#pragma once

#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "jitvec/dtype.hpp"

namespace jitvec {

/// A scalar's value, kept exact: its C++ type's dtype and the value (a complex one's real part
/// in f, its imaginary part in f_imag). Scalar holds one; the engine reads it directly.
struct ScalarValue {
  DType type = DType::float64;
  union {
    bool b;
    std::int64_t i;
    std::uint64_t u;
    double f;
  };
  double f_imag = 0.0;
  ScalarValue() : f(0.0) {}
};

namespace detail {
/// The C++ types a Scalar (and a ufunc's scalar argument) is made from: arithmetic types,
/// std::complex<float/double>, jitvec::half and jitvec::bfloat16.
template <class T> struct is_scalar_type : std::is_arithmetic<T> {};
template <> struct is_scalar_type<std::complex<float>> : std::true_type {};
template <> struct is_scalar_type<std::complex<double>> : std::true_type {};
template <> struct is_scalar_type<half> : std::true_type {};
template <> struct is_scalar_type<bfloat16> : std::true_type {};
template <class T> inline constexpr bool is_scalar_type_v = is_scalar_type<T>::value;
}  // namespace detail

/// A number with its dtype, held exactly (see the header comment). Made implicitly from any
/// C++ scalar: `Scalar(true)`, `Scalar(std::int8_t(-3))` (int8), `Scalar(2.5f)` (float32),
/// `Scalar(std::complex<double>(1, 2))` (complex128), `Scalar(jitvec::half(1.5f))` (float16).
class Scalar {
 public:
  /// float64 0.0.
  Scalar() = default;
  template <class T, std::enable_if_t<detail::is_scalar_type_v<T>, int> = 0>
  Scalar(T value) {  // NOLINT: implicit on purpose (o.initial = 5)
    if constexpr (std::is_same_v<T, bool>) {
      value_.type = DType::bool_;
      value_.b = value;
    } else if constexpr (std::is_same_v<T, half> || std::is_same_v<T, bfloat16>) {
      value_.type = dtype_of<T>();
      value_.f = static_cast<double>(static_cast<float>(value));
    } else if constexpr (std::is_floating_point_v<T>) {
      value_.type = sizeof(T) <= 4 ? DType::float32 : DType::float64;
      if constexpr (sizeof(T) > sizeof(double)) {  // long double: float64 is the widest dtype
        if (!fits_float64(static_cast<long double>(value))) throw_long_double_overflow();
      }
      value_.f = static_cast<double>(value);
    } else if constexpr (std::is_arithmetic_v<T> && std::is_signed_v<T>) {
      value_.type = sizeof(T) == 1 ? DType::int8
                    : sizeof(T) == 2 ? DType::int16
                    : sizeof(T) == 4 ? DType::int32
                                     : DType::int64;
      value_.i = static_cast<std::int64_t>(value);
    } else if constexpr (std::is_arithmetic_v<T>) {
      value_.type = sizeof(T) == 1 ? DType::uint8
                    : sizeof(T) == 2 ? DType::uint16
                    : sizeof(T) == 4 ? DType::uint32
                                     : DType::uint64;
      value_.u = static_cast<std::uint64_t>(value);
    } else {  // std::complex<float/double>
      value_.type = sizeof(typename T::value_type) <= 4 ? DType::complex64 : DType::complex128;
      value_.f = static_cast<double>(value.real());
      value_.f_imag = static_cast<double>(value.imag());
    }
  }
  /// A value read elsewhere (the engine's own literals); taken as given.
  explicit Scalar(const ScalarValue& value) : value_(value) {}

  /// The dtype of the C++ type it was made from (int32 for an int, float64 for a double).
  DType dtype() const noexcept { return value_.type; }
  const ScalarValue& value() const noexcept { return value_; }

  /// The same dtype and the same value, bit for bit (so -0.0 != 0.0 and NaN == the same NaN).
  friend bool operator==(const Scalar& a, const Scalar& b) noexcept {
    if (a.value_.type != b.value_.type) return false;
    switch (dtype_kind(a.value_.type)) {
      case DTypeKind::boolean: return a.value_.b == b.value_.b;
      case DTypeKind::signed_int: return a.value_.i == b.value_.i;
      case DTypeKind::unsigned_int: return a.value_.u == b.value_.u;
      case DTypeKind::floating:
      case DTypeKind::complex: break;
    }
    return std::memcmp(&a.value_.f, &b.value_.f, sizeof(double)) == 0 &&
           std::memcmp(&a.value_.f_imag, &b.value_.f_imag, sizeof(double)) == 0;
  }
  friend bool operator!=(const Scalar& a, const Scalar& b) noexcept { return !(a == b); }

 private:
  // A long double may round into float64 but not overflow it (as type resolution's rule for
  // every float scalar): below DBL_MAX plus half its last place, 2^1024 - 2^970.
  static bool fits_float64(long double v) {
    return !std::isfinite(v) || std::fabs(v) < 0x1.fffffffffffff8p+1023L;
  }
  [[noreturn]] static void throw_long_double_overflow();

  ScalarValue value_;
};

}  // namespace jitvec

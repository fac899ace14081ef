// jitvec/half.hpp: host types for the 2-byte floating-point dtypes, float16 and bfloat16.
//
// jitvec::half (IEEE 754 binary16, NumPy's float16) and jitvec::bfloat16 (the upper half of a
// float32, ml_dtypes' bfloat16) are plain 2-byte values with the same bits as the arrays hold:
// std::vector<jitvec::half> goes into and out of Arrays (to_vector, from_vector, to_device), and
// a jitvec::half is a float16 scalar argument. Arithmetic is not defined on them here: convert to
// float (`float(h)`), compute, and convert back (`jitvec::half(f)`), which is what NumPy does.
// Conversions round to nearest, ties to even, exactly as the generated kernels do on every
// target (the device's cvt.rn instructions, the host prelude's bit arithmetic); every NaN becomes
// the one quiet NaN the GPU produces (0x7fff), so conversions agree bit for bit across targets.
#pragma once

#include <cstdint>
#include <cstring>

namespace jitvec {
namespace detail {

inline std::uint32_t float_bits(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}
inline float bits_float(std::uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

/// float -> binary16 bits, round to nearest even; NaN -> 0x7fff.
inline std::uint16_t float_to_half_bits(float f) {
  const std::uint32_t x = float_bits(f);
  const std::uint32_t sign = (x >> 16) & 0x8000u;
  const std::uint32_t ax = x & 0x7fffffffu;
  if (ax > 0x7f800000u) return 0x7fff;
  if (ax >= 0x477ff000u) return static_cast<std::uint16_t>(sign | 0x7c00u);  // >= 65520: inf
  if (ax < 0x38800000u) {                                                    // below 2^-14
    if (ax < 0x33000000u) return static_cast<std::uint16_t>(sign);           // below 2^-25
    const std::uint32_t shift = 126u - (ax >> 23);
    const std::uint32_t m = (ax & 0x7fffffu) | 0x800000u;
    std::uint32_t q = m >> shift;
    const std::uint32_t rem = m & ((1u << shift) - 1u), half = 1u << (shift - 1u);
    q += (rem > half || (rem == half && (q & 1u))) ? 1u : 0u;
    return static_cast<std::uint16_t>(sign | q);
  }
  const std::uint32_t r = ax - 0x38000000u;
  std::uint32_t q = r >> 13;
  const std::uint32_t rem = r & 0x1fffu;
  q += (rem > 0x1000u || (rem == 0x1000u && (q & 1u))) ? 1u : 0u;
  return static_cast<std::uint16_t>(sign | q);
}

/// binary16 bits -> float (exact).
inline float half_bits_to_float(std::uint16_t h) {
  const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
  const std::uint32_t e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
  if (e == 0x1fu) return bits_float(sign | 0x7f800000u | (m << 13));
  if (e == 0) return bits_float(sign | float_bits(static_cast<float>(m) * 0x1p-24f));
  return bits_float(sign | ((e + 112u) << 23) | (m << 13));
}

/// float -> bfloat16 bits, round to nearest even; NaN -> 0x7fff.
inline std::uint16_t float_to_bfloat16_bits(float f) {
  const std::uint32_t x = float_bits(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return 0x7fff;
  return static_cast<std::uint16_t>((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
}

inline float bfloat16_bits_to_float(std::uint16_t b) {
  return bits_float(static_cast<std::uint32_t>(b) << 16);
}

/// double -> float rounded to odd (truncate, then set the last bit if anything was lost): a
/// float rounded so, then rounded to nearest even to binary16 or bfloat16, is the double rounded
/// once (float keeps more than 2 bits beyond either), as NumPy's double -> float16 cast is.
inline float double_to_float_odd(double d) {
  const float f = static_cast<float>(d);
  if (static_cast<double>(f) == d || d != d) return f;
  std::uint32_t u = float_bits(f);
  if (static_cast<double>(f) > d ? d >= 0 : d < 0) u -= 1;  // |f| > |d|: one step towards zero
  return bits_float(u | 1u);
}
inline std::uint16_t double_to_half_bits(double d) { return float_to_half_bits(double_to_float_odd(d)); }
inline std::uint16_t double_to_bfloat16_bits(double d) {
  return float_to_bfloat16_bits(double_to_float_odd(d));
}

}  // namespace detail

/// NumPy's float16: 1 sign bit, 5 exponent bits, 10 significand bits.
struct half {
  std::uint16_t bits = 0;

  half() = default;
  explicit half(float f) : bits(detail::float_to_half_bits(f)) {}
  explicit operator float() const { return detail::half_bits_to_float(bits); }
  static half from_bits(std::uint16_t b) {
    half h;
    h.bits = b;
    return h;
  }
  friend bool operator==(half a, half b) { return float(a) == float(b); }
  friend bool operator!=(half a, half b) { return !(a == b); }
};

/// ml_dtypes' bfloat16: the upper 16 bits of a float32.
struct bfloat16 {
  std::uint16_t bits = 0;

  bfloat16() = default;
  explicit bfloat16(float f) : bits(detail::float_to_bfloat16_bits(f)) {}
  explicit operator float() const { return detail::bfloat16_bits_to_float(bits); }
  static bfloat16 from_bits(std::uint16_t b) {
    bfloat16 h;
    h.bits = b;
    return h;
  }
  friend bool operator==(bfloat16 a, bfloat16 b) { return float(a) == float(b); }
  friend bool operator!=(bfloat16 a, bfloat16 b) { return !(a == b); }
};

static_assert(sizeof(half) == 2 && sizeof(bfloat16) == 2, "2-byte host types");

}  // namespace jitvec

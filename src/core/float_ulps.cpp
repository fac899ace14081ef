#include "core/float_ulps.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "jitvec/errors.hpp"
#include "jitvec/half.hpp"

namespace jitvec::detail {
namespace {

void require_real_float(DType t, const char* what) {
  if (!is_real_float(t)) {
    throw ArgumentError(fmt::format("{}: {} is not a float dtype (float16, bfloat16, float32 or "
                                    "float64)",
                                    what, dtype_name(t)));
  }
}

// The bits of `value` (a value of `t`) and the bit of the sign in them.
std::uint64_t bits_of(DType t, double value, std::uint64_t& sign_bit) {
  switch (t) {
    case DType::float16:
      sign_bit = 0x8000u;
      return double_to_half_bits(value);
    case DType::bfloat16:
      sign_bit = 0x8000u;
      return double_to_bfloat16_bits(value);
    case DType::float32:
      sign_bit = 0x80000000u;
      return float_bits(static_cast<float>(value));
    default: {
      sign_bit = std::uint64_t{1} << 63;
      std::uint64_t u;
      std::memcpy(&u, &value, sizeof u);
      return u;
    }
  }
}

// The bits as a signed integer that grows with the value: -0 and +0 are both 0, and one step
// is one ulp everywhere (infinities one step beyond the largest finite values).
std::int64_t ordered(DType t, double value) {
  std::uint64_t sign_bit = 0;
  const std::uint64_t bits = bits_of(t, value, sign_bit);
  const auto magnitude = static_cast<std::int64_t>(bits & (sign_bit - 1));
  return (bits & sign_bit) ? -magnitude : magnitude;
}

}  // namespace

bool is_real_float(DType t) {
  return t == DType::float16 || t == DType::bfloat16 || t == DType::float32 || t == DType::float64;
}

double round_to(DType t, double value) {
  require_real_float(t, "round_to");
  if (std::isnan(value)) return value;
  switch (t) {
    case DType::float16: return half_bits_to_float(double_to_half_bits(value));
    case DType::bfloat16: return bfloat16_bits_to_float(double_to_bfloat16_bits(value));
    case DType::float32: return static_cast<float>(value);
    default: return value;
  }
}

double ulp_distance(DType t, double a, double b) {
  require_real_float(t, "ulp_distance");
  if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<double>::quiet_NaN();
  const std::int64_t x = ordered(t, a), y = ordered(t, b);
  // float64's ordered values span nearly 2^64: subtract as unsigned to stay defined.
  const std::uint64_t apart = x > y ? static_cast<std::uint64_t>(x) - static_cast<std::uint64_t>(y)
                                    : static_cast<std::uint64_t>(y) - static_cast<std::uint64_t>(x);
  return static_cast<double>(apart);
}

FloatLimits float_limits(DType t) {
  require_real_float(t, "float_limits");
  switch (t) {
    case DType::float16: return {0x1p-24, 0x1p-14, 65504.0};
    case DType::bfloat16: return {0x1p-133, 0x1p-126, 0x1.fep127};
    case DType::float32:
      return {std::numeric_limits<float>::denorm_min(), std::numeric_limits<float>::min(),
              std::numeric_limits<float>::max()};
    default:
      return {std::numeric_limits<double>::denorm_min(), std::numeric_limits<double>::min(),
              std::numeric_limits<double>::max()};
  }
}

}  // namespace jitvec::detail

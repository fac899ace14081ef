// tests/unit/test_float_ulps.cpp: ulps through bit patterns (src/core/float_ulps.hpp) against
// hand-computed cases: adjacent values, across zero, the infinities, NaN, rounding to the
// narrow dtypes.
#include <cmath>
#include <limits>

#include "catch.hpp"
#include "core/float_ulps.hpp"
#include "jitvec/errors.hpp"

using jitvec::DType;
using jitvec::detail::float_limits;
using jitvec::detail::round_to;
using jitvec::detail::ulp_distance;

TEST_CASE("ulp_distance: adjacent values are one ulp apart in every float dtype", "[float_ulps]") {
  CHECK(ulp_distance(DType::float32, 1.0, 1.0 + 0x1p-23) == 1);
  CHECK(ulp_distance(DType::float32, 1.0, 1.0 - 0x1p-24) == 1);  // below 1 the step halves
  CHECK(ulp_distance(DType::float32, 1.0, 1.0 + 3 * 0x1p-23) == 3);
  CHECK(ulp_distance(DType::float16, 1.0, 1.0 + 0x1p-10) == 1);
  CHECK(ulp_distance(DType::bfloat16, 1.0, 1.0 + 0x1p-7) == 1);
  CHECK(ulp_distance(DType::float64, 1.0, std::nextafter(1.0, 2.0)) == 1);
  CHECK(ulp_distance(DType::float32, -2.0, -2.0 - 0x1p-22) == 1);
  CHECK(ulp_distance(DType::float32, 0.5, 0.5) == 0);
  // Symmetric.
  CHECK(ulp_distance(DType::float32, 1.0 + 0x1p-23, 1.0) == 1);
}

TEST_CASE("ulp_distance: across zero, +0 and -0 are one value", "[float_ulps]") {
  const double tiny32 = std::numeric_limits<float>::denorm_min();
  CHECK(ulp_distance(DType::float32, 0.0, -0.0) == 0);
  CHECK(ulp_distance(DType::float32, 0.0, tiny32) == 1);
  CHECK(ulp_distance(DType::float32, -0.0, tiny32) == 1);
  CHECK(ulp_distance(DType::float32, -tiny32, tiny32) == 2);
  CHECK(ulp_distance(DType::float16, -0x1p-24, 0x1p-24) == 2);
  CHECK(ulp_distance(DType::float64, -std::numeric_limits<double>::denorm_min(),
                     std::numeric_limits<double>::denorm_min()) == 2);
  // -1 to 1 in float32: 0x3f800000 steps on each side.
  CHECK(ulp_distance(DType::float32, -1.0, 1.0) == 2.0 * 0x3f800000);
}

TEST_CASE("ulp_distance: infinities are one step past the largest finite value; NaN is no distance",
          "[float_ulps]") {
  const double inf = std::numeric_limits<double>::infinity();
  CHECK(ulp_distance(DType::float32, std::numeric_limits<float>::max(), inf) == 1);
  CHECK(ulp_distance(DType::float16, 65504.0, inf) == 1);
  CHECK(ulp_distance(DType::float16, -65504.0, -inf) == 1);
  CHECK(ulp_distance(DType::float32, -inf, inf) == 2.0 * 0x7f800000);
  CHECK(ulp_distance(DType::float32, inf, inf) == 0);
  CHECK(std::isnan(ulp_distance(DType::float32, std::nan(""), 1.0)));
  CHECK(std::isnan(ulp_distance(DType::float16, 1.0, std::nan(""))));
  CHECK(std::isnan(ulp_distance(DType::float64, std::nan(""), std::nan(""))));
  // float64's widest distance does not overflow.
  CHECK(ulp_distance(DType::float64, -inf, inf) == 2.0 * 0x7ff0000000000000ull);
}

TEST_CASE("round_to: once, to nearest, ties to even; beyond the largest finite value is infinity",
          "[float_ulps]") {
  CHECK(round_to(DType::float16, 1.0 + 0x1p-11) == 1.0);                   // a tie: to even
  CHECK(round_to(DType::float16, 1.0 + 3 * 0x1p-11) == 1.0 + 0x1p-9);      // a tie: to even, up
  CHECK(round_to(DType::float16, 1.0 + 0x1p-11 + 0x1p-40) == 1.0 + 0x1p-10);  // above the tie
  CHECK(round_to(DType::float16, 65519.0) == 65504.0);
  CHECK(std::isinf(round_to(DType::float16, 65520.0)));
  CHECK(round_to(DType::float32, 1.0 + 0x1p-24) == 1.0);
  CHECK(round_to(DType::float32, 1.0 + 0x1p-24 + 0x1p-50) == 1.0 + 0x1p-23);
  CHECK(round_to(DType::bfloat16, 1.0 + 0x1p-8 + 0x1p-30) == 1.0 + 0x1p-7);
  CHECK(round_to(DType::float64, 0.1) == 0.1);
  CHECK(std::isnan(round_to(DType::float32, std::nan(""))));
  CHECK(round_to(DType::float32, 1e-50) == 0.0);
  CHECK_THROWS_AS(round_to(DType::int32, 1.0), jitvec::ArgumentError);
  CHECK_THROWS_WITH(ulp_distance(DType::complex64, 1.0, 1.0),
                    "ulp_distance: complex64 is not a float dtype (float16, bfloat16, float32 or float64)");
}

TEST_CASE("float_limits: each dtype's smallest subnormal, smallest normal and largest value", "[float_ulps]") {
  CHECK(float_limits(DType::float16).smallest_subnormal == 0x1p-24);
  CHECK(float_limits(DType::float16).smallest_normal == 0x1p-14);
  CHECK(float_limits(DType::float16).largest == 65504.0);
  CHECK(float_limits(DType::bfloat16).largest == static_cast<double>(0x1.fep127f));
  CHECK(float_limits(DType::float32).smallest_subnormal == 0x1p-149);
  CHECK(float_limits(DType::float64).smallest_normal == 0x1p-1022);
  // Each limit is a value of its dtype: rounding keeps it.
  for (DType t : {DType::float16, DType::bfloat16, DType::float32}) {
    const auto limits = float_limits(t);
    CHECK(round_to(t, limits.smallest_subnormal) == limits.smallest_subnormal);
    CHECK(round_to(t, limits.largest) == limits.largest);
    CHECK(round_to(t, limits.smallest_subnormal / 4) == 0.0);
  }
}

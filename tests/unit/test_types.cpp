// dtype names and casting rules, signature parsing, and loop selection with weak scalars.
#include <cstring>
#include <limits>

#include "catch.hpp"
#include "engine/type_resolution.hpp"

using namespace jitvec;

TEST_CASE("dtype names and short codes parse", "[types]") {
  CHECK(parse_dtype("float32") == DType::float32);
  CHECK(parse_dtype("f4") == DType::float32);
  CHECK(parse_dtype("f8") == DType::float64);
  CHECK(parse_dtype("i2") == DType::int16);
  CHECK(parse_dtype("u1") == DType::uint8);
  CHECK(parse_dtype("b1") == DType::bool_);
  CHECK(parse_dtype("boolean") == DType::bool_);
  CHECK_FALSE(parse_dtype("float128").has_value());
  CHECK_FALSE(parse_dtype("Float32").has_value());
  for (int i = 0; i < kDTypeCount; ++i) {
    const DType t = static_cast<DType>(i);
    CHECK(parse_dtype(dtype_name(t)) == t);
  }
}

TEST_CASE("safe casting follows NumPy", "[types]") {
  // A few rows of numpy.can_cast(from, to, 'safe').
  CHECK(can_cast_safe(DType::int16, DType::float32));
  CHECK_FALSE(can_cast_safe(DType::int32, DType::float32));
  CHECK(can_cast_safe(DType::int32, DType::float64));
  CHECK(can_cast_safe(DType::int64, DType::float64));
  CHECK(can_cast_safe(DType::uint8, DType::int16));
  CHECK_FALSE(can_cast_safe(DType::uint8, DType::int8));
  CHECK_FALSE(can_cast_safe(DType::int8, DType::uint64));
  CHECK_FALSE(can_cast_safe(DType::float64, DType::float32));
  CHECK_FALSE(can_cast_safe(DType::float32, DType::int64));
  CHECK(can_cast_safe(DType::bool_, DType::int8));
  CHECK_FALSE(can_cast_safe(DType::int8, DType::bool_));
  CHECK(can_cast_safe(DType::uint32, DType::int64));
  CHECK_FALSE(can_cast_safe(DType::uint64, DType::int64));
  // same_kind
  CHECK(can_cast_same_kind(DType::float64, DType::float32));
  CHECK(can_cast_same_kind(DType::int64, DType::int8));
  CHECK_FALSE(can_cast_same_kind(DType::float32, DType::int32));
  CHECK_FALSE(can_cast_same_kind(DType::int32, DType::uint8));
  CHECK(can_cast_same_kind(DType::int32, DType::float32));
}

TEST_CASE("signatures parse in Numba's spelling", "[types]") {
  const Signature s = Signature::parse("float32(float32, float32, float32)");
  CHECK(s.results == std::vector<DType>{DType::float32});
  CHECK(s.args.size() == 3);
  CHECK(Signature::parse("  i2 ( i2,i2 ) ").to_string() == "int16(int16, int16)");
  CHECK(Signature::parse(s.to_string()) == s);
}

TEST_CASE("bad signatures say what and where", "[types][errors]") {
  auto message = [](const char* text) {
    try {
      Signature::parse(text);
    } catch (const SignatureError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK_THAT(message("float32(float32, flaot32)"),
             Catch::Matchers::Contains("unknown type 'flaot32'") &&
                 Catch::Matchers::Contains("column 18"));
  CHECK_THAT(message("float32(float32"), Catch::Matchers::Contains("expected ')'"));
  CHECK_THAT(message("float32()"), Catch::Matchers::Contains("at least one argument"));
  CHECK_THAT(message("float32(float32) x"), Catch::Matchers::Contains("unexpected text"));
  // "(float32)" is a result tuple (several outputs' spelling) with no argument list after it.
  CHECK_THAT(message("(float32)"), Catch::Matchers::Contains("expected '(' at column 10"));
  CHECK_THAT(message("(, float32)(float32)"), Catch::Matchers::Contains("expected a result type"));
}

namespace {

engine::CallInput array_of(DType t) { return engine::CallInput{false, t, nullptr}; }
engine::CallInput scalar_of(const ScalarValue& v) { return engine::CallInput{true, v.type, &v}; }
template <class T> ScalarValue scalar(T v) { return Arg(v).scalar(); }

std::string resolution_error(const std::vector<Signature>& sigs, const std::vector<engine::CallInput>& in) {
  try {
    engine::resolve_loop("f", sigs, in);
  } catch (const ArgumentError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("the first signature every array casts to safely wins", "[types]") {
  const std::vector<Signature> sigs = {Signature::parse("int16(int16, int16)"),
                                       Signature::parse("float32(float32, float32)"),
                                       Signature::parse("float64(float64, float64)")};
  CHECK(engine::resolve_loop("f", sigs, {array_of(DType::int16), array_of(DType::int16)}) == 0);
  CHECK(engine::resolve_loop("f", sigs, {array_of(DType::int8), array_of(DType::uint8)}) == 0);
  CHECK(engine::resolve_loop("f", sigs, {array_of(DType::int16), array_of(DType::float32)}) == 1);
  CHECK(engine::resolve_loop("f", sigs, {array_of(DType::int32), array_of(DType::float32)}) == 2);
  CHECK(engine::resolve_loop("f", sigs, {array_of(DType::int64), array_of(DType::uint64)}) == 2);
  const std::vector<Signature> narrow = {sigs[0], sigs[1]};
  CHECK_THAT(resolution_error(narrow, {array_of(DType::float64), array_of(DType::int16)}),
             Catch::Matchers::Contains("no loop for inputs (float64 array, int16 array)") &&
                 Catch::Matchers::Contains("float32(float32, float32)"));
}

TEST_CASE("scalars are weak and must keep their value", "[types]") {
  const std::vector<Signature> sigs = {Signature::parse("int16(int16, int16)")};
  const ScalarValue fifteen = scalar(15.0), fifteen_half = scalar(15.5), big = scalar(40000);
  CHECK(engine::resolve_loop("f", sigs, {array_of(DType::int16), scalar_of(fifteen)}) == 0);
  CHECK_THAT(resolution_error(sigs, {array_of(DType::int16), scalar_of(fifteen_half)}),
             Catch::Matchers::Contains("scalar argument 2 (float64 15.5) cannot be represented "
                                       "as int16") &&
                 Catch::Matchers::Contains("the arrays chose loop int16(int16, int16)"));
  CHECK_THAT(resolution_error(sigs, {array_of(DType::int16), scalar_of(big)}),
             Catch::Matchers::Contains("40000"));
  CHECK_FALSE(engine::scalar_fits(scalar(300), DType::int8));
  CHECK(engine::scalar_fits(scalar(-128), DType::int8));
  CHECK_FALSE(engine::scalar_fits(scalar(-1), DType::uint32));
  CHECK(engine::scalar_fits(scalar(0.1), DType::float32));      // rounding is fine
  CHECK_FALSE(engine::scalar_fits(scalar(1e300), DType::float32));  // overflow is not
  CHECK(engine::scalar_fits(scalar(true), DType::int8));
  CHECK_FALSE(engine::scalar_fits(scalar(1), DType::bool_));
  CHECK(engine::scalar_fits(scalar(16777216), DType::float32));
  CHECK_FALSE(engine::scalar_fits(scalar(16777217), DType::float32));
  // The arrays choose: a later signature that would hold the scalar is not taken.
  const std::vector<Signature> two = {Signature::parse("int16(int16, int16)"),
                                      Signature::parse("float32(float32, float32)")};
  CHECK_THROWS_AS(engine::resolve_loop("f", two, {array_of(DType::int16), scalar_of(fifteen_half)}),
                  ArgumentError);
  // Scalars only: the first signature holding every value.
  CHECK(engine::resolve_loop("f", two, {scalar_of(fifteen_half), scalar_of(fifteen)}) == 1);
  CHECK(engine::resolve_loop("f", two, {scalar_of(fifteen), scalar_of(fifteen)}) == 0);
}

TEST_CASE("scalars convert into the loop's type", "[types]") {
  engine::ScalarSlot slot{};
  engine::convert_scalar(scalar(15.0), DType::int16, slot);
  std::int16_t i16;
  std::memcpy(&i16, slot.bytes, 2);
  CHECK(i16 == 15);
  engine::convert_scalar(scalar(0.1), DType::float32, slot);
  float f;
  std::memcpy(&f, slot.bytes, 4);
  CHECK(f == 0.1f);
  CHECK_THAT(resolution_error({Signature::parse("f4(f4)")}, {}),
             Catch::Matchers::Contains("takes 1 input, but 0 were given"));
}

TEST_CASE("a float scalar may round into a loop's type but not overflow it", "[types]") {
  const float flt_max = std::numeric_limits<float>::max();
  const double dbl_max = std::numeric_limits<double>::max();
  // float32, from float64 values, both signs.
  for (double sign : {1.0, -1.0}) {
    INFO("sign " << sign);
    CHECK(engine::scalar_fits(scalar(sign * flt_max), DType::float32));
    CHECK(engine::scalar_fits(scalar(sign * 3.4028235e38), DType::float32));  // FLT_MAX printed
    CHECK(engine::scalar_fits(scalar(sign * 3.40282356e38), DType::float32)); // rounds down to it
    // Just below the tie 2^128 - 2^103 rounds to FLT_MAX; the tie and above round to infinity.
    CHECK(engine::scalar_fits(scalar(sign * 0x1.fffffefffffffp+127), DType::float32));
    CHECK_FALSE(engine::scalar_fits(scalar(sign * 0x1.ffffffp+127), DType::float32));
    CHECK_FALSE(engine::scalar_fits(scalar(sign * 3.4028236e38), DType::float32));
    CHECK_FALSE(engine::scalar_fits(scalar(sign * 3.4028236e38 * 1.0000001), DType::float32));
    CHECK_FALSE(engine::scalar_fits(scalar(sign * dbl_max), DType::float32));
    // Small values round to a normal, a denormal or zero: all allowed.
    CHECK(engine::scalar_fits(scalar(sign * std::numeric_limits<float>::min()), DType::float32));
    CHECK(engine::scalar_fits(scalar(sign * std::numeric_limits<float>::denorm_min()), DType::float32));
    CHECK(engine::scalar_fits(scalar(sign * 1e-50), DType::float32));
    CHECK(engine::scalar_fits(scalar(sign * std::numeric_limits<double>::denorm_min()), DType::float32));
    // float64: every float64 value, and float32 values into either type.
    CHECK(engine::scalar_fits(scalar(sign * dbl_max), DType::float64));
    CHECK(engine::scalar_fits(scalar(sign * std::numeric_limits<double>::min()), DType::float64));
    CHECK(engine::scalar_fits(scalar(sign * std::numeric_limits<double>::denorm_min()), DType::float64));
    CHECK(engine::scalar_fits(scalar(static_cast<float>(sign) * flt_max), DType::float32));
    CHECK(engine::scalar_fits(scalar(static_cast<float>(sign) * flt_max), DType::float64));
    CHECK(engine::scalar_fits(scalar(static_cast<float>(sign) * std::numeric_limits<float>::denorm_min()),
                              DType::float32));
    // Infinities stay themselves.
    CHECK(engine::scalar_fits(scalar(sign * std::numeric_limits<double>::infinity()), DType::float32));
  }
  CHECK(engine::scalar_fits(scalar(std::numeric_limits<double>::quiet_NaN()), DType::float32));

  // The converted values: FLT_MAX for the ones that round down to it, the denormal kept.
  engine::ScalarSlot slot{};
  float f = 0;
  for (double v : {3.4028235e38, 3.40282356e38, 0x1.fffffefffffffp+127}) {
    engine::convert_scalar(scalar(v), DType::float32, slot);
    std::memcpy(&f, slot.bytes, 4);
    CHECK(f == flt_max);
    engine::convert_scalar(scalar(-v), DType::float32, slot);
    std::memcpy(&f, slot.bytes, 4);
    CHECK(f == -flt_max);
  }
  engine::convert_scalar(scalar(1.401298464324817e-45), DType::float32, slot);
  std::memcpy(&f, slot.bytes, 4);
  CHECK(f == std::numeric_limits<float>::denorm_min());

  // Integers must be exact, with no undefined conversion back at the edges of int64/uint64.
  CHECK_FALSE(engine::scalar_fits(scalar(std::numeric_limits<std::int64_t>::max()), DType::float32));
  CHECK_FALSE(engine::scalar_fits(scalar(std::numeric_limits<std::int64_t>::max()), DType::float64));
  CHECK(engine::scalar_fits(scalar(std::numeric_limits<std::int64_t>::min()), DType::float32));
  CHECK(engine::scalar_fits(scalar(std::numeric_limits<std::int64_t>::min()), DType::float64));
  CHECK_FALSE(engine::scalar_fits(scalar(std::numeric_limits<std::uint64_t>::max()), DType::float64));
  CHECK(engine::scalar_fits(scalar(std::uint64_t{1} << 63), DType::float32));

  // A long double may round into float64 but not overflow it.
  const long double ldbl_max_round = static_cast<long double>(dbl_max) * (1.0L + 0x1p-60L);
  CHECK(engine::scalar_fits(scalar(ldbl_max_round), DType::float64));
  CHECK(engine::scalar_fits(scalar(-ldbl_max_round), DType::float64));
  CHECK_THROWS_WITH(scalar(static_cast<long double>(dbl_max) * 2.0L),
                    Catch::Matchers::Contains("beyond float64's range"));
  CHECK_THROWS_AS(scalar(-static_cast<long double>(dbl_max) * 2.0L), ArgumentError);
}

TEST_CASE("a call of scalars only keeps the float32 loop for FLT_MAX as it prints", "[types]") {
  const std::vector<Signature> sigs = {Signature::parse("float32(float32, float32)"),
                                       Signature::parse("float64(float64, float64)")};
  const ScalarValue printed_max = scalar(3.4028235e38), one = scalar(1.0);
  const ScalarValue overflowing = scalar(3.4028236e38);
  CHECK(engine::resolve_loop("f", sigs, {scalar_of(printed_max), scalar_of(one)}) == 0);
  CHECK(engine::resolve_loop("f", sigs, {scalar_of(one), scalar_of(overflowing)}) == 1);
  // With a float32 array, the overflowing scalar is refused, FLT_MAX as printed is not.
  CHECK(engine::resolve_loop("f", sigs, {array_of(DType::float32), scalar_of(printed_max)}) == 0);
  CHECK_THAT(resolution_error(sigs, {array_of(DType::float32), scalar_of(overflowing)}),
             Catch::Matchers::Contains("cannot be represented as float32"));
}

// dtype names and casting rules, signature parsing, and loop selection with weak scalars.
#include <cstring>

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
  CHECK_FALSE(parse_dtype("float16").has_value());
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
  CHECK(s.result == DType::float32);
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
  CHECK_THAT(message("(float32)"), Catch::Matchers::Contains("expected a result type"));
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

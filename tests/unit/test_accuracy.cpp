// tests/unit/test_accuracy.cpp: Ufunc::accuracy (jitvec/accuracy.hpp) on the cpu target: an
// exactly rounded source measures 0 ulps, gaussian_pdf a few, catastrophic cancellation is
// found where it is, NaN/inf that only one side gives are counted both ways, float16 is
// measured against float32, float64 says it has no wider type, and a source that cannot be
// called with wider types is refused with what to write instead.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "catch.hpp"
#include "definitions/definition_file.hpp"
#include "jitvec/jitvec.hpp"
#include "support.hpp"

using jitvec::AccuracyOptions;
using jitvec::AccuracyReport;

namespace {

// One engine for these tests, its cache in a folder of its own, the default target cpu.
jitvec::Engine& engine() {
  static jitvec_test::TempDir cache;
  static jitvec::Engine instance([] {
    jitvec::EngineOptions options;
    options.cache.dir = cache.path();
    options.default_target = jitvec::Target::cpu;
    return options;
  }());
  return instance;
}

// A ufunc of this test file, defined once however many test cases use it.
jitvec::Ufunc ufunc(const std::string& name, const std::vector<std::string>& signatures,
                    const std::string& source, const std::vector<jitvec::InputRange>& ranges = {}) {
  for (const std::string& defined : engine().ufunc_names()) {
    if (defined == name) return engine().ufunc(name);
  }
  jitvec::VectorizeOptions options;
  options.ranges = ranges;
  return engine().vectorize(name, signatures, source, options);
}

AccuracyOptions points(std::size_t count) {
  AccuracyOptions options;
  options.points = count;
  return options;
}

const char* kCancellation = R"(
template <typename T> T one_minus_cos(T x) { return (T(1) - cos(x)) / (x * x); }
)";

}  // namespace

TEST_CASE("accuracy: an exactly rounded operation is 0 ulps from its rounded reference", "[accuracy]") {
  const jitvec::Ufunc add = ufunc("accuracy_add", {"float32(float32, float32)"},
                                  "template <typename T> T accuracy_add(T x, T y) { return x + y; }");
  const std::vector<AccuracyReport> reports = add.accuracy(points(4096));
  REQUIRE(reports.size() == 1);
  const AccuracyReport& r = reports[0];
  CHECK(r.unavailable.empty());
  CHECK(r.reference == "float64(float64, float64)");
  CHECK(r.ranges.size() == 2);
  CHECK(r.ranges[0].input == "x");
  CHECK(r.ranges[1].input == "y");
  CHECK(r.ranges[0].high == static_cast<double>(std::numeric_limits<float>::max()));  // the default
  // 4096 swept, 11 edge values x 4 per input, 11 points of all inputs at one edge value.
  CHECK(r.points == 4096 + 2 * 11 * 4 + 11);
  CHECK(r.compared > 4000);
  CHECK(r.max_ulps == 0);
  CHECK(r.histogram[0].count == r.compared);
  // Overflow to inf rounds the same way in both; inf - inf is NaN in both.
  CHECK(r.unexpected_nonfinite == 0);
  CHECK(r.missing_nonfinite == 0);
  CHECK(r.curves.size() == 2);
}

TEST_CASE("accuracy: gaussian_pdf float32 is a few ulps from float64 over its ranges; float64 has no wider type",
          "[accuracy]") {
  const jitvec::Ufunc pdf = ufunc(
      "accuracy_gaussian", {"float32(float32, float32, float32)", "float64(float64, float64, float64)"},
      "template <typename T> T accuracy_gaussian(T x, T mean, T sigma) {\n"
      "  const T z = (x - mean) / sigma;\n"
      "  return exp(T(-0.5) * z * z) / (sigma * T(2.5066282746310002));\n"
      "}\n",
      {{"x", -3, 3}, {"mean", -0.5, 0.5}, {"sigma", 0.5, 2}});
  const std::vector<AccuracyReport> reports = pdf.accuracy(points(1 << 14));
  REQUIRE(reports.size() == 2);
  const AccuracyReport& f32 = reports[0];
  CHECK(f32.ranges[1].input == "mean");
  CHECK(f32.ranges[1].low == -0.5);
  // Over the ranges (the swept points, the curves): exp(-z^2 / 2) turns float32's relative
  // error in z^2 / 2 (up to 24.5 here) into as many times the ulps.
  double swept_max = 0;
  for (const jitvec::AccuracyCurve& curve : f32.curves) {
    swept_max = std::max(swept_max, *std::max_element(curve.max_ulps.begin(), curve.max_ulps.end()));
  }
  INFO("max " << f32.max_ulps << " ulps at sigma=" << f32.max_ulps_at.inputs[2] << "; " << swept_max
              << " over the ranges");
  CHECK(swept_max >= 1);  // float32's exp and divisions do round
  CHECK(swept_max <= 64);
  CHECK(f32.median_ulps <= 2);
  CHECK(f32.median_ulps <= f32.p99_ulps);
  CHECK(f32.p99_ulps <= f32.max_ulps);
  // The worst of all lies at an edge value of sigma (a huge or subnormal sigma: a result below
  // float32's normals, where few bits are left), outside the range.
  const double sigma = std::fabs(f32.max_ulps_at.inputs[2]);
  CHECK((sigma < 0.5 || sigma > 2));
  CHECK(f32.max_ulps > swept_max);
  CHECK(std::isfinite(f32.max_relative));
  CHECK(reports[1].loop.to_string() == "float64(float64, float64, float64)");
  CHECK(reports[1].unavailable.find("float64, which has no wider type") != std::string::npos);
}

TEST_CASE("accuracy: catastrophic cancellation is found in its range", "[accuracy]") {
  SECTION("(1 - cos x) / x^2 near 0") {
    const jitvec::Ufunc f = ufunc("one_minus_cos", {"float32(float32)"}, kCancellation);
    AccuracyOptions options = points(1 << 14);
    options.ranges = {{"x", -1, 1}};
    const AccuracyReport r = f.accuracy(options).at(0);
    INFO("max " << r.max_ulps << " ulps at x=" << r.max_ulps_at.inputs[0]);
    CHECK(std::fabs(r.max_ulps_at.inputs[0]) < 1e-3);
    CHECK(r.max_ulps > 1e6);
    CHECK(r.max_relative > 0.1);
    // Far from 0 the same source is accurate: the curve's outer bins are small.
    const std::vector<double>& curve = r.curves[0].max_ulps;
    CHECK(curve.front() >= 0);
    CHECK(curve.front() < 16);
    CHECK(curve.back() < 16);
    CHECK(*std::max_element(curve.begin(), curve.end()) == r.max_ulps);
    // x * x underflows to 0 in float32 for the smallest x: 0 / 0, a NaN float64 does not give.
    CHECK(r.unexpected_nonfinite > 0);
    REQUIRE(!r.unexpected_examples.empty());
    CHECK(std::isnan(r.unexpected_examples[0].result));
    CHECK(std::fabs(r.unexpected_examples[0].inputs[0]) < 1e-19);
  }
  SECTION("sqrt(x + 1) - sqrt(x) for large x") {
    const jitvec::Ufunc f = ufunc("sqrt_gap", {"float32(float32)"},
                                  "template <typename T> T sqrt_gap(T x) { return sqrt(x + T(1)) - sqrt(x); }",
                                  {{"x", 1, 1e7}});
    const AccuracyReport r = f.accuracy(points(1 << 14)).at(0);
    INFO("max " << r.max_ulps << " ulps at x=" << r.max_ulps_at.inputs[0]);
    CHECK(r.max_ulps_at.inputs[0] > 1e4);
    CHECK(r.max_ulps > 1e5);
    CHECK(r.curves[0].max_ulps.back() > r.curves[0].max_ulps.front());
  }
}

TEST_CASE("accuracy: NaN and inf that only one side gives are counted apart", "[accuracy]") {
  SECTION("x * x / x overflows in float32 where float64 does not") {
    const jitvec::Ufunc f = ufunc("square_over", {"float32(float32)"},
                                  "template <typename T> T square_over(T x) { return x * x / x; }");
    const AccuracyReport r = f.accuracy(points(4096)).at(0);
    CHECK(r.unexpected_nonfinite > 0);
    REQUIRE(!r.unexpected_examples.empty());
    for (const jitvec::AccuracyPoint& p : r.unexpected_examples) {
      CHECK(std::isinf(p.result));
      CHECK(std::isfinite(p.reference));
      CHECK(std::fabs(p.inputs[0]) > 1.8e19);  // x * x beyond float32's largest
    }
    CHECK(r.unexpected_examples.size() == std::min<std::size_t>(r.unexpected_nonfinite, 5));
    CHECK(r.missing_nonfinite == 0);
  }
  SECTION("the reverse: the reference is infinite where the loop is finite") {
    const jitvec::Ufunc f = ufunc("wide_only_inf", {"float32(float32)"},
                                  "template <typename T> T wide_only_inf(T x) { return sizeof(T) == 8 ? x / T(0) : x; }",
                                  {{"x", 1, 2}});
    const AccuracyReport r = f.accuracy(points(256)).at(0);
    CHECK(r.missing_nonfinite >= 256);
    REQUIRE(!r.missing_examples.empty());
    CHECK(std::isinf(r.missing_examples[0].reference));
    CHECK(r.missing_examples[0].result == r.missing_examples[0].inputs[0]);
  }
}

TEST_CASE("accuracy: float16 is measured against float32", "[accuracy]") {
  const jitvec::Ufunc f = ufunc("half_square", {"float16(float16)", "float32(float32)"},
                                "template <typename T> T half_square(T x) { return x * x; }", {{"x", -200, 200}});
  AccuracyOptions options = points(2048);
  options.signature = 0;
  const std::vector<AccuracyReport> reports = f.accuracy(options);
  REQUIRE(reports.size() == 1);
  CHECK(reports[0].reference == "float32(float32)");
  CHECK(reports[0].ranges[0].low == -200);
  // One rounding to float16, as the reference rounded: exact.
  CHECK(reports[0].max_ulps == 0);
  // x * x beyond 65504 is inf in both.
  CHECK(reports[0].unexpected_nonfinite == 0);
}

TEST_CASE("accuracy: bfloat16 against float32 on the parallel target; a range beyond the type is clamped",
          "[accuracy]") {
  const jitvec::Ufunc f = ufunc("bf16_scale", {"bfloat16(bfloat16)"},
                                "template <typename T> T bf16_scale(T x) { return x * T(3) + T(1); }");
  AccuracyOptions options = points(1024);
  options.target = jitvec::Target::parallel;
  options.ranges = {{"x", -1e300, 1e300}};
  const AccuracyReport r = f.accuracy(options).at(0);
  CHECK(r.target == jitvec::Target::parallel);
  CHECK(r.reference == "float32(float32)");
  CHECK(r.ranges[0].high == static_cast<double>(0x1.fep127f));  // bfloat16's largest
  CHECK(r.ranges[0].low == -r.ranges[0].high);
  // Two roundings in bfloat16 (x * 3, then + 1) against one of the float32 result: off by a
  // unit now and then, never by more than a few.
  CHECK(r.max_ulps >= 1);
  CHECK(r.max_ulps <= 4);
}

TEST_CASE("accuracy: a source that is not generic over its float type is refused", "[accuracy]") {
  const jitvec::Ufunc plain =
      ufunc("plain_twice", {"float32(float32)"}, "float plain_twice(float x) { return x * 2.0f; }");
  CHECK_THROWS_WITH(plain.accuracy(points(64)),
                    Catch::Contains("ufunc 'plain_twice': plain_twice(double) does not return float64") &&
                        Catch::Contains("template <typename T> T plain_twice(T x, ...)"));
  const jitvec::Ufunc two = ufunc("plain_two", {"(float32, float32)(float32)"},
                                  "void plain_two(float x, float& a, float& b) { a = x; b = -x; }");
  CHECK_THROWS_AS(two.accuracy(points(64)), jitvec::DefinitionError);
}

TEST_CASE("accuracy: several outputs give a report each", "[accuracy]") {
  const jitvec::Ufunc f = ufunc("split_pair", {"(float32, float32)(float32)"},
                                "template <typename T> void split_pair(T x, T& a, T& b) { a = x + T(1); b = x * x; }",
                                {{"x", -10, 10}});
  const std::vector<AccuracyReport> reports = f.accuracy(points(512));
  REQUIRE(reports.size() == 2);
  CHECK(reports[0].output == 0);
  CHECK(reports[1].output == 1);
  CHECK(reports[0].max_ulps == 0);
  CHECK(reports[1].max_ulps == 0);
  CHECK(reports[1].reference == "(float64, float64)(float64)");
}

TEST_CASE("accuracy: ranges and options are checked", "[accuracy]") {
  const jitvec::Ufunc f = ufunc("one_minus_cos", {"float32(float32)"}, kCancellation);
  AccuracyOptions options = points(64);
  options.ranges = {{"xx", 0, 1}};
  CHECK_THROWS_WITH(f.accuracy(options),
                    "accuracy of ufunc 'one_minus_cos': a range names input 'xx', but its inputs are 'x'; did you "
                    "mean 'x'?");
  options.ranges = {{"x", 1, 0}};
  CHECK_THROWS_WITH(f.accuracy(options), Catch::Contains("a range needs finite bounds, the low one first"));
  CHECK_THROWS_WITH(f.accuracy(points(8)), Catch::Contains("give at least 16"));
  AccuracyOptions missing = points(64);
  missing.signature = 3;
  CHECK_THROWS_WITH(f.accuracy(missing), Catch::Contains("has 1 signatures; there is no signature 3"));
  jitvec::VectorizeOptions bad;
  bad.ranges = {{"y", 0, 1}};
  CHECK_THROWS_AS(engine().vectorize("ranged_wrong", {"float32(float32)"},
                                     "template <typename T> T ranged_wrong(T x) { return x; }", bad),
                  jitvec::DefinitionError);
  if (jitvec::cuda_device_count() == 0) {
    AccuracyOptions cuda = points(64);
    cuda.target = jitvec::Target::cuda;
    CHECK_THROWS_AS(f.accuracy(cuda), jitvec::TargetError);
  }
}

TEST_CASE("accuracy: [ufuncs.NAME.ranges] in a definition file", "[accuracy]") {
  const auto set = jitvec::definitions::parse_definition_text(
      "[ufuncs.f]\nsignatures = [\"float32(float32, float32)\"]\nsource = 'float f(float x, float y) { return x; }'\n"
      "[ufuncs.f.ranges]\nx = [-10, 10.5]\ny = [0, 1e3]\n",
      "ranges.toml");
  REQUIRE(set.ufuncs.at(0).ranges.size() == 2);
  CHECK(set.ufuncs[0].ranges[0].input == "x");
  CHECK(set.ufuncs[0].ranges[0].low == -10);
  CHECK(set.ufuncs[0].ranges[0].high == 10.5);
  CHECK(set.ufuncs[0].ranges[1].high == 1e3);
  CHECK_THROWS_WITH(jitvec::definitions::parse_definition_text(
                        "[ufuncs.f]\nsignatures = [\"float32(float32)\"]\nsource = 'float f(float x) { return x; }'\n"
                        "ranges = { x = [1, \"2\"] }\n",
                        "ranges.toml"),
                    "ranges.toml:4: ufuncs.f: ranges.x must be [low, high], two finite numbers with low <= high "
                    "(as [-10, 10])");
}

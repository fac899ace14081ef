// float16, bfloat16, complex64 and complex128 end to end: NumPy 2's casting table (bfloat16 by
// ml_dtypes' rules), weak scalars, and the checks of tests/dtype_cases.hpp on the cpu and
// parallel targets (the same checks run on the cuda target in tests/gpu/test_gpu_dtypes.cpp).
#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <limits>
#include <mutex>

#include "dtype_cases.hpp"
#include "jitvec/dlpack.hpp"
#include "jitvec/errors.hpp"

using namespace jitvec;

namespace jitvec_dtype_test {
namespace {

using jitvec_test::rng;
using jitvec_test::rng_seed;

constexpr std::uint16_t kPoison16 = 0xA5A5;

std::mutex& define_mutex() {
  static std::mutex m;
  return m;
}

// Host data as an Array on the requested side.
Array placed(const Array& host, bool device) { return device ? host.to_device() : host; }

template <class T> std::vector<T> fetched(const Array& a) { return a.to_vector<T>(); }

double random_in(double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(rng()); }

std::vector<half> random_halves(std::size_t n, double lo, double hi) {
  std::vector<half> v(n);
  for (half& h : v) h = half::from_bits(detail::double_to_half_bits(random_in(lo, hi)));
  return v;
}
std::vector<bfloat16> random_bf16(std::size_t n, double lo, double hi) {
  std::vector<bfloat16> v(n);
  for (bfloat16& h : v) h = bfloat16::from_bits(detail::double_to_bfloat16_bits(random_in(lo, hi)));
  return v;
}
template <class T> std::vector<std::complex<T>> random_complex(std::size_t n, double lo, double hi, bool away_from_zero = false) {
  std::vector<std::complex<T>> v(n);
  for (auto& z : v) {
    double re = random_in(lo, hi), im = random_in(lo, hi);
    if (away_from_zero) {
      re = std::copysign(0.2 + std::fabs(re), re);
      im = std::copysign(0.2 + std::fabs(im), im);
    }
    z = std::complex<T>(static_cast<T>(re), static_cast<T>(im));
  }
  return v;
}

double value_of(half h) { return static_cast<float>(h); }
double value_of(bfloat16 h) { return static_cast<float>(h); }

bool same_value(double got, double want) {
  if (std::isnan(want)) return std::isnan(got);
  return got == want && std::signbit(got) == std::signbit(want);
}

// ---- gaussian_pdf computed in float, rounded to the 2-byte type: within 1 ulp ----
template <class H> void check_gauss(Target target, bool device, DType t, std::size_t n) {
  Ufunc f = jitvec_test::shared_engine().ufunc("dt_gauss");
  const std::vector<H> x = [&] {
    if constexpr (std::is_same_v<H, half>) return random_halves(n, -4, 4);
    else return random_bf16(n, -4, 4);
  }();
  const double mu = 0.5, sigma = 1.25;  // exact in both types
  const Array result = f(placed(from_vector(x), device), mu, sigma, jitvec::target(target));
  REQUIRE(result.dtype() == t);
  const std::vector<H> got = fetched<H>(result);
  std::size_t bad = 0;
  std::string first;
  for (std::size_t i = 0; i < n; ++i) {
    const double z = (value_of(x[i]) - mu) / sigma;
    const double want = round_to(t, std::exp(-0.5 * z * z) / (sigma * 2.5066282746310002));
    if (!(std::fabs(value_of(got[i]) - want) <= ulp_of(t, want))) {
      if (bad++ == 0) first = fmt::format("x[{}] = {}: got {}, want {}", i, value_of(x[i]), value_of(got[i]), want);
    }
  }
  INFO(dtype_name(t) << " gauss, " << n << " elements: " << bad << " beyond 1 ulp; first: " << first);
  CHECK(bad == 0);
}

// ---- a * b + a / b - b with the types' own operators: each rounds once, so bit for bit ----
template <class H> void check_arithmetic(Target target, bool device, DType t, std::size_t n) {
  Ufunc f = jitvec_test::shared_engine().ufunc("dt_arith");
  auto make = [&](double lo, double hi) {
    if constexpr (std::is_same_v<H, half>) return random_halves(n, lo, hi);
    else return random_bf16(n, lo, hi);
  };
  const std::vector<H> a = make(-60, 60), b = make(-8, 8);
  // Into a poisoned out= view with a stride of 2: the other elements must stay poisoned.
  std::vector<H> base(2 * n, H::from_bits(kPoison16));
  Array base_array = placed(from_vector(base), device);
  Array out_view = base_array.slice(0, 0, static_cast<std::int64_t>(2 * n), 2);
  f(placed(from_vector(a), device), placed(from_vector(b), device), out(out_view), jitvec::target(target));
  const std::vector<H> all = fetched<H>(base_array);
  std::size_t bad = 0, unpoisoned = 0;
  std::string first;
  for (std::size_t i = 0; i < n; ++i) {
    const double x = value_of(a[i]), y = value_of(b[i]);
    const double want = round_to(t, round_to(t, round_to(t, x * y) + round_to(t, x / y)) - y);
    const double got = value_of(all[2 * i]);
    if (!same_value(got, want) && bad++ == 0) first = fmt::format("{} op {}: got {}, want {}", x, y, got, want);
    if (all[2 * i + 1].bits != kPoison16) ++unpoisoned;
  }
  INFO(dtype_name(t) << " arithmetic: " << bad << " differ; first: " << first);
  CHECK(bad == 0);
  CHECK(unpoisoned == 0);
}

// Random floats over every binade of the 2-byte types, with ties, subnormals and overflow.
std::vector<float> conversion_inputs(std::size_t n) {
  std::vector<float> v(n);
  for (float& f : v) {
    const int e = std::uniform_int_distribution<int>(-28, 18)(rng());
    const std::uint32_t mantissa = static_cast<std::uint32_t>(rng()()) & 0x7fffffu;
    // A quarter with the bits below float16's precision set to exactly half an ulp: ties.
    const std::uint32_t m = (rng()() & 3u) == 0 ? ((mantissa & ~0x1fffu) | 0x1000u) : mantissa;
    std::uint32_t bits = (static_cast<std::uint32_t>(e + 127) << 23) | m;
    if (rng()() & 1u) bits |= 0x80000000u;
    std::memcpy(&f, &bits, 4);
  }
  v[0] = std::numeric_limits<float>::infinity();
  v[1] = -0.0f;
  v[2] = 65520.0f;    // rounds to inf in float16
  v[3] = 65519.996f;  // rounds to 65504
  v[4] = 0x1p-25f;    // half of float16's smallest subnormal: ties to zero
  v[5] = 0x1.8p-25f;  // rounds up to the smallest subnormal
  return v;
}

void check_conversions(Target target, bool device, std::size_t n) {
  const std::vector<float> x = conversion_inputs(n);
  const Array xs = placed(from_vector(x), device);
  const std::vector<half> h = fetched<half>(jitvec_test::shared_engine().ufunc("dt_to_half")(xs, jitvec::target(target)));
  const std::vector<bfloat16> b = fetched<bfloat16>(jitvec_test::shared_engine().ufunc("dt_to_bf16")(xs, jitvec::target(target)));
  std::vector<double> d(n);
  for (double& v : d) v = std::ldexp(random_in(-1, 1), std::uniform_int_distribution<int>(-140, 130)(rng()));
  const std::vector<bfloat16> bd = fetched<bfloat16>(
      jitvec_test::shared_engine().ufunc("dt_to_bf16")(placed(from_vector(d), device), jitvec::target(target)));
  std::size_t bad = 0;
  std::string first;
  for (std::size_t i = 0; i < n; ++i) {
    const double want_h = round_half(x[i]), want_b = round_bf16(x[i]), want_bd = round_bf16(d[i]);
    if (!same_value(value_of(h[i]), want_h) && bad++ == 0) first = fmt::format("float16({:a}) = {}, want {}", x[i], value_of(h[i]), want_h);
    if (!same_value(value_of(b[i]), want_b) && bad++ == 0) first = fmt::format("bfloat16({:a}) = {}, want {}", x[i], value_of(b[i]), want_b);
    if (!same_value(value_of(bd[i]), want_bd) && bad++ == 0) first = fmt::format("bfloat16({:a}) = {}, want {}", d[i], value_of(bd[i]), want_bd);
  }
  INFO(bad << " conversions differ; first: " << first);
  CHECK(bad == 0);

  // Safe input casts into a float16 loop (uint8 -> float16 exact) and same_kind out= casts
  // (the float32 loop's results rounded into a float16 array).
  std::vector<std::uint8_t> u(n);
  for (auto& v : u) v = static_cast<std::uint8_t>(rng()());
  const std::vector<half> hu = fetched<half>(
      jitvec_test::shared_engine().ufunc("dt_twice")(placed(from_vector(u), device), jitvec::target(target)));
  std::vector<half> into(n, half::from_bits(kPoison16));
  Array into_array = placed(from_vector(into), device);
  jitvec_test::shared_engine().ufunc("dt_twice")(xs, out(into_array), jitvec::target(target));
  const std::vector<half> hx = fetched<half>(into_array);
  std::size_t cast_bad = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (!same_value(value_of(hu[i]), 2.0 * u[i])) ++cast_bad;
    if (!same_value(value_of(hx[i]), round_half(round_f32(2.0 * x[i])))) ++cast_bad;
  }
  CHECK(cast_bad == 0);
}

// Relative error in ulps of T, against the magnitude `scale` of the terms.
template <class T> double ulps(double error, double scale) {
  return error / (scale * std::numeric_limits<T>::epsilon());
}

// ---- z * conj(z) + c, with c an array and a weak std::complex scalar ----
template <class T> void check_complex_arithmetic(Target target, bool device, std::size_t n) {
  Ufunc f = jitvec_test::shared_engine().ufunc("dt_zz");
  const auto z = random_complex<T>(n, -3, 3), c = random_complex<T>(n, -3, 3);
  const std::complex<double> weak(0.25, -0.5);
  const Array zs = placed(from_vector(z), device);
  const auto got_array = fetched<std::complex<T>>(f(zs, placed(from_vector(c), device), jitvec::target(target)));
  const auto got_scalar = fetched<std::complex<T>>(f(zs, weak, jitvec::target(target)));
  const auto got_real = fetched<std::complex<T>>(f(zs, 2.5, jitvec::target(target)));
  double worst = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const std::complex<double> zi(z[i]);
    const double scale = std::norm(zi) + 3.0;
    for (const auto& [got, cc] : {std::pair{got_array[i], std::complex<double>(c[i])},
                                  std::pair{got_scalar[i], weak}, std::pair{got_real[i], std::complex<double>(2.5)}}) {
      const std::complex<double> want = zi * std::conj(zi) + cc;
      worst = std::max(worst, ulps<T>(std::abs(std::complex<double>(got) - want), scale));
    }
  }
  INFO("complex" << 16 * sizeof(T) << " z * conj(z) + c: worst " << worst << " ulps");
  CHECK(worst <= 4);
}

// ---- exp, log, sqrt, abs, arg, division by a complex ----
template <class T> void check_complex_math(Target target, bool device, std::size_t n) {
  Ufunc f = jitvec_test::shared_engine().ufunc("dt_cmath");
  const auto z = random_complex<T>(n, -2, 2, true);
  const auto got = fetched<std::complex<T>>(f(placed(from_vector(z), device), jitvec::target(target)));
  double worst = 0;
  std::string first;
  for (std::size_t i = 0; i < n; ++i) {
    const std::complex<double> zi(z[i]);
    const std::complex<double> a = std::exp(zi) / (zi + 2.0), b = std::sqrt(zi) * std::log(zi);
    const std::complex<double> want = a + b - std::abs(zi) + std::arg(zi) * std::complex<double>(0, 1);
    const double scale = std::abs(a) + std::abs(b) + std::abs(zi) + 4.0;
    const double e = ulps<T>(std::abs(std::complex<double>(got[i]) - want), scale);
    if (e > worst) {
      worst = e;
      first = fmt::format("z = ({}, {}): got ({}, {}), want ({}, {})", zi.real(), zi.imag(), got[i].real(), got[i].imag(), want.real(), want.imag());
    }
  }
  INFO("complex" << 16 * sizeof(T) << " math: worst " << worst << " ulps at " << first);
  CHECK(worst <= 8);
}

// ---- mixed operand types: uint8 -> float16 and float32 -> complex64 input casts ----
void check_mixed(Target target, bool device, std::size_t n) {
  Ufunc f = jitvec_test::shared_engine().ufunc("dt_mixed");
  const std::vector<half> h = random_halves(n, -10, 10);
  const auto z = random_complex<float>(n, -5, 5);
  std::vector<std::uint8_t> u(n);
  for (auto& v : u) v = static_cast<std::uint8_t>(rng()());
  std::vector<float> re(n);
  for (auto& v : re) v = static_cast<float>(random_in(-5, 5));
  const auto got = fetched<std::complex<double>>(f(placed(from_vector(h), device), placed(from_vector(z), device), jitvec::target(target)));
  const auto got_cast = fetched<std::complex<double>>(f(placed(from_vector(u), device), placed(from_vector(re), device), jitvec::target(target)));
  double worst = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double hv = value_of(h[i]);
    const std::complex<double> want = std::complex<double>(z[i]) * hv + hv;
    worst = std::max(worst, ulps<double>(std::abs(got[i] - want), std::abs(want) + hv + 1));
    const std::complex<double> want_cast = std::complex<double>(re[i]) * double(u[i]) + double(u[i]);
    worst = std::max(worst, ulps<double>(std::abs(got_cast[i] - want_cast), std::abs(want_cast) + 1));
  }
  INFO("mixed float16/complex64 -> complex128: worst " << worst << " double ulps");
  CHECK(worst <= 4);
}

}  // namespace

void define_dtype_ufuncs(Engine& engine) {
  std::lock_guard<std::mutex> lock(define_mutex());
  static Engine* defined_in = nullptr;
  if (defined_in == &engine) return;
  defined_in = &engine;
  engine.vectorize("dt_gauss", {"float16(float16, float16, float16)", "bf16(bf16, bf16, bf16)"}, R"(
template <class T> T dt_gauss(T x, T mu, T sigma) {
  const float t = (float(x) - float(mu)) / float(sigma);
  return T(expf(-0.5f * t * t) / (float(sigma) * 2.5066282746310002f));
})");
  engine.vectorize("dt_arith", {"f2(f2, f2)", "bfloat16(bfloat16, bfloat16)"},
                   "template <class T> T dt_arith(T a, T b) { return a * b + a / b - b; }");
  engine.vectorize("dt_to_half", {"float16(float32)"}, "__half dt_to_half(float x) { return x; }");
  engine.vectorize("dt_to_bf16", {"bfloat16(float32)", "bfloat16(float64)"},
                   "template <class T> __nv_bfloat16 dt_to_bf16(T x) { return __nv_bfloat16(x); }");
  engine.vectorize("dt_twice", {"float16(float16)", "float32(float32)"},
                   "template <class T> T dt_twice(T x) { return x * 2; }");
  engine.vectorize("dt_zz", {"c8(c8, c8)", "complex128(complex128, complex128)"},
                   "template <class Z> Z dt_zz(Z z, Z c) { return z * conj(z) + c; }");
  engine.vectorize("dt_cmath", {"complex64(complex64)", "c16(c16)"}, R"(
template <class Z> Z dt_cmath(Z z) {
  return exp(z) / (z + 2.0) + sqrt(z) * log(z) - abs(z) + arg(z) * Z(0, 1);
})");
  engine.vectorize("dt_mixed", {"complex128(float16, complex64)"}, R"(
complex128 dt_mixed(__half h, complex64 z) { return complex128(z) * h + complex128(h); })");
}

void run_dtype_checks(Target target, bool device) {
  define_dtype_ufuncs(jitvec_test::shared_engine());
  INFO("target " << target_name(target) << (device ? ", device arrays" : ", host arrays") << ", seed " << rng_seed());
  // 300007 elements: split over threads on the parallel target, a ragged tail on the GPU.
  const std::size_t n = 300007;
  check_gauss<half>(target, device, DType::float16, n);
  check_gauss<bfloat16>(target, device, DType::bfloat16, n);
  check_arithmetic<half>(target, device, DType::float16, n);
  check_arithmetic<bfloat16>(target, device, DType::bfloat16, n);
  check_conversions(target, device, n);
  check_complex_arithmetic<float>(target, device, n);
  check_complex_arithmetic<double>(target, device, n);
  check_complex_math<float>(target, device, 20011);
  check_complex_math<double>(target, device, 20011);
  check_mixed(target, device, 20011);
}

}  // namespace jitvec_dtype_test

using namespace jitvec_dtype_test;

TEST_CASE("new dtypes: names, sizes, kinds", "[dtype][types]") {
  CHECK(parse_dtype("float16") == DType::float16);
  CHECK(parse_dtype("f2") == DType::float16);
  CHECK(parse_dtype("bfloat16") == DType::bfloat16);
  CHECK(parse_dtype("bf16") == DType::bfloat16);
  CHECK(parse_dtype("complex64") == DType::complex64);
  CHECK(parse_dtype("c8") == DType::complex64);
  CHECK(parse_dtype("complex128") == DType::complex128);
  CHECK(parse_dtype("c16") == DType::complex128);
  CHECK(dtype_size(DType::float16) == 2);
  CHECK(dtype_size(DType::bfloat16) == 2);
  CHECK(dtype_size(DType::complex64) == 8);
  CHECK(dtype_size(DType::complex128) == 16);
  CHECK(dtype_alignment(DType::complex128) == 8);
  CHECK(dtype_kind(DType::complex64) == DTypeKind::complex);
  CHECK(dtype_kind(DType::bfloat16) == DTypeKind::floating);
  CHECK(dtype_of<half>() == DType::float16);
  CHECK(dtype_of<bfloat16>() == DType::bfloat16);
  CHECK(dtype_of<std::complex<float>>() == DType::complex64);
  CHECK(dtype_of<std::complex<double>>() == DType::complex128);
  CHECK(Signature::parse("c8(f2, bf16)").to_string() == "complex64(float16, bfloat16)");
}

TEST_CASE("casting follows NumPy 2 (bfloat16: ml_dtypes)", "[dtype][types]") {
  // Rows: from; columns: to; in DType order. 'y': can_cast(from, to, mode). Every entry except
  // bfloat16's row and column is numpy.can_cast's answer (NumPy 2.4); bfloat16's are ml_dtypes'
  // (bool, int8, uint8 -> bfloat16 and bfloat16 -> float32, float64, complex are safe).
  const DType order[] = {DType::bool_,  DType::int8,    DType::int16,    DType::int32,   DType::int64,
                         DType::uint8,  DType::uint16,  DType::uint32,   DType::uint64,  DType::float32,
                         DType::float64, DType::float16, DType::bfloat16, DType::complex64, DType::complex128};
  static_assert(sizeof(order) / sizeof(order[0]) == kDTypeCount, "every dtype");
  const char* safe[] = {
      "yyyyyyyyyyyyyyy",  // bool
      "nyyyynnnnyyyyyy",  // int8
      "nnyyynnnnyynnyy",  // int16
      "nnnyynnnnnynnny",  // int32
      "nnnnynnnnnynnny",  // int64
      "nnyyyyyyyyyyyyy",  // uint8
      "nnnyynyyyyynnyy",  // uint16
      "nnnnynnyynynnny",  // uint32
      "nnnnnnnnynynnny",  // uint64
      "nnnnnnnnnyynnyy",  // float32
      "nnnnnnnnnnynnny",  // float64
      "nnnnnnnnnyyynyy",  // float16
      "nnnnnnnnnyynyyy",  // bfloat16
      "nnnnnnnnnnnnnyy",  // complex64
      "nnnnnnnnnnnnnny",  // complex128
  };
  const char* same_kind[] = {
      "yyyyyyyyyyyyyyy",  // bool
      "nyyyynnnnyyyyyy",  // int8
      "nyyyynnnnyyyyyy",  // int16
      "nyyyynnnnyyyyyy",  // int32
      "nyyyynnnnyyyyyy",  // int64
      "nyyyyyyyyyyyyyy",  // uint8
      "nyyyyyyyyyyyyyy",  // uint16
      "nyyyyyyyyyyyyyy",  // uint32
      "nyyyyyyyyyyyyyy",  // uint64
      "nnnnnnnnnyyyyyy",  // float32
      "nnnnnnnnnyyyyyy",  // float64
      "nnnnnnnnnyyyyyy",  // float16
      "nnnnnnnnnyyyyyy",  // bfloat16
      "nnnnnnnnnnnnnyy",  // complex64
      "nnnnnnnnnnnnnyy",  // complex128
  };
  for (int i = 0; i < kDTypeCount; ++i) {
    for (int j = 0; j < kDTypeCount; ++j) {
      CAPTURE(dtype_name(order[i]), dtype_name(order[j]));
      CHECK(can_cast_safe(order[i], order[j]) == (safe[i][j] == 'y'));
      CHECK(can_cast_same_kind(order[i], order[j]) == (same_kind[i][j] == 'y'));
    }
  }
}

TEST_CASE("weak scalars into float16 and complex loops", "[dtype][types][cpu]") {
  Engine& engine = jitvec_test::shared_engine();
  define_dtype_ufuncs(engine);
  const std::vector<half> x = random_halves(16, -1, 1);
  Ufunc gauss = engine.ufunc("dt_gauss");
  const auto cpu = jitvec::target(Target::cpu);
  CHECK_THROWS_WITH(gauss(x, 1e5, 1.0, cpu),
                    Catch::Matchers::Contains("scalar argument 2 (float64 100000) cannot be represented as float16"));
  CHECK_THROWS_WITH(gauss(x, 0.0, 70000, cpu), Catch::Matchers::Contains("(int32 70000) cannot be represented as float16"));
  CHECK_THROWS_WITH(gauss(x, 0.0, 2049, cpu), Catch::Matchers::Contains("cannot be represented as float16"));
  CHECK_NOTHROW(gauss(x, 65504.0, 2048, cpu));
  CHECK_NOTHROW(gauss(x, 65519.0, 1.0, cpu));  // rounds to 65504: rounding is allowed
  CHECK_THROWS_WITH(gauss(x, std::complex<double>(1, 0), 1.0, cpu),
                    Catch::Matchers::Contains("(complex128 (1+0j)) cannot be represented as float16"));
  CHECK_THROWS_WITH(gauss(random_bf16(8, -1, 1), 0.0, 3.5e38, cpu), Catch::Matchers::Contains("cannot be represented as bfloat16"));
  CHECK_NOTHROW(gauss(random_bf16(8, -1, 1), 0.0, 3.3e38, cpu));

  Ufunc zz = engine.ufunc("dt_zz");
  const auto z = random_complex<float>(16, -1, 1);
  CHECK_NOTHROW(zz(z, std::complex<double>(0.1, 1e30), cpu));
  CHECK_THROWS_WITH(zz(z, std::complex<double>(0.1, 1e39), cpu),
                    Catch::Matchers::Contains("cannot be represented as complex64"));
  CHECK_THROWS_WITH(zz(z, 1e39, cpu), Catch::Matchers::Contains("cannot be represented as complex64"));
  CHECK_NOTHROW(zz(z, half(1.5f), cpu));
  // Arrays are never narrowed: complex128 has no loop in a complex64-only ufunc, bfloat16 none
  // in a float16-only one, and a complex array none in a real loop.
  CHECK_THROWS_WITH(engine.ufunc("dt_mixed")(x, random_complex<double>(16, -1, 1), cpu),
                    Catch::Matchers::Contains("has no loop for inputs (float16 array, complex128 array)"));
  CHECK_THROWS_WITH(engine.ufunc("dt_mixed")(random_bf16(16, -1, 1), random_complex<float>(16, -1, 1), cpu),
                    Catch::Matchers::Contains("has no loop for inputs (bfloat16 array, complex64 array)"));
  CHECK_THROWS_WITH(engine.ufunc("dt_twice")(z, cpu), Catch::Matchers::Contains("has no loop"));
}

TEST_CASE("new dtypes travel through Array: vectors, describe, DLPack", "[dtype][array]") {
  const std::vector<half> h = random_halves(37, -100, 100);
  const Array a = from_vector(h);
  CHECK(a.dtype() == DType::float16);
  CHECK(a.describe().find("float16") != std::string::npos);
  const std::vector<half> back = a.to_vector<half>();
  for (std::size_t i = 0; i < h.size(); ++i) CHECK(back[i].bits == h[i].bits);
  const auto z = random_complex<double>(9, -1, 1);
  CHECK(from_vector(z).to_vector<std::complex<double>>() == z);
  CHECK_THROWS_AS(from_vector(z).to_vector<std::complex<float>>(), ArgumentError);
  // A complex128 needs its parts' alignment (8 bytes), as std::complex<double> and NumPy do.
  alignas(16) double raw[6] = {1, 2, 3, 4, 5, 6};
  const Array shifted = Array::wrap(raw + 1, DType::complex128, {2});
  CHECK(shifted.to_vector<std::complex<double>>()[1] == std::complex<double>(4, 5));
  CHECK_THROWS_AS(Array::wrap(reinterpret_cast<char*>(raw) + 4, DType::complex128, {1}), ArgumentError);
  CHECK(to_dlpack_dtype(DType::float16).code == kDLFloat);
  CHECK(to_dlpack_dtype(DType::float16).bits == 16);
  CHECK(to_dlpack_dtype(DType::bfloat16).code == kDLBfloat);
  CHECK(to_dlpack_dtype(DType::complex64).code == kDLComplex);
  CHECK(to_dlpack_dtype(DType::complex128).bits == 128);
  for (DType t : {DType::float16, DType::bfloat16, DType::complex64, DType::complex128}) {
    CHECK(from_dlpack_dtype(to_dlpack_dtype(t)) == t);
  }
}

TEST_CASE("the host half and bfloat16 conversions round to nearest even", "[dtype][types]") {
  for (int i = 0; i < 200000; ++i) {
    std::uint32_t bits = static_cast<std::uint32_t>(rng()());
    float f;
    std::memcpy(&f, &bits, 4);
    if (std::isnan(f)) {
      CHECK(half(f).bits == 0x7fff);
      CHECK(bfloat16(f).bits == 0x7fff);
      continue;
    }
    CAPTURE(f);
    REQUIRE(same_value(static_cast<float>(half(f)), round_half(f)));
    REQUIRE(same_value(static_cast<float>(bfloat16(f)), round_bf16(f)));
    const double d = std::ldexp(static_cast<double>(f), std::uniform_int_distribution<int>(-20, 20)(rng())) *
                     (1 + random_in(-1e-9, 1e-9));
    REQUIRE(same_value(detail::half_bits_to_float(detail::double_to_half_bits(d)), round_half(d)));
    REQUIRE(same_value(detail::bfloat16_bits_to_float(detail::double_to_bfloat16_bits(d)), round_bf16(d)));
  }
}

TEST_CASE("float16, bfloat16, complex64, complex128 on the cpu target", "[dtype][cpu]") {
  run_dtype_checks(Target::cpu, false);
}

TEST_CASE("float16, bfloat16, complex64, complex128 on the parallel target", "[dtype][parallel]") {
  run_dtype_checks(Target::parallel, false);
}

TEST_CASE("a definition file with float16 and complex64 signatures loads and runs", "[dtype][definitions][cpu]") {
  jitvec_test::TempDir dir;
  const auto file = dir.path() / "dtypes.toml";
  std::ofstream(file) << R"toml([ufuncs.def_zz]
signatures = ["f2(f2, f2)", "c8(c8, c8)"]  # definition order: float16 arrays take f2
source = "template <class Z> Z def_zz(Z z, Z c) { return z * z + c; }"
)toml";
  EngineOptions options;
  options.cache.dir = dir.path() / "cache";
  options.cache.read_only_dirs = std::vector<std::filesystem::path>{};
  Engine engine(options);
  const std::vector<Ufunc> loaded = engine.load_definitions(file);
  REQUIRE(loaded.size() == 1);
  CHECK(loaded[0].signatures()[0].to_string() == "float16(float16, float16)");
  CHECK(loaded[0].signatures()[1].to_string() == "complex64(complex64, complex64)");
  const auto z = random_complex<float>(1000, -2, 2);
  const auto got = loaded[0](z, std::complex<float>(1, -1), jitvec::target(Target::cpu)).to_vector<std::complex<float>>();
  for (std::size_t i = 0; i < z.size(); ++i) {
    const std::complex<double> zi(z[i]), want = zi * zi + std::complex<double>(1, -1);
    CHECK(std::abs(std::complex<double>(got[i]) - want) <= 4 * std::numeric_limits<float>::epsilon() * (std::norm(zi) + 2));
  }
  const std::vector<half> h = random_halves(1000, -3, 3);
  const auto hh = loaded[0](h, h, jitvec::target(Target::cpu)).to_vector<half>();
  for (std::size_t i = 0; i < h.size(); ++i) {
    const double x = value_of(h[i]);
    CHECK(same_value(value_of(hh[i]), round_half(round_half(x * x) + x)));
  }
}

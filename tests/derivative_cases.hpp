// tests/derivative_cases.hpp: the derivative ufuncs' checks, run on every target
// (tests/unit/test_derivatives.cpp on cpu and parallel, tests/gpu/test_gpu_derivatives.cpp on
// cuda).
//
// derivative_engine() has the samples loaded (gaussian_pdf, zero_suppress, polar_distance) and
// the test ufuncs defined here: the "zoo" of every math function jitvec::dual has (one case per
// `k`, each in an accurate float64 spelling and a single-precision float32 one: `exp(x)` and
// `expf(x)` or `__expf(x)`), a power with an integer exponent input, and a ufunc calling a
// template helper. Each check calls a derivative on fresh random inputs with its out= buffers
// poisoned (NaN), so an element a loop never writes fails the comparison, and compares with
//   - central differences of the ordinary ufunc in float64 (step 1e-6 relative), or
//   - closed forms (gaussian_pdf's three partial derivatives, zero_suppress's 0 or 1), or
//   - for the float32 spellings, the float64 derivative of the accurate spelling.
#pragma once

#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "catch.hpp"
#include "support.hpp"

namespace jitvec_test {

/// One math case: its accurate spelling (compiled for float64, T = jitvec::dual<double>) and its
/// single-precision one (float32), each a statement list ending in a return; x is in [lo, hi].
struct ZooCase {
  const char* accurate;
  const char* single;
};

inline const std::vector<ZooCase>& zoo_cases() {
  static const std::vector<ZooCase> cases = {
      {"return exp(x);", "return expf(x);"},
      {"return exp2(x);", "return exp2f(x);"},
      {"return exp10(x);", "return exp10f(x);"},
      {"return expm1(x);", "return expm1f(x);"},
      {"return log(x);", "return logf(x);"},
      {"return log2(x);", "return log2f(x);"},
      {"return log10(x);", "return log10f(x);"},
      {"return log1p(x);", "return log1pf(x);"},
      {"return sqrt(x);", "return sqrtf(x);"},
      {"return rsqrt(x);", "return rsqrtf(x);"},
      {"return cbrt(x);", "return cbrtf(x);"},
      {"return rcbrt(x);", "return rcbrtf(x);"},
      {"return sin(x);", "return sinf(x);"},
      {"return cos(x);", "return cosf(x);"},
      {"return tan(x);", "return tanf(x);"},
      {"return sinpi(x);", "return sinpif(x);"},
      {"return cospi(x);", "return cospif(x);"},
      {"T s, c; sincos(x, &s, &c); return s + T(2) * c;", "T s, c; sincosf(x, &s, &c); return s + T(2) * c;"},
      {"T s, c; sincospi(x, &s, &c); return s - T(3) * c;", "T s, c; sincospif(x, &s, &c); return s - T(3) * c;"},
      {"return asin(x);", "return asinf(x);"},
      {"return acos(x);", "return acosf(x);"},
      {"return atan(x);", "return atanf(x);"},
      {"return atan2(x, T(0.3));", "return atan2f(x, 0.3f);"},
      {"return atan2(T(0.3), x);", "return atan2f(0.3f, x);"},
      {"return sinh(x);", "return sinhf(x);"},
      {"return cosh(x);", "return coshf(x);"},
      {"return tanh(x);", "return tanhf(x);"},
      {"return asinh(x);", "return asinhf(x);"},
      {"return acosh(x + T(1));", "return acoshf(x + 1.0f);"},
      {"return atanh(x);", "return atanhf(x);"},
      {"return erf(x);", "return erff(x);"},
      {"return erfc(x);", "return erfcf(x);"},
      {"return erfinv(x);", "return erfinvf(x);"},
      {"return erfcinv(x);", "return erfcinvf(x);"},
      {"return normcdf(x);", "return normcdff(x);"},
      {"return normcdfinv(x);", "return normcdfinvf(x);"},
      {"return pow(x, T(2.5));", "return powf(x, 2.5f);"},
      {"return pow(T(2.5), x);", "return powf(2.5f, x);"},
      {"return pow(x, x);", "return powf(x, x);"},
      {"return pow(x, 3);", "return pow(x, 3);"},
      {"return hypot(x, T(0.7));", "return hypotf(x, 0.7f);"},
      {"return fmod(x, T(2));", "return fmodf(x, 2.0f);"},
      {"return fdim(x, T(0.05));", "return fdimf(x, 0.05f);"},
      {"return copysign(x, T(-1));", "return copysignf(x, -1.0f);"},
      {"return fma(x, x, T(1));", "return fmaf(x, x, 1.0f);"},
      {"return fabs(T(-2) * x);", "return fabsf(-2.0f * x);"},
      {"return abs(-x);", "return fabsf(-x);"},
      {"return fmin(x, T(2)) + fmax(x, T(-1));", "return fminf(x, 2.0f) + fmaxf(x, -1.0f);"},
      {"return min(x, T(2)) - max(T(-1), x * x);", "return min(x, 2.0f) - max(-1.0f, x * x);"},
      {"return x + floor(x) + ceil(x) + trunc(x);", "return x + floorf(x) + ceilf(x) + truncf(x);"},
      {"return x + round(x - T(0.5)) + rint(x - T(0.5)) + nearbyint(x - T(0.5));",
       "return x + roundf(x - 0.5f) + rintf(x - 0.5f) + nearbyintf(x - 0.5f);"},
      {"return isnan(x) || isinf(x) || !isfinite(x) || signbit(x) ? T(0) : x * T(3);",
       "return isnan(x) || isinf(x) || !isfinite(x) || signbit(x) ? T(0) : x * T(3);"},
      {"T r = x; r += T(2) * x; r -= x / T(3); r *= x; r /= T(1) + x; return -r + +x;",
       "T r = x; r += 2.0f * x; r -= x / 3; r *= x; r /= 1 + x; return -r + +x;"},
      {"return (x > T(2) ? x : T(2) - x) * 2 + 1.5 - 3 / (x + 1);",
       "return (x > 2 ? x : 2 - x) * 2 + 1.5 - 3 / (x + 1);"},
      {"return x == T(0.25) || x != x || x <= T(-1) || T(5) < x || x >= 5 ? T(0) : x / T(0.7);",
       "return __fdividef(x, 0.7f);"},
      {"return T(0.7) / x;", "return __fdividef(0.7f, x);"},
      {"return exp(x);", "return __expf(x);"},
      {"return exp10(x);", "return __exp10f(x);"},
      {"return log(x);", "return __logf(x);"},
      {"return log2(x);", "return __log2f(x);"},
      {"return log10(x);", "return __log10f(x);"},
      {"return sin(x);", "return __sinf(x);"},
      {"return cos(x);", "return __cosf(x);"},
      {"return tan(x);", "return __tanf(x);"},
      {"T s, c; sincos(x, &s, &c); return s * c;", "T s, c; __sincosf(x, &s, &c); return s * c;"},
      {"return pow(x, T(2.5)) + pow(T(2.5), x);", "return __powf(x, 2.5f) + __powf(2.5f, x);"},
      {"return x * T(0.9);", "return __saturatef(x * 0.9f);"},
      {"return sqrt(x);", "return __fsqrt_rn(x);"},
      {"return T(1) / x;", "return __frcp_rn(x);"},
      {"return __dadd_rn(x, x * x);", "return __fadd_rn(x, x * x);"},
      {"return __dsub_rn(x, x * x);", "return __fsub_rn(x, x * x);"},
      {"return __dmul_rn(x, x);", "return __fmul_rn(x, x);"},
      {"return __ddiv_rn(x, T(1) + x);", "return __fdiv_rn(x, 1.0f + x);"},
      {"return __fma_rn(x, x, T(1));", "return __fmaf_rn(x, x, 1.0f);"},
  };
  return cases;
}

/// `template <typename T> T name(T x, int k) { switch (k) { case 0: ... } }` over one column.
inline std::string zoo_source(const std::string& name, bool accurate) {
  std::string body;
  for (std::size_t k = 0; k < zoo_cases().size(); ++k) {
    body += fmt::format("    case {}: {{ {} }}\n", k, accurate ? zoo_cases()[k].accurate : zoo_cases()[k].single);
  }
  return fmt::format("template <typename T> __device__ T {}(T x, int k) {{\n  switch (k) {{\n{}  }}\n  return x;\n}}\n",
                     name, body);
}

inline jitvec::Engine& derivative_engine() {
  static TempDir cache_dir;
  static jitvec::Engine engine([] {
    jitvec::EngineOptions options;
    options.cache.dir = cache_dir.path();
    options.cache.read_only_dirs = std::vector<std::filesystem::path>{};
    options.threads = 3;
    return options;
  }());
  static const bool defined = [] {
    const std::filesystem::path samples = std::filesystem::path(JITVEC_SOURCE_DIR) / "samples";
    for (const char* file : {"gaussian_pdf.toml", "zero_suppress.toml", "polar_distance.toml"}) {
      engine.load_definitions(samples / file);
    }
    engine.vectorize("zoo64", {"float64(float64, int32)"}, zoo_source("zoo64", true));
    engine.vectorize("zoo32", {"float32(float32, int32)"}, zoo_source("zoo32", false));
    engine.vectorize("int_power", {"float32(float32, int32)", "float64(float64, int32)"},
                     "template <typename T> T int_power(T x, int n) {\n"
                     "  T r = T(1);\n  for (int k = 0; k < n; ++k) r *= x;\n  return r;\n}\n");
    engine.define_device_function("deriv_square", "template <typename T> __device__ T deriv_square(T v) { return v * v; }");
    engine.vectorize("square_sum", {"float64(float64, float64)"},
                     "template <typename T> T square_sum(T a, T b) { return deriv_square(a) + T(3) * deriv_square(b); }");
    return true;
  }();
  (void)defined;
  return engine;
}

inline double quiet_nan() { return std::numeric_limits<double>::quiet_NaN(); }

/// Whether `got` is `want` within `rel` (relative) or `abs` (absolute); NaN never is.
inline bool close_to(double got, double want, double rel, double abs) {
  return std::fabs(got - want) <= rel * std::fabs(want) + abs;
}

/// Random values in [lo, hi].
inline std::vector<double> uniform(std::size_t n, double lo, double hi) {
  std::vector<double> v(n);
  for (double& e : v) e = std::uniform_real_distribution<double>(lo, hi)(rng());
  return v;
}

/// `ufunc` called into a poisoned out= buffer of `T`.
template <class T, class... Args>
std::vector<T> call_into_poisoned(const jitvec::Ufunc& ufunc, std::size_t n, Args&&... args) {
  std::vector<T> out(n, static_cast<T>(quiet_nan()));
  ufunc(std::forward<Args>(args)..., jitvec::out(jitvec::from_vector(out)));
  return out;
}

/// gaussian_pdf's partial derivatives (d/dx, d/dmean, d/dsigma) against their closed forms in
/// float64 and float32, and d/dx against central differences of gaussian_pdf in float64;
/// value_and_derivative's value output is gaussian_pdf's, bit for bit.
inline void check_gaussian_pdf(jitvec::Target target) {
  using jitvec::Ufunc;
  jitvec::Engine& engine = derivative_engine();
  const Ufunc pdf = engine.ufunc("gaussian_pdf");
  const Ufunc d[3] = {engine.derivative("gaussian_pdf", "x"), engine.derivative("gaussian_pdf", 1),
                      engine.derivative("gaussian_pdf", "sigma")};
  const std::size_t n = 4099;  // not a multiple of any vector width
  const std::vector<double> x = uniform(n, -4, 4), mean = uniform(n, -1, 1), sigma = uniform(n, 0.3, 2.5);
  std::vector<double> want[3];
  for (std::size_t i = 0; i < n; ++i) {
    const double z = (x[i] - mean[i]) / sigma[i];
    const double p = std::exp(-0.5 * z * z) / (sigma[i] * 2.5066282746310002);
    want[0].push_back(-z / sigma[i] * p);
    want[1].push_back(z / sigma[i] * p);
    want[2].push_back((z * z - 1.0) / sigma[i] * p);
  }
  std::vector<float> xf(x.begin(), x.end()), meanf(mean.begin(), mean.end()), sigmaf(sigma.begin(), sigma.end());
  for (int k = 0; k < 3; ++k) {
    INFO("d gaussian_pdf / d input " << k << " on " << jitvec::target_name(target));
    const std::vector<double> got = call_into_poisoned<double>(d[k], n, x, mean, sigma, jitvec::target(target));
    const std::vector<float> got32 = call_into_poisoned<float>(d[k], n, xf, meanf, sigmaf, jitvec::target(target));
    std::size_t bad = 0, bad32 = 0;
    for (std::size_t i = 0; i < n; ++i) {
      if (!close_to(got[i], want[k][i], 1e-12, 1e-15)) ++bad;
      // float32 inputs are the float64 ones rounded: the closed form at the rounded inputs.
      const double z = (double(xf[i]) - meanf[i]) / sigmaf[i];
      const double p = std::exp(-0.5 * z * z) / (sigmaf[i] * 2.5066282746310002);
      const double w = k == 0 ? -z / sigmaf[i] * p : k == 1 ? z / sigmaf[i] * p : (z * z - 1.0) / sigmaf[i] * p;
      if (!close_to(got32[i], w, 2e-5, 1e-6)) ++bad32;
    }
    CHECK(bad == 0);
    CHECK(bad32 == 0);
  }
  // d/dx against central differences of the ufunc itself, in float64.
  std::vector<double> up(n), down(n);
  const double h = 1e-6;
  for (std::size_t i = 0; i < n; ++i) {
    up[i] = x[i] + h;
    down[i] = x[i] - h;
  }
  const std::vector<double> f_up = pdf(up, mean, sigma, jitvec::target(target)).to_vector<double>();
  const std::vector<double> f_down = pdf(down, mean, sigma, jitvec::target(target)).to_vector<double>();
  const std::vector<double> got = call_into_poisoned<double>(d[0], n, x, mean, sigma, jitvec::target(target));
  std::size_t bad = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (!close_to(got[i], (f_up[i] - f_down[i]) / ((x[i] + h) - (x[i] - h)), 1e-6, 1e-9)) ++bad;
  }
  CHECK(bad == 0);
  // value_and_derivative: two outputs; the value is the ordinary loop's, bit for bit.
  const Ufunc vd = engine.value_and_derivative("gaussian_pdf", "x");
  CHECK(vd.nout() == 2);
  std::vector<double> value(n, quiet_nan()), slope(n, quiet_nan());
  vd.outputs(x, mean, sigma, jitvec::out(jitvec::from_vector(value)), jitvec::out(jitvec::from_vector(slope)),
             jitvec::target(target));
  const std::vector<double> plain = pdf(x, mean, sigma, jitvec::target(target)).to_vector<double>();
  std::size_t value_differs = 0, slope_differs = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (value[i] != plain[i]) ++value_differs;
    if (slope[i] != got[i]) ++slope_differs;
  }
  CHECK(value_differs == 0);
  CHECK(slope_differs == 0);
}

/// zero_suppress's derivative with respect to its value: 1 where it passes, 0 where it zeroes
/// (its int16 loop has no derivative, its float32 loop has); and with respect to the threshold, 0.
inline void check_zero_suppress(jitvec::Target target) {
  jitvec::Engine& engine = derivative_engine();
  const jitvec::Ufunc d = engine.derivative("zero_suppress", "value");
  REQUIRE(d.signatures().size() == 1);
  CHECK(d.signatures()[0].to_string() == "float32(float32, float32)");
  const std::size_t n = 1000;
  const std::vector<double> v64 = uniform(n, -2, 2), t64 = uniform(n, 0, 1);
  std::vector<float> v(v64.begin(), v64.end()), t(t64.begin(), t64.end());
  const std::vector<float> got = call_into_poisoned<float>(d, n, v, t, jitvec::target(target));
  const std::vector<float> by_threshold =
      call_into_poisoned<float>(engine.derivative("zero_suppress", 1), n, v, t, jitvec::target(target));
  std::size_t bad = 0, passed = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const bool passes = !(v[i] > -t[i] && v[i] < t[i]);
    passed += passes;
    if (got[i] != (passes ? 1.0f : 0.0f) || by_threshold[i] != 0.0f) ++bad;
  }
  CHECK(bad == 0);
  CHECK(passed > n / 4);  // both branches are taken
  CHECK(passed < n);
}

/// Every zoo case: the float64 derivative against central differences of zoo64, the float32
/// one (the f-suffixed and intrinsic spellings) against the float64 one.
inline void check_zoo(jitvec::Target target) {
  jitvec::Engine& engine = derivative_engine();
  const jitvec::Ufunc f64 = engine.ufunc("zoo64");
  const jitvec::Ufunc d64 = engine.derivative("zoo64", "x");
  const jitvec::Ufunc d32 = engine.derivative("zoo32", 0);
  const std::size_t n = 64;
  const double h = 1e-6;
  for (std::size_t k = 0; k < zoo_cases().size(); ++k) {
    INFO("zoo case " << k << ": " << zoo_cases()[k].accurate << " | " << zoo_cases()[k].single << " on "
                     << jitvec::target_name(target));
    const std::vector<double> x = uniform(n, 0.15, 0.85);
    std::vector<double> up(n), down(n);
    for (std::size_t i = 0; i < n; ++i) {
      up[i] = x[i] + h;
      down[i] = x[i] - h;
    }
    const int kk = static_cast<int>(k);
    const std::vector<double> f_up = f64(up, kk, jitvec::target(target)).to_vector<double>();
    const std::vector<double> f_down = f64(down, kk, jitvec::target(target)).to_vector<double>();
    const std::vector<double> got = call_into_poisoned<double>(d64, n, x, kk, jitvec::target(target));
    std::vector<float> xf(x.begin(), x.end());
    const std::vector<double> at_xf =
        call_into_poisoned<double>(d64, n, std::vector<double>(xf.begin(), xf.end()), kk, jitvec::target(target));
    const std::vector<float> got32 = call_into_poisoned<float>(d32, n, xf, kk, jitvec::target(target));
    std::size_t bad = 0, bad32 = 0;
    double worst = 0, worst32 = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const double fd = (f_up[i] - f_down[i]) / (up[i] - down[i]);
      if (!close_to(got[i], fd, 1e-6, 1e-8)) {
        ++bad;
        worst = got[i] - fd;
      }
      if (!close_to(got32[i], at_xf[i], 2e-4, 2e-5)) {
        ++bad32;
        worst32 = got32[i] - at_xf[i];
      }
    }
    INFO("worst float64 difference " << worst << ", float32 " << worst32);
    CHECK(bad == 0);
    CHECK(bad32 == 0);
  }
}

/// An integer input passes through (int_power(x, n) = x^n: d/dx = n x^(n-1)); a template helper
/// takes the dual (square_sum(a, b) = a^2 + 3 b^2: d/db = 6 b).
inline void check_pass_through(jitvec::Target target) {
  jitvec::Engine& engine = derivative_engine();
  const std::size_t n = 300;
  const std::vector<double> x = uniform(n, -2, 2), b = uniform(n, -2, 2);
  for (int power : {0, 1, 2, 5}) {
    const std::vector<double> got =
        call_into_poisoned<double>(engine.derivative("int_power", "x"), n, x, power, jitvec::target(target));
    std::size_t bad = 0;
    for (std::size_t i = 0; i < n; ++i) {
      if (!close_to(got[i], power == 0 ? 0.0 : power * std::pow(x[i], power - 1), 1e-13, 1e-14)) ++bad;
    }
    CHECK(bad == 0);
  }
  const std::vector<double> got =
      call_into_poisoned<double>(engine.derivative("square_sum", "b"), n, x, b, jitvec::target(target));
  std::size_t bad = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (got[i] != 6.0 * b[i]) ++bad;
  }
  CHECK(bad == 0);
}

}  // namespace jitvec_test

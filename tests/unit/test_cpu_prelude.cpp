// tests/unit/test_cpu_prelude.cpp: every function the host prelude provides compiles, links and
// gives CUDA's answer.
//
// One generated source calls each function once (the probes below) and returns the values; the
// test compares them with values computed here independently. The list of names to cover is not
// kept by hand: it is read from the prelude text itself (its `inline` functions at global scope,
// its `using std::` declarations and its `#define name jitvec_host::` mappings), so a function
// added to the prelude without a probe fails the test. The same source carries scalar entry
// points for the special functions the prelude implements itself (erfinv, erfcinv, normcdf,
// normcdfinv, sinpi, cospi), which are checked over sweeps against long double references.
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <limits>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "catch.hpp"
#include "cpu/host_compiler.hpp"
#include "cpu/host_module.hpp"
#include "kernels/host_prelude.hpp"
#include "jitvec/errors.hpp"

namespace {

using jitvec::cpu::compile_shared_object;
using jitvec::cpu::host_compiler;
using jitvec::kernels::host_prelude;
using jitvec::cpu::HostModule;

/// One call in the coverage source: `expression` (CUDA code, converted to double) must give
/// `expected` within `tolerance`, relative (absolute where expected is 0).
struct Probe {
  std::string expression;
  double expected;
  double tolerance;
};

constexpr double kFloatTolerance = 3e-7;    // about 2.5 float ulps
constexpr double kDoubleTolerance = 5e-16;  // about 2 double ulps
constexpr double kExact = 0.0;

const double kPi = 3.14159265358979323846;

std::vector<Probe> probes() {
  const float f_third = 1.0f / 3.0f;
  return {
      // ---- the C library's float functions, visible unqualified as in CUDA ----
      {"expf(0.5f)", std::exp(0.5), kFloatTolerance},
      {"exp2f(3.5f)", std::exp2(3.5), kFloatTolerance},
      {"expm1f(1e-3f)", std::expm1(double(1e-3f)), kFloatTolerance},
      {"logf(3.0f)", std::log(3.0), kFloatTolerance},
      {"log2f(10.0f)", std::log2(10.0), kFloatTolerance},
      {"log10f(2.0f)", std::log10(2.0), kFloatTolerance},
      {"log1pf(1e-3f)", std::log1p(double(1e-3f)), kFloatTolerance},
      {"powf(2.0f, 0.75f)", std::pow(2.0, 0.75), kFloatTolerance},
      {"sqrtf(2.0f)", std::sqrt(2.0), kFloatTolerance},
      {"cbrtf(10.0f)", std::cbrt(10.0), kFloatTolerance},
      {"sinf(0.5f)", std::sin(0.5), kFloatTolerance},
      {"cosf(0.5f)", std::cos(0.5), kFloatTolerance},
      {"tanf(0.5f)", std::tan(0.5), kFloatTolerance},
      {"asinf(0.5f)", std::asin(0.5), kFloatTolerance},
      {"acosf(0.5f)", std::acos(0.5), kFloatTolerance},
      {"atanf(0.5f)", std::atan(0.5), kFloatTolerance},
      {"atan2f(1.0f, 2.0f)", std::atan2(1.0, 2.0), kFloatTolerance},
      {"sinhf(0.5f)", std::sinh(0.5), kFloatTolerance},
      {"coshf(0.5f)", std::cosh(0.5), kFloatTolerance},
      {"tanhf(0.5f)", std::tanh(0.5), kFloatTolerance},
      {"asinhf(0.5f)", std::asinh(0.5), kFloatTolerance},
      {"acoshf(1.5f)", std::acosh(1.5), kFloatTolerance},
      {"atanhf(0.5f)", std::atanh(0.5), kFloatTolerance},
      {"erff(0.5f)", std::erf(0.5), kFloatTolerance},
      {"erfcf(0.5f)", std::erfc(0.5), kFloatTolerance},
      {"lgammaf(4.5f)", std::lgamma(4.5), kFloatTolerance},
      {"tgammaf(4.5f)", std::tgamma(4.5), kFloatTolerance},
      {"fabsf(-1.25f)", 1.25, kExact},
      {"fminf(1.0f, nanf(\"\"))", 1.0, kExact},
      {"fmaxf(1.0f, 2.0f)", 2.0, kExact},
      {"fmodf(7.5f, 2.0f)", 1.5, kExact},
      {"remainderf(7.5f, 2.0f)", -0.5, kExact},
      {"copysignf(2.0f, -0.0f)", -2.0, kExact},
      {"floorf(-1.5f)", -2.0, kExact},
      {"ceilf(-1.5f)", -1.0, kExact},
      {"truncf(-1.5f)", -1.0, kExact},
      {"roundf(2.5f)", 3.0, kExact},
      {"rintf(2.5f)", 2.0, kExact},
      {"nearbyintf(3.5f)", 4.0, kExact},
      {"fmaf(2.0f, 3.0f, 1.0f)", 7.0, kExact},
      {"hypotf(3.0f, 4.0f)", 5.0, kExact},
      {"ldexpf(0.75f, 4)", 12.0, kExact},
      {"[] { int e; float m = frexpf(12.0f, &e); return m + 10 * e; }()", 40.75, kExact},
      {"fdimf(5.0f, 3.0f)", 2.0, kExact},
      // ---- the standard overloads: float arguments take the float overload, as in CUDA ----
      {"abs(-3)", 3.0, kExact},
      {"abs(-2.5f) + abs(-5LL)", 7.5, kExact},
      {"fabs(-1.5f)", 1.5, kExact},
      {"fmod(7.5f, 2.0f)", 1.5, kExact},
      {"remainder(7.5f, 2.0f)", -0.5, kExact},
      {"[] { int q; float r = remquo(7.5f, 2.0f, &q); return r + 10 * q; }()", 39.5, kExact},
      {"fma(2.0f, 3.0f, 1.0f)", 7.0, kExact},
      {"fmax(1.0f, 2.0f)", 2.0, kExact},
      {"fmin(1.0f, 2.0f)", 1.0, kExact},
      {"fdim(5.0f, 3.0f)", 2.0, kExact},
      {"exp(1.0f)", std::exp(1.0), kFloatTolerance},
      {"exp2(3.0f)", 8.0, kExact},
      {"expm1(1e-3f)", std::expm1(double(1e-3f)), kFloatTolerance},
      {"log(2.0f)", std::log(2.0), kFloatTolerance},
      {"log10(1000.0f)", 3.0, kFloatTolerance},
      {"log2(8.0f)", 3.0, kExact},
      {"log1p(1e-3f)", std::log1p(double(1e-3f)), kFloatTolerance},
      {"logb(10.0f)", 3.0, kExact},
      {"ilogb(10.0f)", 3.0, kExact},
      {"pow(2.0f, 0.5f)", std::sqrt(2.0), kFloatTolerance},
      {"sqrt(2.0f)", std::sqrt(2.0), kFloatTolerance},
      {"cbrt(27.0f)", 3.0, kExact},
      {"hypot(3.0f, 4.0f)", 5.0, kExact},
      {"sin(0.5f)", std::sin(0.5), kFloatTolerance},
      {"cos(0.5f)", std::cos(0.5), kFloatTolerance},
      {"tan(0.5f)", std::tan(0.5), kFloatTolerance},
      {"asin(0.5f)", std::asin(0.5), kFloatTolerance},
      {"acos(0.5f)", std::acos(0.5), kFloatTolerance},
      {"atan(0.5f)", std::atan(0.5), kFloatTolerance},
      {"atan2(1.0f, 2.0f)", std::atan2(1.0, 2.0), kFloatTolerance},
      {"sinh(0.5f)", std::sinh(0.5), kFloatTolerance},
      {"cosh(0.5f)", std::cosh(0.5), kFloatTolerance},
      {"tanh(0.5f)", std::tanh(0.5), kFloatTolerance},
      {"asinh(0.5f)", std::asinh(0.5), kFloatTolerance},
      {"acosh(1.5f)", std::acosh(1.5), kFloatTolerance},
      {"atanh(0.5f)", std::atanh(0.5), kFloatTolerance},
      {"erf(0.5f)", std::erf(0.5), kFloatTolerance},
      {"erfc(0.5f)", std::erfc(0.5), kFloatTolerance},
      {"tgamma(4.5f)", std::tgamma(4.5), kFloatTolerance},
      {"lgamma(4.5f)", std::lgamma(4.5), kFloatTolerance},
      {"ceil(1.5f)", 2.0, kExact},
      {"floor(1.5f)", 1.0, kExact},
      {"trunc(-1.5f)", -1.0, kExact},
      {"round(2.5f)", 3.0, kExact},
      {"lround(2.5f)", 3.0, kExact},
      {"llround(-2.5f)", -3.0, kExact},
      {"nearbyint(2.5f)", 2.0, kExact},
      {"rint(3.5f)", 4.0, kExact},
      {"lrint(2.5f)", 2.0, kExact},
      {"llrint(-3.5f)", -4.0, kExact},
      {"[] { int e; float m = frexp(12.0f, &e); return m + 10 * e; }()", 40.75, kExact},
      {"ldexp(0.75f, 4)", 12.0, kExact},
      {"[] { float i; float f = modf(3.25f, &i); return f + 10 * i; }()", 30.25, kExact},
      {"scalbn(1.5f, 3)", 12.0, kExact},
      {"scalbln(1.5f, 3L)", 12.0, kExact},
      {"nextafter(1.0f, 2.0f)", 1.0 + std::ldexp(1.0, -23), kExact},
      {"copysign(2.0f, -1.0f)", -2.0, kExact},
      {"fpclassify(0.0f) == FP_ZERO", 1.0, kExact},
      {"isfinite(1.0f) + 2 * isfinite(std::numeric_limits<float>::infinity())", 1.0, kExact},
      {"isinf(std::numeric_limits<double>::infinity())", 1.0, kExact},
      {"isnan(nanf(\"\")) + 2 * isnan(1.0)", 1.0, kExact},
      {"isnormal(1e-40f) + 2 * isnormal(1.0f)", 2.0, kExact},
      {"signbit(-0.0f) + 2 * signbit(0.0)", 1.0, kExact},
      // ---- CUDA functions the prelude implements ----
      {"exp10f(2.0f)", 100.0, kFloatTolerance},
      {"exp10(-2.0)", 0.01, kDoubleTolerance},
      {"[] { float s, c; sincosf(0.5f, &s, &c); return s + 10 * c; }()",
       std::sin(0.5) + 10 * std::cos(0.5), kFloatTolerance},
      {"[] { double s, c; sincos(0.5, &s, &c); return s + 10 * c; }()",
       std::sin(0.5) + 10 * std::cos(0.5), kDoubleTolerance},
      {"rsqrtf(4.0f)", 0.5, kExact},
      {"rsqrt(2.0)", 1 / std::sqrt(2.0), kDoubleTolerance},
      {"sinpif(0.25f)", std::sqrt(0.5), kFloatTolerance},
      {"sinpi(1.0 / 6.0)", 0.5, kDoubleTolerance},
      {"cospif(1.0f / 3.0f)", std::cos(kPi * double(f_third)), kFloatTolerance},
      {"cospi(0.25)", std::sqrt(0.5), kDoubleTolerance},
      {"rcbrtf(8.0f)", 0.5, kExact},
      {"rcbrt(27.0)", 1.0 / 3.0, kDoubleTolerance},
      {"[] { float s, c; sincospif(0.5f, &s, &c); return s + 10 * c; }()", 1.0, kExact},
      {"[] { double s, c; sincospi(1.0, &s, &c); return s + 10 * c; }()", -10.0, kExact},
      {"erfinvf(0.5f)", 0.47693627620446987, kFloatTolerance},
      {"erfinv(-0.5)", -0.47693627620446987, kDoubleTolerance},
      {"erfcinvf(0.5f)", 0.47693627620446987, kFloatTolerance},
      {"erfcinv(1.5)", -0.47693627620446987, kDoubleTolerance},
      {"normcdff(1.0f)", 0.8413447460685429, kFloatTolerance},
      {"normcdf(-1.0)", 0.15865525393145707, kDoubleTolerance},
      {"normcdfinvf(0.75f)", 0.6744897501960817, kFloatTolerance},
      {"normcdfinv(0.025)", -1.959963984540054, kDoubleTolerance},
      // ---- CUDA's min and max overloads ----
      {"min(3, -2)", -2.0, kExact},
      {"min(3u, 5u)", 3.0, kExact},
      {"min(-1, 1u)", 1.0, kExact},  // compared as unsigned, as in CUDA
      {"min(1u, -1)", 1.0, kExact},
      {"min(-1L, 2L)", -1.0, kExact},
      {"min(3UL, 5UL)", 3.0, kExact},
      {"min(-1L, 2UL)", 2.0, kExact},
      {"min(2UL, -1L)", 2.0, kExact},
      {"min(-1LL, 2LL)", -1.0, kExact},
      {"min(3ULL, 5ULL)", 3.0, kExact},
      {"min(-1LL, 2ULL)", 2.0, kExact},
      {"min(2ULL, -1LL)", 2.0, kExact},
      {"min(1.5f, 2.5f)", 1.5, kExact},
      {"min(1.5, 2.5)", 1.5, kExact},
      {"min(1.5f, 0.5)", 0.5, kExact},
      {"min(0.5, 1.5f)", 0.5, kExact},
      {"min(nanf(\"\"), 1.0f)", 1.0, kExact},  // fminf: a NaN gives the other argument
      {"umin(3u, 5u) + llmin(-1LL, 2LL) + ullmin(3ULL, 5ULL)", 5.0, kExact},
      {"max(3, -2)", 3.0, kExact},
      {"max(3u, 5u)", 5.0, kExact},
      {"max(-1, 1u)", 4294967295.0, kExact},
      {"max(1u, -1)", 4294967295.0, kExact},
      {"max(-1L, 2L)", 2.0, kExact},
      {"max(3UL, 5UL)", 5.0, kExact},
      {"max(-1L, 2UL) == ~0UL", 1.0, kExact},
      {"max(2UL, -1L) == ~0UL", 1.0, kExact},
      {"max(-1LL, 2LL)", 2.0, kExact},
      {"max(3ULL, 5ULL)", 5.0, kExact},
      {"max(-1LL, 2ULL) == ~0ULL", 1.0, kExact},
      {"max(2ULL, -1LL) == ~0ULL", 1.0, kExact},
      {"max(1.5f, 2.5f)", 2.5, kExact},
      {"max(1.5, 2.5)", 2.5, kExact},
      {"max(1.5f, 0.5)", 1.5, kExact},
      {"max(0.5, 1.5f)", 1.5, kExact},
      {"max(nanf(\"\"), 1.0f)", 1.0, kExact},
      {"umax(3u, 5u) + llmax(-1LL, 2LL) + ullmax(3ULL, 5ULL)", 12.0, kExact},
      // ---- floating-point intrinsics ----
      {"__expf(1.0f)", std::exp(1.0), kFloatTolerance},
      {"__exp10f(2.0f)", 100.0, kFloatTolerance},
      {"__logf(3.0f)", std::log(3.0), kFloatTolerance},
      {"__log2f(10.0f)", std::log2(10.0), kFloatTolerance},
      {"__log10f(2.0f)", std::log10(2.0), kFloatTolerance},
      {"__powf(2.0f, 0.75f)", std::pow(2.0, 0.75), kFloatTolerance},
      {"__sinf(0.5f)", std::sin(0.5), kFloatTolerance},
      {"__cosf(0.5f)", std::cos(0.5), kFloatTolerance},
      {"__tanf(0.5f)", std::tan(0.5), kFloatTolerance},
      {"[] { float s, c; __sincosf(0.5f, &s, &c); return s + 10 * c; }()",
       std::sin(0.5) + 10 * std::cos(0.5), kFloatTolerance},
      {"__fdividef(1.0f, 4.0f)", 0.25, kExact},
      {"__fadd_rn(0.1f, 0.2f)", double(0.1f + 0.2f), kExact},
      {"__fsub_rn(0.3f, 0.1f)", double(0.3f - 0.1f), kExact},
      // 0.1f * 10 rounds to exactly 1; a fused multiply-add would keep the product's error.
      {"__fmul_rn(0.1f, 10.0f) - 1.0f", 0.0, kExact},
      {"__fdiv_rn(1.0f, 3.0f)", double(1.0f / 3.0f), kExact},
      {"__fmaf_rn(0.1f, 10.0f, -1.0f)", double(std::fma(0.1f, 10.0f, -1.0f)), kExact},
      {"__fsqrt_rn(2.0f)", double(std::sqrt(2.0f)), kExact},
      {"__frcp_rn(3.0f)", double(1.0f / 3.0f), kExact},
      {"__saturatef(1.5f) + 2 * __saturatef(0.25f) + 4 * __saturatef(-0.5f) + "
       "8 * __saturatef(nanf(\"\"))",
       1.5, kExact},
      {"__dadd_rn(0.1, 0.2)", 0.1 + 0.2, kExact},
      {"__dsub_rn(0.3, 0.1)", 0.3 - 0.1, kExact},
      {"__dmul_rn(0.1, 3.0)", 0.1 * 3.0, kExact},
      {"__ddiv_rn(1.0, 3.0)", 1.0 / 3.0, kExact},
      {"__fma_rn(0.1, 10.0, -1.0)", std::fma(0.1, 10.0, -1.0), kExact},
      // ---- integer intrinsics ----
      {"__popc(0xF0F0u)", 8.0, kExact},
      {"__popcll(0xFFFFFFFFFFull)", 40.0, kExact},
      {"__clz(1) + 100 * __clz(0) + 10000 * __clz(-1)", 31.0 + 3200.0, kExact},
      {"__clzll(1LL) + 100 * __clzll(0LL)", 63.0 + 6400.0, kExact},
      {"__ffs(8) + 100 * __ffs(0) + 10000 * __ffs(INT_MIN)", 4.0 + 320000.0, kExact},
      {"__ffsll(1LL << 40)", 41.0, kExact},
      {"__brev(1u) == 0x80000000u && __brev(0x12345678u) == 0x1E6A2C48u", 1.0, kExact},
      {"__brevll(0x0123456789ABCDEFull) == 0xF7B3D591E6A2C480ull", 1.0, kExact},
      {"__mul24(0x01000003, 5) + 100 * __mul24(0x00FFFFFF, 2)", 15.0 - 200.0, kExact},
      {"__umul24(0x01000003u, 5u) == 15u && __umul24(0xFFFFFFu, 0xFFFFFFu) == 0xFE000001u", 1.0,
       kExact},
      {"__mulhi(0x40000000, 8) + 100 * __mulhi(-1, 1)", 2.0 - 100.0, kExact},
      {"__umulhi(0xFFFFFFFFu, 0xFFFFFFFFu)", 4294967294.0, kExact},
      {"__mul64hi(1LL << 62, 8LL) + 100 * __mul64hi(-1LL, 1LL)", 2.0 - 100.0, kExact},
      {"__umul64hi(~0ULL, ~0ULL) == ~1ULL", 1.0, kExact},
      {"__sad(1, 5, 10u)", 14.0, kExact},
      {"__sad(INT_MIN, INT_MAX, 0u)", 4294967295.0, kExact},
      {"__usad(3u, 10u, 1u)", 8.0, kExact},
      // ---- reinterpretation ----
      {"__float_as_int(1.0f)", double(0x3F800000), kExact},
      {"__int_as_float(0x40000000)", 2.0, kExact},
      {"__float_as_uint(-0.0f)", double(0x80000000u), kExact},
      {"__uint_as_float(0x3F000000u)", 0.5, kExact},
      {"__double_as_longlong(1.0) == 0x3FF0000000000000LL", 1.0, kExact},
      {"__longlong_as_double(0x4000000000000000LL)", 2.0, kExact},
  };
}

/// Compile-time checks in the coverage source: the overloads CUDA code relies on return the
/// types they return under CUDA.
const char* const kTypeChecks = R"checks(
static_assert(std::is_same<decltype(sqrt(1.0f)), float>::value, "sqrt(float) is float");
static_assert(std::is_same<decltype(sin(1.0f)), float>::value, "sin(float) is float");
static_assert(std::is_same<decltype(abs(1LL)), long long>::value, "abs(long long)");
static_assert(std::is_same<decltype(abs(1.0f)), float>::value, "abs(float)");
static_assert(std::is_same<decltype(min(1, 2)), int>::value, "min(int, int)");
static_assert(std::is_same<decltype(min(short(1), short(2))), int>::value, "min(short, short)");
static_assert(std::is_same<decltype(min(1, 2u)), unsigned int>::value, "min(int, unsigned)");
static_assert(std::is_same<decltype(max(1L, 2L)), long>::value, "max(long, long)");
static_assert(std::is_same<decltype(max(1.0f, 2.0)), double>::value, "max(float, double)");
static_assert(std::is_same<decltype(max(1.0f, 2.0f)), float>::value, "max(float, float)");
static_assert(std::is_same<decltype(rsqrtf(1)), float>::value, "rsqrtf(int) converts");
static_assert(std::is_same<decltype(__popc(1u)), int>::value, "__popc is int");
static_assert(std::is_same<decltype(__brevll(1ull)), unsigned long long>::value, "__brevll");
static_assert(std::is_same<int8_t, signed char>::value && sizeof(uint64_t) == 8, "int types");
)checks";

/// Scalar entry points for the sweeps.
const char* const kSweepEntryPoints = R"(
JITVEC_EXPORT double call_erfinv(double x) { return erfinv(x); }
JITVEC_EXPORT double call_erfcinv(double x) { return erfcinv(x); }
JITVEC_EXPORT float call_erfinvf(float x) { return erfinvf(x); }
JITVEC_EXPORT float call_erfcinvf(float x) { return erfcinvf(x); }
JITVEC_EXPORT double call_normcdf(double x) { return normcdf(x); }
JITVEC_EXPORT float call_normcdff(float x) { return normcdff(x); }
JITVEC_EXPORT double call_normcdfinv(double x) { return normcdfinv(x); }
JITVEC_EXPORT double call_sinpi(double x) { return sinpi(x); }
JITVEC_EXPORT double call_cospi(double x) { return cospi(x); }
JITVEC_EXPORT float call_sinpif(float x) { return sinpif(x); }
JITVEC_EXPORT float call_cospif(float x) { return cospif(x); }
)";

std::string coverage_source(const std::vector<Probe>& all) {
  std::ostringstream source;
  source << host_prelude() << "#include <climits>\n" << kTypeChecks;
  source << "JITVEC_EXPORT void probe_values(double* out) {\n";
  for (std::size_t i = 0; i < all.size(); ++i) {
    source << "  out[" << i << "] = static_cast<double>(" << all[i].expression << ");\n";
  }
  source << "}\n" << kSweepEntryPoints;
  return source.str();
}

/// The names the prelude provides, read from its text (see the layout rules in
/// src/kernels/host_prelude.cpp).
std::set<std::string> provided_names() {
  std::set<std::string> names;
  const std::string prelude(host_prelude());
  const std::regex using_std(R"(using std::(\w+);)");
  for (auto it = std::sregex_iterator(prelude.begin(), prelude.end(), using_std);
       it != std::sregex_iterator(); ++it) {
    names.insert((*it)[1]);
  }
  const std::regex global_function(R"(^inline [^(]*?(\w+)\()");
  const std::regex mapped_name(R"(^#define (\w+) jitvec_host::)");
  std::istringstream lines(prelude);
  for (std::string line; std::getline(lines, line);) {
    std::smatch match;
    if (std::regex_search(line, match, global_function) ||
        std::regex_search(line, match, mapped_name)) {
      names.insert(match[1]);
    }
  }
  return names;
}

const HostModule& coverage_module() {
  static const HostModule module = HostModule::load_bytes(
      compile_shared_object(coverage_source(probes()), "prelude_coverage", host_compiler()));
  return module;
}

template <class Function>
Function entry_point(const char* name) {
  return reinterpret_cast<Function>(coverage_module().symbol(name));
}

/// Distance from a to b in units of the last place of b (as a T).
template <class T>
double ulps(T a, long double b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b) ? 0 : HUGE_VAL;
  if (std::isinf(b) || b == 0) return a == b ? 0 : HUGE_VAL;
  const T rounded = static_cast<T>(b);
  const long double ulp = std::nextafter(std::fabs(rounded), std::numeric_limits<T>::infinity()) -
                          std::fabs(rounded);
  const long double smallest = std::numeric_limits<T>::denorm_min();
  return static_cast<double>(std::fabs(static_cast<long double>(a) - b) /
                             (ulp > 0 ? ulp : smallest));
}

/// x with erf(x) = y (|y| <= 1/2) or erfc(|x|) = 1 - |y|, by bisection in long double (by the
/// series for tiny |y|).
long double reference_inverse_erfc(long double z);
long double reference_inverse_erf(long double y) {
  if (y == 0 || std::fabs(y) == 1) return std::atanh(y);  // 0, or the infinity of y's sign
  if (std::fabs(y) < 1e-5L) {  // Maclaurin series: the next term is below 1e-20 relative
    const long double pi = 3.141592653589793238462643383279502884L;
    return std::sqrt(pi) / 2 * (y + pi / 12 * y * y * y + 7 * pi * pi / 480 * y * y * y * y * y);
  }
  if (std::fabs(y) > 0.5L) {
    return std::copysign(reference_inverse_erfc(1.0L - std::fabs(y)), y);
  }
  long double low = -0.5L, high = 0.5L;
  for (int i = 0; i < 200 && low < high; ++i) {
    const long double middle = (low + high) / 2;
    if (middle == low || middle == high) break;
    (std::erf(middle) < y ? low : high) = middle;
  }
  return (low + high) / 2;
}
long double reference_inverse_erfc(long double z) {
  if (z == 0) return HUGE_VALL;
  if (z > 1.0L) return -reference_inverse_erfc(2.0L - z);
  if (z >= 0.5L) return reference_inverse_erf(1.0L - z);
  long double low = 0.4L, high = 30.0L;  // erfc is decreasing
  for (int i = 0; i < 200; ++i) {
    const long double middle = (low + high) / 2;
    if (middle == low || middle == high) break;
    (std::erfc(middle) > z ? low : high) = middle;
  }
  return (low + high) / 2;
}

/// sin(pi x) (quarter_turns 0) or cos(pi x) (quarter_turns 1) in long double: x = n/2 + r
/// exactly with |r| <= 1/4, then the sine or cosine of pi r by quadrant.
long double reference_sin_or_cos_pi(double x, int quarter_turns) {
  const long double half_turns = std::nearbyint(2.0L * x);
  const long double angle = 3.141592653589793238462643383279502884L * (x - half_turns / 2);
  const long long quadrant = (static_cast<long long>(half_turns) + quarter_turns) & 3;
  const long double values[4] = {std::sin(angle), std::cos(angle), -std::sin(angle),
                                 -std::cos(angle)};
  return values[quadrant];
}
long double reference_sinpi(double x) { return reference_sin_or_cos_pi(x, 0); }
long double reference_cospi(double x) { return reference_sin_or_cos_pi(x, 1); }

}  // namespace

TEST_CASE("the coverage source calls every function the prelude provides", "[cpu][prelude]") {
  const std::set<std::string> names = provided_names();
  // The parse must see the prelude's three kinds of names, or the check below proves nothing.
  for (const char* sample : {"sqrt", "isnan", "erfinvf", "min", "ullmax", "sinpif", "__expf",
                             "__popc", "__float_as_int"}) {
    CAPTURE(sample);
    CHECK(names.count(sample) == 1);
  }
  std::string all_expressions;
  for (const Probe& probe : probes()) all_expressions += probe.expression + "\n";
  for (const std::string& name : names) {
    CAPTURE(name);
    CHECK(std::regex_search(all_expressions, std::regex("(^|[^\\w:])" + name + "\\(")));
  }
}

TEST_CASE("every prelude function compiles, links and gives CUDA's value", "[cpu][prelude]") {
  const std::vector<Probe> all = probes();
  std::vector<double> values(all.size(), std::numeric_limits<double>::quiet_NaN());
  entry_point<void (*)(double*)>("probe_values")(values.data());
  for (std::size_t i = 0; i < all.size(); ++i) {
    CAPTURE(all[i].expression, values[i], all[i].expected);
    const double error = std::fabs(values[i] - all[i].expected);
    CHECK(error <= all[i].tolerance * std::fabs(all[i].expected));
  }
}

TEST_CASE("the prelude compiles with Clang as well", "[cpu][prelude]") {
  // The coverage source with the other common compiler, when this machine has it.
  for (const char* candidate : {"/usr/bin/clang++", "/usr/bin/g++"}) {
    jitvec::cpu::HostCompilerSearch search;
    search.cxx = candidate;
    if (access(candidate, X_OK) != 0) continue;
    const auto compiler = jitvec::cpu::resolve_host_compiler(search);
    if (compiler.identity == host_compiler().identity) continue;
    CAPTURE(compiler.identity);
    const std::vector<Probe> all = probes();
    const HostModule module =
        HostModule::load_bytes(compile_shared_object(coverage_source(all), "prelude", compiler));
    std::vector<double> values(all.size());
    reinterpret_cast<void (*)(double*)>(module.symbol("probe_values"))(values.data());
    for (std::size_t i = 0; i < all.size(); ++i) {
      CAPTURE(all[i].expression, values[i], all[i].expected);
      CHECK(std::fabs(values[i] - all[i].expected) <= all[i].tolerance * std::fabs(all[i].expected));
    }
    return;
  }
  JITVEC_SKIP("no second C++ compiler (clang++ or g++) on this machine");
}

TEST_CASE("the prelude's inverse error functions are accurate to a few ulps", "[cpu][prelude]") {
  auto erfinv = entry_point<double (*)(double)>("call_erfinv");
  auto erfcinv = entry_point<double (*)(double)>("call_erfcinv");
  auto erfinvf = entry_point<float (*)(float)>("call_erfinvf");
  auto erfcinvf = entry_point<float (*)(float)>("call_erfcinvf");

  std::vector<double> arguments;
  for (int i = -1000; i <= 1000; ++i) arguments.push_back(i / 1000.0 * 0.999);
  for (int k = 1; k <= 16; ++k) {
    arguments.push_back(1.0 - std::pow(10.0, -k));
    arguments.push_back(-1.0 + std::pow(10.0, -k));
  }
  for (double y : {1e-300, 1e-20, 0.4999999, 0.5, 0.5000001}) arguments.push_back(y);
  for (double y : arguments) {
    CAPTURE(y);
    const long double reference = reference_inverse_erf(y);
    const double error = ulps(erfinv(y), reference);
    CHECK(error <= 3);
    const float yf = static_cast<float>(y);
    const double error_float = ulps(erfinvf(yf), reference_inverse_erf(yf));
    CHECK(error_float <= 1);
  }

  std::vector<double> complements;
  for (int i = 1; i < 2000; ++i) complements.push_back(i / 1000.0);
  for (int k = 2; k <= 300; k += 7) complements.push_back(std::pow(10.0, -k));
  for (int k = 2; k <= 44; k += 3) complements.push_back(2.0 - std::pow(10.0, -k / 3.0));
  for (double z : complements) {
    CAPTURE(z);
    const double error = ulps(erfcinv(z), reference_inverse_erfc(z));
    CHECK(error <= 3);
    const float zf = static_cast<float>(z);
    if (zf > 0) {
      const double error_float = ulps(erfcinvf(zf), reference_inverse_erfc(zf));
      CHECK(error_float <= 1);
    }
  }

  CHECK(erfinv(1.0) == HUGE_VAL);
  CHECK(erfinv(-1.0) == -HUGE_VAL);
  CHECK(std::isnan(erfinv(1.5)));
  CHECK(std::isnan(erfinv(std::nan(""))));
  CHECK(std::signbit(erfinv(-0.0)));
  CHECK(erfcinv(0.0) == HUGE_VAL);
  CHECK(erfcinv(2.0) == -HUGE_VAL);
  CHECK(std::isnan(erfcinv(-0.1)));
  CHECK(std::isnan(erfcinv(2.1)));
  CHECK(erfcinv(1.0) == 0.0);
  CHECK(erfcinv(1e-320) > 26.0);  // subnormal: finite and in the right place
  CHECK(erfcinvf(1e-45f) > 9.9f);
}

TEST_CASE("the prelude's normcdf and normcdfinv are accurate to a few ulps", "[cpu][prelude]") {
  auto normcdf = entry_point<double (*)(double)>("call_normcdf");
  auto normcdff = entry_point<float (*)(float)>("call_normcdff");
  auto normcdfinv = entry_point<double (*)(double)>("call_normcdfinv");
  for (int i = -380; i <= 90; ++i) {
    const double x = i / 10.0 + 0.0123;
    CAPTURE(x);
    const long double reference =
        0.5L * std::erfc(-static_cast<long double>(x) / std::sqrt(2.0L));
    const double error = ulps(normcdf(x), reference);
    CHECK(error <= 3);
    const float xf = static_cast<float>(x);
    if (reference > 1e-37L) {  // float results below that are subnormal
      CHECK(ulps(normcdff(xf), 0.5L * std::erfc(-static_cast<long double>(xf) /
                                                 std::sqrt(2.0L))) <= 1);
    }
  }
  for (double p : {1e-300, 1e-100, 1e-10, 0.001, 0.025, 0.3, 0.5, 0.7, 0.975, 0.999999}) {
    CAPTURE(p);
    const long double reference = -std::sqrt(2.0L) * reference_inverse_erfc(2.0L * p);
    const double error = ulps(normcdfinv(p), reference);
    CHECK(error <= 3);
  }
  CHECK(normcdf(HUGE_VAL) == 1.0);
  CHECK(normcdf(-HUGE_VAL) == 0.0);
  CHECK(std::isnan(normcdf(std::nan(""))));
  CHECK(normcdfinv(0.0) == -HUGE_VAL);
  CHECK(normcdfinv(1.0) == HUGE_VAL);
  CHECK(normcdfinv(0.5) == 0.0);
}

TEST_CASE("the prelude's sinpi and cospi reduce exactly", "[cpu][prelude]") {
  auto sinpi = entry_point<double (*)(double)>("call_sinpi");
  auto cospi = entry_point<double (*)(double)>("call_cospi");
  auto sinpif = entry_point<float (*)(float)>("call_sinpif");
  auto cospif = entry_point<float (*)(float)>("call_cospif");
  for (int i = -4000; i <= 4000; ++i) {
    const double x = i / 1000.0 + (i % 7) * 1e-7;
    CAPTURE(x);
    const long double s = reference_sinpi(x), c = reference_cospi(x);
    if (std::fabs(s) > 1e-300L) {
      CHECK(ulps(sinpi(x), s) <= 2);
    }
    if (std::fabs(c) > 1e-300L) {
      CHECK(ulps(cospi(x), c) <= 2);
    }
    const float xf = static_cast<float>(x);
    const long double sf = reference_sinpi(xf), cf = reference_cospi(xf);
    if (std::fabs(sf) > 1e-30L) CHECK(ulps(sinpif(xf), sf) <= 1);
    if (std::fabs(cf) > 1e-30L) CHECK(ulps(cospif(xf), cf) <= 1);
  }
  // Exact values and signs where sin(pi * x) would not give them.
  CHECK(sinpi(1e300) == 0.0);
  CHECK(std::signbit(sinpi(-3.0)));
  CHECK_FALSE(std::signbit(sinpi(3.0)));
  CHECK(sinpi(0.5) == 1.0);
  CHECK(sinpi(-1.5) == 1.0);
  CHECK(cospi(0.5) == 0.0);
  CHECK_FALSE(std::signbit(cospi(0.5)));
  CHECK_FALSE(std::signbit(cospi(-1.5)));
  CHECK(cospi(1.0) == -1.0);
  CHECK(cospi(4503599627370497.0) == -1.0);  // 2^52 + 1, odd
  CHECK(cospi(1e300) == 1.0);
  CHECK(std::isnan(sinpi(HUGE_VAL)));
  CHECK(std::isnan(cospi(-HUGE_VAL)));
  CHECK(sinpif(1e30f) == 0.0f);
}

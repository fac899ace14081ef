#include "kernels/host_prelude.hpp"

#include <string>

#include "kernels/device_types.hpp"

namespace jitvec::kernels {

namespace {

// Layout rules that tests/unit/test_cpu_prelude.cpp relies on to find every name the prelude
// provides (and to check that its coverage source calls each one):
//   - a function the prelude adds to the global namespace is defined on one line starting with
//     `inline ` at column 0;
//   - standard overloads are brought in with `using std::name;`;
//   - a CUDA name that some C library also declares is a `#define name jitvec_host::...` line;
//   - everything inside namespace jitvec_host is indented.
constexpr std::string_view kHostPrelude = R"prelude(// ---- jitvec host prelude: CUDA scalar code compiled as host C++ (src/kernels/host_prelude.hpp) ----
#define JITVEC_HOST 1

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>  // printf, which CUDA device code has
#include <cstdlib>
#include <cstring>
#include <limits>
#include <type_traits>
// The C headers too: CUDA code calls expf, int32_t, memcpy unqualified.
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// glibc's libmvec has SIMD versions of these; declaring them SIMD-callable lets GCC vectorize
// loops that call them (glibc itself declares them so only under -ffast-math, which jitvec
// does not use: it would change results elsewhere). libmvec's functions are accurate to 4 ulp.
#if defined(__x86_64__) && defined(__GLIBC__) && defined(__GNUC__) && !defined(__clang__)
extern "C" {
__attribute__((__simd__("notinbranch"))) float expf(float) noexcept;
__attribute__((__simd__("notinbranch"))) float logf(float) noexcept;
__attribute__((__simd__("notinbranch"))) float sinf(float) noexcept;
__attribute__((__simd__("notinbranch"))) float cosf(float) noexcept;
__attribute__((__simd__("notinbranch"))) float powf(float, float) noexcept;
__attribute__((__simd__("notinbranch"))) double exp(double) noexcept;
__attribute__((__simd__("notinbranch"))) double log(double) noexcept;
__attribute__((__simd__("notinbranch"))) double sin(double) noexcept;
__attribute__((__simd__("notinbranch"))) double cos(double) noexcept;
__attribute__((__simd__("notinbranch"))) double pow(double, double) noexcept;
}
#endif

// CUDA's qualifiers. __global__ is deliberately left undefined: a ufunc is a device function.
#define __device__
#define __host__
#define __constant__
#define __forceinline__ inline __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
// The shared object is built with -fvisibility=hidden; its entry points are marked with this.
#define JITVEC_EXPORT extern "C" __attribute__((visibility("default")))

// CUDA declares the float and integer overloads of the math functions in the global namespace
// (sqrt(float) is float, abs(long long) is long long); the standard library's are the same.
using std::abs; using std::fabs; using std::fmod; using std::remainder; using std::remquo;
using std::fma; using std::fmax; using std::fmin; using std::fdim;
using std::exp; using std::exp2; using std::expm1; using std::log; using std::log10;
using std::log2; using std::log1p; using std::logb; using std::ilogb;
using std::pow; using std::sqrt; using std::cbrt; using std::hypot;
using std::sin; using std::cos; using std::tan; using std::asin; using std::acos;
using std::atan; using std::atan2; using std::sinh; using std::cosh; using std::tanh;
using std::asinh; using std::acosh; using std::atanh;
using std::erf; using std::erfc; using std::tgamma; using std::lgamma;
using std::ceil; using std::floor; using std::trunc; using std::round; using std::lround;
using std::llround; using std::nearbyint; using std::rint; using std::lrint; using std::llrint;
using std::frexp; using std::ldexp; using std::modf; using std::scalbn; using std::scalbln;
using std::nextafter; using std::copysign;
using std::fpclassify; using std::isfinite; using std::isinf; using std::isnan;
using std::isnormal; using std::signbit;

namespace jitvec_host {

  constexpr double kPi = 3.141592653589793;
  constexpr double kTwoOverSqrtPi = 1.1283791670955126;
  constexpr double kSqrtHalf = 0.7071067811865476;
  constexpr double kSqrtHalfLow = -4.833646656726457e-17;  // sqrt(1/2) - kSqrtHalf
  constexpr double kSqrt2 = 1.4142135623730951;
  constexpr double kInfinity = std::numeric_limits<double>::infinity();
  constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

  // ---- functions that some C libraries declare (GNU extensions, C23) and others lack; the
  // ---- prelude's own are used everywhere, so results do not depend on the C library.
  inline float exp10f(float x) {
    return static_cast<float>(std::exp(static_cast<double>(x) * 2.302585092994046));
  }
  inline double exp10(double x) { return std::pow(10.0, x); }
  inline void sincosf(float x, float* s, float* c) { *s = std::sin(x); *c = std::cos(x); }
  inline void sincos(double x, double* s, double* c) { *s = std::sin(x); *c = std::cos(x); }
  inline double rsqrt(double x) { return 1.0 / std::sqrt(x); }
  inline float rsqrtf(float x) {
    return static_cast<float>(1.0 / std::sqrt(static_cast<double>(x)));
  }

  // sin(pi x) with exact argument reduction: pi x is never formed for large x.
  inline double sinpi(double x) {
    if (!std::isfinite(x)) return x - x;                  // NaN for NaN and +-inf
    if (x == std::floor(x)) return std::copysign(0.0, x);  // integers (all of |x| >= 2^52)
    const double half_turns = std::round(x + x);           // x + x is exact
    const double reduced = (x - 0.5 * half_turns) * kPi;   // exact difference, |.| <= pi/4
    const long long quadrant = static_cast<long long>(half_turns);
    const double r = (quadrant & 1) ? std::cos(reduced) : std::sin(reduced);
    return (quadrant & 2) ? -r : r;
  }
  // cos(pi x) = sin(pi (x + 1/2)), reduced the same way; +0 at the half-integers.
  inline double cospi(double x) {
    if (!std::isfinite(x)) return x - x;
    x = std::fabs(x);
    if (x >= 9007199254740992.0) return 1.0;  // 2^53 and above: even integers
    const double half_turns = std::round(x + x);
    const double reduced = (x - 0.5 * half_turns) * kPi;
    const long long quadrant = static_cast<long long>(half_turns) + 1;
    const double r = (quadrant & 1) ? std::cos(reduced) : std::sin(reduced);
    return ((quadrant & 2) ? -r : r) + 0.0;
  }
  inline float sinpif(float x) { return static_cast<float>(sinpi(static_cast<double>(x))); }
  inline float cospif(float x) { return static_cast<float>(cospi(static_cast<double>(x))); }

  // ---- the inverse error functions and the normal distribution, in double ----
  // erf^-1(y) for |y| <= 1/2: two Halley steps on erf(x) - y from the Maclaurin series'
  // first three terms (relative error below 2e-3 there; each step cubes it).
  inline double inverse_erf_central(double y) {
    const double y2 = y * y;
    double x = 0.886226925452758 * y * (1.0 + y2 * (0.26179938779914946 + y2 * 0.1439317308492198));
    for (int step = 0; step < 2; ++step) {
      const double f = std::erf(x) - y;
      x -= f / (kTwoOverSqrtPi * std::exp(-x * x) + x * f);
    }
    return x;
  }
  // erfc^-1(z) for 0 < z < 1/2: Newton's method on log(erfc(x) / z), which is concave and
  // decreasing, so it converges from any start; the start is erfc's asymptotic inverse.
  inline double inverse_erfc_tail(double z) {
    const double minus_log_z = -std::log(z);
    double x = std::sqrt(minus_log_z - std::log(std::sqrt(kPi * minus_log_z)));
    for (int iteration = 0; iteration < 10; ++iteration) {
      const double e = std::erfc(x);
      const double step = std::log(e / z) * e / (kTwoOverSqrtPi * std::exp(-x * x));
      if (!std::isfinite(step)) break;  // only where erfc(x) is subnormal
      x += step;
      if (std::fabs(step) <= 2e-16 * x) break;
    }
    return x;
  }
  inline double inverse_erf(double y) {
    if (!(std::fabs(y) <= 1.0)) return kNaN;
    if (std::fabs(y) <= 0.5) return inverse_erf_central(y);
    if (std::fabs(y) == 1.0) return std::copysign(kInfinity, y);
    return std::copysign(inverse_erfc_tail(1.0 - std::fabs(y)), y);  // 1 - |y| is exact
  }
  inline double inverse_erfc(double z) {
    if (!(z >= 0.0 && z <= 2.0)) return kNaN;
    if (z == 0.0) return kInfinity;
    if (z == 2.0) return -kInfinity;
    if (z > 1.0) return -inverse_erfc(2.0 - z);           // 2 - z is exact
    if (z >= 0.5) return inverse_erf_central(1.0 - z);    // 1 - z is exact
    return inverse_erfc_tail(z);
  }
  // Phi(x) = erfc(-x / sqrt(2)) / 2. Rounding -x / sqrt(2) would cost about x^2 ulps for
  // large |x|; the rounding error is kept in t_low and applied through erfc's derivative.
  inline double normal_cdf(double x) {
    if (std::isinf(x)) return x > 0 ? 1.0 : 0.0;
    const double t = -x * kSqrtHalf;
    const double t_low = std::fma(-x, kSqrtHalf, -t) + -x * kSqrtHalfLow;
    return 0.5 * (std::erfc(t) - t_low * kTwoOverSqrtPi * std::exp(-t * t));
  }
  inline double normal_cdf_inverse(double p) { return -kSqrt2 * inverse_erfc(p + p); }

  // ---- CUDA's intrinsics. The fast approximations (__expf, __sinf, __fdividef, ...) are the
  // ---- accurate functions here; the _rn operations are plain IEEE operations (the host code is
  // ---- compiled with -ffp-contract=off, so __fmul_rn(a, b) + c is never fused).
  inline float intrinsic_expf(float x) { return std::exp(x); }
  inline float intrinsic_exp10f(float x) { return exp10f(x); }
  inline float intrinsic_logf(float x) { return std::log(x); }
  inline float intrinsic_log2f(float x) { return std::log2(x); }
  inline float intrinsic_log10f(float x) { return std::log10(x); }
  inline float intrinsic_powf(float x, float y) { return std::pow(x, y); }
  inline float intrinsic_sinf(float x) { return std::sin(x); }
  inline float intrinsic_cosf(float x) { return std::cos(x); }
  inline float intrinsic_tanf(float x) { return std::tan(x); }
  inline void intrinsic_sincosf(float x, float* s, float* c) { sincosf(x, s, c); }
  inline float intrinsic_fdividef(float x, float y) { return x / y; }
  inline float intrinsic_fadd_rn(float x, float y) { return x + y; }
  inline float intrinsic_fsub_rn(float x, float y) { return x - y; }
  inline float intrinsic_fmul_rn(float x, float y) { return x * y; }
  inline float intrinsic_fdiv_rn(float x, float y) { return x / y; }
  inline float intrinsic_fmaf_rn(float x, float y, float z) { return std::fma(x, y, z); }
  inline float intrinsic_fsqrt_rn(float x) { return std::sqrt(x); }
  inline float intrinsic_frcp_rn(float x) { return 1.0f / x; }
  inline float intrinsic_saturatef(float x) { return x >= 1.0f ? 1.0f : (x > 0.0f ? x : 0.0f); }
  inline double intrinsic_dadd_rn(double x, double y) { return x + y; }
  inline double intrinsic_dsub_rn(double x, double y) { return x - y; }
  inline double intrinsic_dmul_rn(double x, double y) { return x * y; }
  inline double intrinsic_ddiv_rn(double x, double y) { return x / y; }
  inline double intrinsic_fma_rn(double x, double y, double z) { return std::fma(x, y, z); }

  inline int intrinsic_popc(unsigned int x) { return __builtin_popcount(x); }
  inline int intrinsic_popcll(unsigned long long x) { return __builtin_popcountll(x); }
  inline int intrinsic_clz(int x) { return x == 0 ? 32 : __builtin_clz(static_cast<unsigned int>(x)); }
  inline int intrinsic_clzll(long long x) {
    return x == 0 ? 64 : __builtin_clzll(static_cast<unsigned long long>(x));
  }
  inline int intrinsic_ffs(int x) { return __builtin_ffs(x); }
  inline int intrinsic_ffsll(long long x) { return __builtin_ffsll(x); }
  inline unsigned int intrinsic_brev(unsigned int x) {
    x = ((x >> 1) & 0x55555555u) | ((x & 0x55555555u) << 1);
    x = ((x >> 2) & 0x33333333u) | ((x & 0x33333333u) << 2);
    x = ((x >> 4) & 0x0F0F0F0Fu) | ((x & 0x0F0F0F0Fu) << 4);
    x = ((x >> 8) & 0x00FF00FFu) | ((x & 0x00FF00FFu) << 8);
    return (x >> 16) | (x << 16);
  }
  inline unsigned long long intrinsic_brevll(unsigned long long x) {
    return (static_cast<unsigned long long>(intrinsic_brev(static_cast<unsigned int>(x))) << 32) |
           intrinsic_brev(static_cast<unsigned int>(x >> 32));
  }
  // The low 24 bits of each operand, as signed 24-bit integers; the low 32 bits of the product.
  inline int intrinsic_mul24(int x, int y) {
    const long long a = static_cast<int>(static_cast<unsigned int>(x) << 8) >> 8;
    const long long b = static_cast<int>(static_cast<unsigned int>(y) << 8) >> 8;
    return static_cast<int>(static_cast<unsigned int>(a * b));
  }
  inline unsigned int intrinsic_umul24(unsigned int x, unsigned int y) {
    return (x & 0xFFFFFFu) * (y & 0xFFFFFFu);
  }
  inline int intrinsic_mulhi(int x, int y) {
    return static_cast<int>((static_cast<long long>(x) * y) >> 32);
  }
  inline unsigned int intrinsic_umulhi(unsigned int x, unsigned int y) {
    return static_cast<unsigned int>((static_cast<unsigned long long>(x) * y) >> 32);
  }
  __extension__ typedef __int128 int128;
  __extension__ typedef unsigned __int128 uint128;
  inline long long intrinsic_mul64hi(long long x, long long y) {
    return static_cast<long long>((static_cast<int128>(x) * y) >> 64);
  }
  inline unsigned long long intrinsic_umul64hi(unsigned long long x, unsigned long long y) {
    return static_cast<unsigned long long>((static_cast<uint128>(x) * y) >> 64);
  }
  inline unsigned int intrinsic_sad(int x, int y, unsigned int z) {
    const unsigned int ux = static_cast<unsigned int>(x), uy = static_cast<unsigned int>(y);
    return (x > y ? ux - uy : uy - ux) + z;
  }
  inline unsigned int intrinsic_usad(unsigned int x, unsigned int y, unsigned int z) {
    return (x > y ? x - y : y - x) + z;
  }

  template <class To, class From>
  inline To bit_cast(From from) {
    static_assert(sizeof(To) == sizeof(From), "bit_cast between types of different sizes");
    To to;
    std::memcpy(&to, &from, sizeof(To));
    return to;
  }
  inline int intrinsic_float_as_int(float x) { return bit_cast<int>(x); }
  inline float intrinsic_int_as_float(int x) { return bit_cast<float>(x); }
  inline unsigned int intrinsic_float_as_uint(float x) { return bit_cast<unsigned int>(x); }
  inline float intrinsic_uint_as_float(unsigned int x) { return bit_cast<float>(x); }
  inline long long intrinsic_double_as_longlong(double x) { return bit_cast<long long>(x); }
  inline double intrinsic_longlong_as_double(long long x) { return bit_cast<double>(x); }

}  // namespace jitvec_host

// ---- CUDA math functions that no C library has ----
inline float rcbrtf(float x) { return static_cast<float>(1.0 / std::cbrt(static_cast<double>(x))); }
inline double rcbrt(double x) { return 1.0 / std::cbrt(x); }
inline void sincospif(float x, float* s, float* c) { *s = jitvec_host::sinpif(x); *c = jitvec_host::cospif(x); }
inline void sincospi(double x, double* s, double* c) { *s = jitvec_host::sinpi(x); *c = jitvec_host::cospi(x); }
inline float erfinvf(float y) { return static_cast<float>(jitvec_host::inverse_erf(y)); }
inline double erfinv(double y) { return jitvec_host::inverse_erf(y); }
inline float erfcinvf(float z) { return static_cast<float>(jitvec_host::inverse_erfc(z)); }
inline double erfcinv(double z) { return jitvec_host::inverse_erfc(z); }
inline float normcdff(float x) { return static_cast<float>(jitvec_host::normal_cdf(x)); }
inline double normcdf(double x) { return jitvec_host::normal_cdf(x); }
inline float normcdfinvf(float p) { return static_cast<float>(jitvec_host::normal_cdf_inverse(p)); }
inline double normcdfinv(double p) { return jitvec_host::normal_cdf_inverse(p); }

// ---- CUDA's min and max: the same overloads as CUDA's math_functions.hpp. Mixed signed and
// ---- unsigned arguments compare as unsigned; float with double gives double; floating-point
// ---- min/max are fminf/fmin (a NaN argument yields the other argument).
inline int min(int a, int b) { return a < b ? a : b; }
inline unsigned int umin(unsigned int a, unsigned int b) { return a < b ? a : b; }
inline long long int llmin(long long int a, long long int b) { return a < b ? a : b; }
inline unsigned long long int ullmin(unsigned long long int a, unsigned long long int b) { return a < b ? a : b; }
inline unsigned int min(unsigned int a, unsigned int b) { return umin(a, b); }
inline unsigned int min(int a, unsigned int b) { return umin(static_cast<unsigned int>(a), b); }
inline unsigned int min(unsigned int a, int b) { return umin(a, static_cast<unsigned int>(b)); }
inline long int min(long int a, long int b) { return a < b ? a : b; }
inline unsigned long int min(unsigned long int a, unsigned long int b) { return a < b ? a : b; }
inline unsigned long int min(long int a, unsigned long int b) { return min(static_cast<unsigned long int>(a), b); }
inline unsigned long int min(unsigned long int a, long int b) { return min(a, static_cast<unsigned long int>(b)); }
inline long long int min(long long int a, long long int b) { return llmin(a, b); }
inline unsigned long long int min(unsigned long long int a, unsigned long long int b) { return ullmin(a, b); }
inline unsigned long long int min(long long int a, unsigned long long int b) { return ullmin(static_cast<unsigned long long int>(a), b); }
inline unsigned long long int min(unsigned long long int a, long long int b) { return ullmin(a, static_cast<unsigned long long int>(b)); }
inline float min(float a, float b) { return std::fmin(a, b); }
inline double min(double a, double b) { return std::fmin(a, b); }
inline double min(float a, double b) { return std::fmin(static_cast<double>(a), b); }
inline double min(double a, float b) { return std::fmin(a, static_cast<double>(b)); }
inline int max(int a, int b) { return a > b ? a : b; }
inline unsigned int umax(unsigned int a, unsigned int b) { return a > b ? a : b; }
inline long long int llmax(long long int a, long long int b) { return a > b ? a : b; }
inline unsigned long long int ullmax(unsigned long long int a, unsigned long long int b) { return a > b ? a : b; }
inline unsigned int max(unsigned int a, unsigned int b) { return umax(a, b); }
inline unsigned int max(int a, unsigned int b) { return umax(static_cast<unsigned int>(a), b); }
inline unsigned int max(unsigned int a, int b) { return umax(a, static_cast<unsigned int>(b)); }
inline long int max(long int a, long int b) { return a > b ? a : b; }
inline unsigned long int max(unsigned long int a, unsigned long int b) { return a > b ? a : b; }
inline unsigned long int max(long int a, unsigned long int b) { return max(static_cast<unsigned long int>(a), b); }
inline unsigned long int max(unsigned long int a, long int b) { return max(a, static_cast<unsigned long int>(b)); }
inline long long int max(long long int a, long long int b) { return llmax(a, b); }
inline unsigned long long int max(unsigned long long int a, unsigned long long int b) { return ullmax(a, b); }
inline unsigned long long int max(long long int a, unsigned long long int b) { return ullmax(static_cast<unsigned long long int>(a), b); }
inline unsigned long long int max(unsigned long long int a, long long int b) { return ullmax(a, static_cast<unsigned long long int>(b)); }
inline float max(float a, float b) { return std::fmax(a, b); }
inline double max(double a, double b) { return std::fmax(a, b); }
inline double max(float a, double b) { return std::fmax(static_cast<double>(a), b); }
inline double max(double a, float b) { return std::fmax(a, static_cast<double>(b)); }

// ---- CUDA names that a C library may declare too: glibc declares exp10f and sincosf, C23 adds
// ---- sinpi and rsqrt, and glibc's <math.h> declares __expf, __sinf, ... without defining them.
// ---- Each name is mapped to the prelude's function by a macro, after every header is in.
#define exp10f jitvec_host::exp10f
#define exp10 jitvec_host::exp10
#define sincosf jitvec_host::sincosf
#define sincos jitvec_host::sincos
#define rsqrtf jitvec_host::rsqrtf
#define rsqrt jitvec_host::rsqrt
#define sinpif jitvec_host::sinpif
#define sinpi jitvec_host::sinpi
#define cospif jitvec_host::cospif
#define cospi jitvec_host::cospi
#define __expf jitvec_host::intrinsic_expf
#define __exp10f jitvec_host::intrinsic_exp10f
#define __logf jitvec_host::intrinsic_logf
#define __log2f jitvec_host::intrinsic_log2f
#define __log10f jitvec_host::intrinsic_log10f
#define __powf jitvec_host::intrinsic_powf
#define __sinf jitvec_host::intrinsic_sinf
#define __cosf jitvec_host::intrinsic_cosf
#define __tanf jitvec_host::intrinsic_tanf
#define __sincosf jitvec_host::intrinsic_sincosf
#define __fdividef jitvec_host::intrinsic_fdividef
#define __fadd_rn jitvec_host::intrinsic_fadd_rn
#define __fsub_rn jitvec_host::intrinsic_fsub_rn
#define __fmul_rn jitvec_host::intrinsic_fmul_rn
#define __fdiv_rn jitvec_host::intrinsic_fdiv_rn
#define __fmaf_rn jitvec_host::intrinsic_fmaf_rn
#define __fsqrt_rn jitvec_host::intrinsic_fsqrt_rn
#define __frcp_rn jitvec_host::intrinsic_frcp_rn
#define __saturatef jitvec_host::intrinsic_saturatef
#define __dadd_rn jitvec_host::intrinsic_dadd_rn
#define __dsub_rn jitvec_host::intrinsic_dsub_rn
#define __dmul_rn jitvec_host::intrinsic_dmul_rn
#define __ddiv_rn jitvec_host::intrinsic_ddiv_rn
#define __fma_rn jitvec_host::intrinsic_fma_rn
#define __popc jitvec_host::intrinsic_popc
#define __popcll jitvec_host::intrinsic_popcll
#define __clz jitvec_host::intrinsic_clz
#define __clzll jitvec_host::intrinsic_clzll
#define __ffs jitvec_host::intrinsic_ffs
#define __ffsll jitvec_host::intrinsic_ffsll
#define __brev jitvec_host::intrinsic_brev
#define __brevll jitvec_host::intrinsic_brevll
#define __mul24 jitvec_host::intrinsic_mul24
#define __umul24 jitvec_host::intrinsic_umul24
#define __mulhi jitvec_host::intrinsic_mulhi
#define __umulhi jitvec_host::intrinsic_umulhi
#define __mul64hi jitvec_host::intrinsic_mul64hi
#define __umul64hi jitvec_host::intrinsic_umul64hi
#define __sad jitvec_host::intrinsic_sad
#define __usad jitvec_host::intrinsic_usad
#define __float_as_int jitvec_host::intrinsic_float_as_int
#define __int_as_float jitvec_host::intrinsic_int_as_float
#define __float_as_uint jitvec_host::intrinsic_float_as_uint
#define __uint_as_float jitvec_host::intrinsic_uint_as_float
#define __double_as_longlong jitvec_host::intrinsic_double_as_longlong
#define __longlong_as_double jitvec_host::intrinsic_longlong_as_double
// ---- end of the jitvec host prelude ----
)prelude";

}  // namespace

std::string_view host_prelude() {
  static const std::string text = std::string(kHostPrelude) + std::string(types_prelude());
  return text;
}

}  // namespace jitvec::kernels

// ---- jitvec device prelude ----
typedef signed char int8_t;
typedef short int16_t;
typedef int int32_t;
typedef long long int64_t;
typedef unsigned char uint8_t;
typedef unsigned short uint16_t;
typedef unsigned int uint32_t;
typedef unsigned long long uint64_t;
#define JITVEC_DEVICE 1
// std::sqrt, std::min, ... as on the host, where <cmath> and <algorithm> are in the prelude.
namespace std {
using ::abs; using ::fabs; using ::fmod; using ::remainder; using ::remquo; using ::fma;
using ::fmax; using ::fmin; using ::fdim; using ::exp; using ::exp2; using ::expm1; using ::log;
using ::log10; using ::log2; using ::log1p; using ::logb; using ::ilogb; using ::pow;
using ::sqrt; using ::cbrt; using ::hypot; using ::sin; using ::cos; using ::tan; using ::asin;
using ::acos; using ::atan; using ::atan2; using ::sinh; using ::cosh; using ::tanh;
using ::asinh; using ::acosh; using ::atanh; using ::erf; using ::erfc; using ::tgamma;
using ::lgamma; using ::ceil; using ::floor; using ::trunc; using ::round; using ::lround;
using ::llround; using ::nearbyint; using ::rint; using ::lrint; using ::llrint; using ::frexp;
using ::ldexp; using ::modf; using ::scalbn; using ::scalbln; using ::nextafter;
using ::copysign; using ::isfinite; using ::isinf; using ::isnan; using ::signbit; using ::min;
using ::max;
}  // namespace std
namespace jitvec_detail {
template <class T, int N> struct alignas(sizeof(T) * N) Vec { T v[N]; };
}  // namespace jitvec_detail
// ---- jitvec types: __half, __nv_bfloat16, jitvec::complex<T> (src/kernels/device_types.hpp) ----
#define JITVEC_FN __host__ __device__ __forceinline__
namespace jitvec_types {
  template <bool C, class T = void> struct enable_if {};
  template <class T> struct enable_if<true, T> { typedef T type; };
  template <class T> struct is_int { static const bool value = false; };
  template <> struct is_int<bool> { static const bool value = true; };
  template <> struct is_int<char> { static const bool value = true; };
  template <> struct is_int<signed char> { static const bool value = true; };
  template <> struct is_int<unsigned char> { static const bool value = true; };
  template <> struct is_int<short> { static const bool value = true; };
  template <> struct is_int<unsigned short> { static const bool value = true; };
  template <> struct is_int<int> { static const bool value = true; };
  template <> struct is_int<unsigned int> { static const bool value = true; };
  template <> struct is_int<long> { static const bool value = true; };
  template <> struct is_int<unsigned long> { static const bool value = true; };
  template <> struct is_int<long long> { static const bool value = true; };
  template <> struct is_int<unsigned long long> { static const bool value = true; };
  template <class T> struct is_arith { static const bool value = is_int<T>::value; };
  template <> struct is_arith<float> { static const bool value = true; };
  template <> struct is_arith<double> { static const bool value = true; };

  // float -> binary16 bits, round to nearest even; every NaN -> 0x7fff (what cvt.rn gives).
  JITVEC_FN unsigned short f32_to_f16(float f) {
#ifdef __CUDA_ARCH__
    unsigned short h;
    asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f));
    return h;
#else
    const unsigned int x = __float_as_uint(f);
    const unsigned int sign = (x >> 16) & 0x8000u, ax = x & 0x7fffffffu;
    if (ax > 0x7f800000u) return 0x7fff;
    if (ax >= 0x477ff000u) return (unsigned short)(sign | 0x7c00u);  // 65520 and up: inf
    if (ax < 0x38800000u) {                                          // below 2^-14
      if (ax < 0x33000000u) return (unsigned short)sign;            // below 2^-25: zero
      const unsigned int shift = 126u - (ax >> 23), m = (ax & 0x7fffffu) | 0x800000u;
      const unsigned int rem = m & ((1u << shift) - 1u), half = 1u << (shift - 1u);
      unsigned int q = m >> shift;
      q += (rem > half || (rem == half && (q & 1u))) ? 1u : 0u;
      return (unsigned short)(sign | q);
    }
    const unsigned int r = ax - 0x38000000u, rem = r & 0x1fffu;
    unsigned int q = r >> 13;
    q += (rem > 0x1000u || (rem == 0x1000u && (q & 1u))) ? 1u : 0u;
    return (unsigned short)(sign | q);
#endif
  }
  // binary16 bits -> float (exact).
  JITVEC_FN float f16_to_f32(unsigned short h) {
#ifdef __CUDA_ARCH__
    float f;
    asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h));
    return f;
#else
    const unsigned int sign = (unsigned int)(h & 0x8000u) << 16;
    const unsigned int e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
    if (e == 0x1fu) return __uint_as_float(sign | 0x7f800000u | (m << 13));
    if (e == 0) return __uint_as_float(sign | __float_as_uint((float)m * 0x1p-24f));
    return __uint_as_float(sign | ((e + 112u) << 23) | (m << 13));
#endif
  }
  // float -> bfloat16 bits, round to nearest even; every NaN -> 0x7fff.
  JITVEC_FN unsigned short f32_to_bf16(float f) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    unsigned short b;
    asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(b) : "f"(f));
    return b;
#else
    const unsigned int x = __float_as_uint(f);
    if ((x & 0x7fffffffu) > 0x7f800000u) return 0x7fff;
    return (unsigned short)((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
#endif
  }
  JITVEC_FN float bf16_to_f32(unsigned short b) { return __uint_as_float((unsigned int)b << 16); }
  // double -> float rounded to odd: rounded again to half or bfloat16, it gives the double
  // rounded once (float keeps more than two extra bits).
  JITVEC_FN float f64_to_f32_odd(double d) {
    const float f = (float)d;
    if ((double)f == d || d != d) return f;
    unsigned int u = __float_as_uint(f);
    if ((double)f > d ? d >= 0 : d < 0) u -= 1u;  // |f| > |d|: one step towards zero
    return __uint_as_float(u | 1u);
  }
  JITVEC_FN unsigned short to_f16(float v) { return f32_to_f16(v); }
  JITVEC_FN unsigned short to_f16(double v) { return f32_to_f16(f64_to_f32_odd(v)); }
  template <class T> JITVEC_FN unsigned short to_f16(T v) {
    return sizeof(T) <= 2 ? f32_to_f16((float)v) : to_f16((double)v);  // 16-bit integers are exact in float
  }
  JITVEC_FN unsigned short to_bf16(float v) { return f32_to_bf16(v); }
  JITVEC_FN unsigned short to_bf16(double v) { return f32_to_bf16(f64_to_f32_odd(v)); }
  template <class T> JITVEC_FN unsigned short to_bf16(T v) {
    return sizeof(T) <= 2 ? f32_to_bf16((float)v) : to_bf16((double)v);
  }
}  // namespace jitvec_types

struct __nv_bfloat16;
struct __half {
  unsigned short __x;
  __half() = default;
  template <class T, class = typename jitvec_types::enable_if<jitvec_types::is_arith<T>::value>::type>
  JITVEC_FN __half(T v) : __x(jitvec_types::to_f16(v)) {}
  JITVEC_FN explicit __half(const __nv_bfloat16& b);
  JITVEC_FN operator float() const { return jitvec_types::f16_to_f32(__x); }
  template <class T> JITVEC_FN __half& operator+=(const T& b);
  template <class T> JITVEC_FN __half& operator-=(const T& b);
  template <class T> JITVEC_FN __half& operator*=(const T& b);
  template <class T> JITVEC_FN __half& operator/=(const T& b);
};
struct __nv_bfloat16 {
  unsigned short __x;
  __nv_bfloat16() = default;
  template <class T, class = typename jitvec_types::enable_if<jitvec_types::is_arith<T>::value>::type>
  JITVEC_FN __nv_bfloat16(T v) : __x(jitvec_types::to_bf16(v)) {}
  JITVEC_FN explicit __nv_bfloat16(const __half& h) : __x(jitvec_types::f32_to_bf16((float)h)) {}
  JITVEC_FN operator float() const { return jitvec_types::bf16_to_f32(__x); }
  template <class T> JITVEC_FN __nv_bfloat16& operator+=(const T& b);
  template <class T> JITVEC_FN __nv_bfloat16& operator-=(const T& b);
  template <class T> JITVEC_FN __nv_bfloat16& operator*=(const T& b);
  template <class T> JITVEC_FN __nv_bfloat16& operator/=(const T& b);
};
JITVEC_FN __half::__half(const __nv_bfloat16& b) : __x(jitvec_types::f32_to_f16((float)b)) {}
typedef __half half;
typedef __nv_bfloat16 nv_bfloat16;

namespace jitvec_types {
  template <class T> struct is_real { static const bool value = is_arith<T>::value; };
  template <> struct is_real<__half> { static const bool value = true; };
  template <> struct is_real<__nv_bfloat16> { static const bool value = true; };
  // The result of `H op B` (H a 2-byte float): H with H or an integer (taken as H), float
  // with float, double with double, float with the other 2-byte type; none otherwise.
  template <class H, class B, bool Int = is_int<B>::value> struct mix {};
  template <class H, class B> struct mix<H, B, true> { typedef H type; };
  template <class H> struct mix<H, H, false> { typedef H type; };
  template <class H> struct mix<H, float, false> { typedef float type; };
  template <class H> struct mix<H, double, false> { typedef double type; };
  template <> struct mix<__half, __nv_bfloat16, false> { typedef float type; };
  template <> struct mix<__nv_bfloat16, __half, false> { typedef float type; };
  // What a result type computes in: float for the 2-byte types.
  template <class R> struct wide { typedef R type; };
  template <> struct wide<__half> { typedef float type; };
  template <> struct wide<__nv_bfloat16> { typedef float type; };

  // One arithmetic operation of two values of one type R (what `H op B` computes in): the
  // plain operator for float and double; for the 2-byte floats, NumPy's float32 operation
  // rounded once to nearest even. For + - * / that is the correctly rounded operation of the
  // 2-byte type itself (float32 keeps 24 >= 2p + 2 bits, p = 11 for half and 8 for bfloat16, so
  // rounding twice gives the same bits as rounding once: tests/unit/test_half_native.cpp checks
  // it), which the GPU has natively: add/sub/mul.rn.f16 from sm_53, .bf16 from sm_90 (older
  // architectures compute in float). The explicit .rn keeps ptxas from contracting a product
  // and a sum into one fma: NumPy rounds the product first.
  JITVEC_FN __half as_half(unsigned short u) { __half h; h.__x = u; return h; }
  JITVEC_FN __nv_bfloat16 as_bf16(unsigned short u) { __nv_bfloat16 b; b.__x = u; return b; }
#define JITVEC_NATIVE_OP(H, AS, NAME, PTX)                                                              \
  JITVEC_FN H NAME(const H& a, const H& b) {                                                           \
    unsigned short r;                                                                                  \
    asm(PTX " %0, %1, %2;" : "=h"(r) : "h"(a.__x), "h"(b.__x));                                        \
    return AS(r);                                                                                      \
  }
#define JITVEC_FLOAT_OP(H, NAME, OP) \
  JITVEC_FN H NAME(const H& a, const H& b) { return H(float(a) OP float(b)); }
  template <class T> JITVEC_FN T arith_add(const T& a, const T& b) { return a + b; }
  template <class T> JITVEC_FN T arith_sub(const T& a, const T& b) { return a - b; }
  template <class T> JITVEC_FN T arith_mul(const T& a, const T& b) { return a * b; }
  template <class T> JITVEC_FN T arith_div(const T& a, const T& b) { return a / b; }
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 530
  JITVEC_NATIVE_OP(__half, as_half, arith_add, "add.rn.f16")
  JITVEC_NATIVE_OP(__half, as_half, arith_sub, "sub.rn.f16")
  JITVEC_NATIVE_OP(__half, as_half, arith_mul, "mul.rn.f16")
#else
  JITVEC_FLOAT_OP(__half, arith_add, +) JITVEC_FLOAT_OP(__half, arith_sub, -) JITVEC_FLOAT_OP(__half, arith_mul, *)
#endif
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  JITVEC_NATIVE_OP(__nv_bfloat16, as_bf16, arith_add, "add.rn.bf16")
  JITVEC_NATIVE_OP(__nv_bfloat16, as_bf16, arith_sub, "sub.rn.bf16")
  JITVEC_NATIVE_OP(__nv_bfloat16, as_bf16, arith_mul, "mul.rn.bf16")
#else
  JITVEC_FLOAT_OP(__nv_bfloat16, arith_add, +) JITVEC_FLOAT_OP(__nv_bfloat16, arith_sub, -)
  JITVEC_FLOAT_OP(__nv_bfloat16, arith_mul, *)
#endif
  JITVEC_FLOAT_OP(__nv_bfloat16, arith_div, /)
#undef JITVEC_FLOAT_OP
#undef JITVEC_NATIVE_OP
  // Comparisons of two values of one 2-byte type: exact in float, and so exact with setp.f16
  // (sm_53+) or setp.bf16 (sm_90+), which saves the two conversions. != is unordered (true
  // with a NaN), the others ordered, as C++'s operators on floats.
#define JITVEC_NATIVE_CMP(H, NAME, PTX)                                                                \
  JITVEC_FN bool NAME(const H& a, const H& b) {                                                        \
    unsigned short r;                                                                                  \
    asm("{ .reg .pred p; " PTX " p, %1, %2; selp.u16 %0, 1, 0, p; }" : "=h"(r) : "h"(a.__x), "h"(b.__x)); \
    return r != 0;                                                                                     \
  }
#define JITVEC_NATIVE_CMPS(H, T)                                                                       \
  JITVEC_NATIVE_CMP(H, cmp_eq, "setp.eq." T) JITVEC_NATIVE_CMP(H, cmp_ne, "setp.neu." T)              \
  JITVEC_NATIVE_CMP(H, cmp_lt, "setp.lt." T) JITVEC_NATIVE_CMP(H, cmp_le, "setp.le." T)               \
  JITVEC_NATIVE_CMP(H, cmp_gt, "setp.gt." T) JITVEC_NATIVE_CMP(H, cmp_ge, "setp.ge." T)
#define JITVEC_FLOAT_CMP(H, NAME, OP) \
  JITVEC_FN bool NAME(const H& a, const H& b) { return float(a) OP float(b); }
#define JITVEC_FLOAT_CMPS(H)                                                                           \
  JITVEC_FLOAT_CMP(H, cmp_eq, ==) JITVEC_FLOAT_CMP(H, cmp_ne, !=) JITVEC_FLOAT_CMP(H, cmp_lt, <)     \
  JITVEC_FLOAT_CMP(H, cmp_le, <=) JITVEC_FLOAT_CMP(H, cmp_gt, >) JITVEC_FLOAT_CMP(H, cmp_ge, >=)
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 530
  JITVEC_NATIVE_CMPS(__half, "f16")
#else
  JITVEC_FLOAT_CMPS(__half)
#endif
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  JITVEC_NATIVE_CMPS(__nv_bfloat16, "bf16")
#else
  JITVEC_FLOAT_CMPS(__nv_bfloat16)
#endif
#undef JITVEC_FLOAT_CMPS
#undef JITVEC_FLOAT_CMP
#undef JITVEC_NATIVE_CMPS
#undef JITVEC_NATIVE_CMP
  // Half division as float32's quotient rounded to half, without the IEEE float division's
  // slow-path branch (which keeps ptxas from sharing one reciprocal between the elements of a
  // vector). The exact quotient of two halves is a half midpoint (then a float, reproduced
  // exactly) or more than 2 float ulps away from every midpoint (a - b m is a nonzero multiple of
  // a's or b m's last bit), and q1 below is within 0.5 ulp plus 2^-20 ulp of the exact quotient
  // (one fma correction of a quotient that a 1-ulp reciprocal gives to 3 ulps), so it rounds to
  // the same half as the IEEE float quotient. Zeros, infinities and NaNs keep the quotient q0
  // of the reciprocal, which IEEE's rules give exactly (the correction would make 0 * inf).
  JITVEC_FN __half arith_div(const __half& a, const __half& b) {
#ifdef __CUDA_ARCH__
    const float fa = float(a), fb = float(b);
    float r;
    asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(fb));
    const float q0 = __fmul_rn(fa, r);
    const float q1 = __fmaf_rn(r, __fmaf_rn(-fb, q0, fa), q0);
    return __half(fabsf(q0) < __int_as_float(0x7f800000) && q0 != 0.0f ? q1 : q0);
#else
    return __half(float(a) / float(b));
#endif
  }
}  // namespace jitvec_types

// `H op B` and `B op H` for every B that mix<> accepts; `H op H` and the two 2-byte types mixed
// are plain functions (the two templates would both match them).
#define JITVEC_SMALL_FLOAT_OP(H, OP, ARITH)                                                            \
  template <class B, class R = typename jitvec_types::mix<H, B>::type>                                \
  JITVEC_FN R operator OP(const H& a, const B& b) { return jitvec_types::ARITH(R(a), R(b)); }         \
  template <class B, class R = typename jitvec_types::mix<H, B>::type>                                \
  JITVEC_FN R operator OP(const B& b, const H& a) { return jitvec_types::ARITH(R(b), R(a)); }         \
  JITVEC_FN H operator OP(const H& a, const H& b) { return jitvec_types::ARITH(a, b); }
#define JITVEC_SMALL_FLOAT_CMP(H, OP, CMP)                                                             \
  template <class B, class R = typename jitvec_types::mix<H, B>::type>                                \
  JITVEC_FN bool operator OP(const H& a, const B& b) {                                                 \
    typedef typename jitvec_types::wide<R>::type W;                                                   \
    return W(R(a)) OP W(R(b));                                                                         \
  }                                                                                                    \
  template <class B, class R = typename jitvec_types::mix<H, B>::type>                                \
  JITVEC_FN bool operator OP(const B& b, const H& a) {                                                 \
    typedef typename jitvec_types::wide<R>::type W;                                                   \
    return W(R(b)) OP W(R(a));                                                                         \
  }                                                                                                    \
  JITVEC_FN bool operator OP(const H& a, const H& b) { return jitvec_types::CMP(a, b); }
#define JITVEC_MIXED_OP(OP)                                                                            \
  JITVEC_FN float operator OP(const __half& a, const __nv_bfloat16& b) { return float(a) OP float(b); } \
  JITVEC_FN float operator OP(const __nv_bfloat16& a, const __half& b) { return float(a) OP float(b); }
#define JITVEC_MIXED_CMP(OP)                                                                           \
  JITVEC_FN bool operator OP(const __half& a, const __nv_bfloat16& b) { return float(a) OP float(b); }  \
  JITVEC_FN bool operator OP(const __nv_bfloat16& a, const __half& b) { return float(a) OP float(b); }
#define JITVEC_SMALL_FLOAT_MATH1(H, NAME) \
  JITVEC_FN H NAME(const H& a) { return H(NAME(float(a))); }
#define JITVEC_SMALL_FLOAT_MATH2(H, NAME) \
  JITVEC_FN H NAME(const H& a, const H& b) { return H(NAME(float(a), float(b))); }
#define JITVEC_SMALL_FLOAT(H, SIGN_FREE, INF)                                                           \
  JITVEC_SMALL_FLOAT_OP(H, +, arith_add) JITVEC_SMALL_FLOAT_OP(H, -, arith_sub)                      \
  JITVEC_SMALL_FLOAT_OP(H, *, arith_mul) JITVEC_SMALL_FLOAT_OP(H, /, arith_div)                      \
  JITVEC_SMALL_FLOAT_CMP(H, ==, cmp_eq) JITVEC_SMALL_FLOAT_CMP(H, !=, cmp_ne)                        \
  JITVEC_SMALL_FLOAT_CMP(H, <, cmp_lt) JITVEC_SMALL_FLOAT_CMP(H, <=, cmp_le)                          \
  JITVEC_SMALL_FLOAT_CMP(H, >, cmp_gt) JITVEC_SMALL_FLOAT_CMP(H, >=, cmp_ge)                          \
  template <class T> JITVEC_FN H& H::operator+=(const T& b) { return *this = H(*this + b); }         \
  template <class T> JITVEC_FN H& H::operator-=(const T& b) { return *this = H(*this - b); }         \
  template <class T> JITVEC_FN H& H::operator*=(const T& b) { return *this = H(*this * b); }         \
  template <class T> JITVEC_FN H& H::operator/=(const T& b) { return *this = H(*this / b); }         \
  JITVEC_FN H operator-(const H& a) { H r; r.__x = (unsigned short)(a.__x ^ 0x8000u); return r; }    \
  JITVEC_FN H operator+(const H& a) { return a; }                                                     \
  JITVEC_FN H abs(const H& a) { H r; r.__x = (unsigned short)(a.__x & 0x7fffu); return r; }          \
  JITVEC_FN H fabs(const H& a) { return abs(a); }                                                     \
  JITVEC_FN bool isnan(const H& a) { return (a.__x & 0x7fffu) > SIGN_FREE; }                          \
  JITVEC_FN bool isinf(const H& a) { return (a.__x & 0x7fffu) == INF; }                               \
  JITVEC_FN bool isfinite(const H& a) { return (a.__x & 0x7fffu) < INF; }                             \
  JITVEC_FN bool signbit(const H& a) { return (a.__x & 0x8000u) != 0; }                               \
  JITVEC_SMALL_FLOAT_MATH1(H, sqrt) JITVEC_SMALL_FLOAT_MATH1(H, exp) JITVEC_SMALL_FLOAT_MATH1(H, exp2) \
  JITVEC_SMALL_FLOAT_MATH1(H, expm1) JITVEC_SMALL_FLOAT_MATH1(H, log) JITVEC_SMALL_FLOAT_MATH1(H, log2) \
  JITVEC_SMALL_FLOAT_MATH1(H, log10) JITVEC_SMALL_FLOAT_MATH1(H, log1p) JITVEC_SMALL_FLOAT_MATH1(H, sin) \
  JITVEC_SMALL_FLOAT_MATH1(H, cos) JITVEC_SMALL_FLOAT_MATH1(H, tan) JITVEC_SMALL_FLOAT_MATH1(H, sinh) \
  JITVEC_SMALL_FLOAT_MATH1(H, cosh) JITVEC_SMALL_FLOAT_MATH1(H, tanh) JITVEC_SMALL_FLOAT_MATH1(H, asin) \
  JITVEC_SMALL_FLOAT_MATH1(H, acos) JITVEC_SMALL_FLOAT_MATH1(H, atan) JITVEC_SMALL_FLOAT_MATH1(H, erf) \
  JITVEC_SMALL_FLOAT_MATH1(H, erfc) JITVEC_SMALL_FLOAT_MATH1(H, floor) JITVEC_SMALL_FLOAT_MATH1(H, ceil) \
  JITVEC_SMALL_FLOAT_MATH1(H, trunc) JITVEC_SMALL_FLOAT_MATH1(H, round) JITVEC_SMALL_FLOAT_MATH1(H, rint) \
  JITVEC_SMALL_FLOAT_MATH2(H, pow) JITVEC_SMALL_FLOAT_MATH2(H, atan2) JITVEC_SMALL_FLOAT_MATH2(H, fmin) \
  JITVEC_SMALL_FLOAT_MATH2(H, fmax) JITVEC_SMALL_FLOAT_MATH2(H, fmod) JITVEC_SMALL_FLOAT_MATH2(H, hypot) \
  JITVEC_FN H __hadd(const H& a, const H& b) { return a + b; }                                        \
  JITVEC_FN H __hsub(const H& a, const H& b) { return a - b; }                                        \
  JITVEC_FN H __hmul(const H& a, const H& b) { return a * b; }                                        \
  JITVEC_FN H __hdiv(const H& a, const H& b) { return a / b; }                                        \
  JITVEC_FN H __hneg(const H& a) { return -a; }                                                       \
  JITVEC_FN H __habs(const H& a) { return abs(a); }                                                   \
  JITVEC_FN bool __heq(const H& a, const H& b) { return a == b; }                                     \
  JITVEC_FN bool __hne(const H& a, const H& b) { return a != b; }                                     \
  JITVEC_FN bool __hlt(const H& a, const H& b) { return a < b; }                                      \
  JITVEC_FN bool __hle(const H& a, const H& b) { return a <= b; }                                     \
  JITVEC_FN bool __hgt(const H& a, const H& b) { return a > b; }                                      \
  JITVEC_FN bool __hge(const H& a, const H& b) { return a >= b; }                                     \
  JITVEC_FN bool __hisnan(const H& a) { return isnan(a); }                                            \
  JITVEC_FN H hexp(const H& a) { return exp(a); }                                                     \
  JITVEC_FN H hlog(const H& a) { return log(a); }                                                     \
  JITVEC_FN H hsqrt(const H& a) { return sqrt(a); }                                                   \
  JITVEC_FN H hsin(const H& a) { return sin(a); }                                                     \
  JITVEC_FN H hcos(const H& a) { return cos(a); }
JITVEC_SMALL_FLOAT(__half, 0x7c00u, 0x7c00u)
JITVEC_SMALL_FLOAT(__nv_bfloat16, 0x7f80u, 0x7f80u)
JITVEC_MIXED_OP(+) JITVEC_MIXED_OP(-) JITVEC_MIXED_OP(*) JITVEC_MIXED_OP(/)
JITVEC_MIXED_CMP(==) JITVEC_MIXED_CMP(!=) JITVEC_MIXED_CMP(<) JITVEC_MIXED_CMP(<=)
JITVEC_MIXED_CMP(>) JITVEC_MIXED_CMP(>=)
#undef JITVEC_SMALL_FLOAT
#undef JITVEC_SMALL_FLOAT_MATH2
#undef JITVEC_SMALL_FLOAT_MATH1
#undef JITVEC_MIXED_CMP
#undef JITVEC_MIXED_OP
#undef JITVEC_SMALL_FLOAT_CMP
#undef JITVEC_SMALL_FLOAT_OP
JITVEC_FN float __half2float(const __half& h) { return float(h); }
JITVEC_FN __half __float2half(float f) { return __half(f); }
JITVEC_FN __half __float2half_rn(float f) { return __half(f); }
JITVEC_FN __half __double2half(double d) { return __half(d); }
JITVEC_FN unsigned short __half_as_ushort(const __half& h) { return h.__x; }
JITVEC_FN __half __ushort_as_half(unsigned short u) { __half h; h.__x = u; return h; }
JITVEC_FN float __bfloat162float(const __nv_bfloat16& b) { return float(b); }
JITVEC_FN __nv_bfloat16 __float2bfloat16(float f) { return __nv_bfloat16(f); }
JITVEC_FN __nv_bfloat16 __float2bfloat16_rn(float f) { return __nv_bfloat16(f); }
JITVEC_FN __nv_bfloat16 __double2bfloat16(double d) { return __nv_bfloat16(d); }
JITVEC_FN unsigned short __bfloat16_as_ushort(const __nv_bfloat16& b) { return b.__x; }
JITVEC_FN __nv_bfloat16 __ushort_as_bfloat16(unsigned short u) { __nv_bfloat16 b; b.__x = u; return b; }

namespace jitvec {
  typedef ::__half half;
  typedef ::__nv_bfloat16 bfloat16;

  // std::complex<T>'s layout: the real part, then the imaginary part.
  template <class T> struct complex {
    T x, y;
    complex() = default;
    JITVEC_FN constexpr complex(T re, T im = T()) : x(re), y(im) {}
    template <class U, class = typename jitvec_types::enable_if<jitvec_types::is_real<U>::value>::type>
    JITVEC_FN constexpr complex(const U& re) : x(static_cast<T>(re)), y(T()) {}
    template <class U> JITVEC_FN constexpr complex(const complex<U>& z) : x(static_cast<T>(z.x)), y(static_cast<T>(z.y)) {}
    JITVEC_FN constexpr T real() const { return x; }
    JITVEC_FN constexpr T imag() const { return y; }
    JITVEC_FN void real(T v) { x = v; }
    JITVEC_FN void imag(T v) { y = v; }
    template <class U> JITVEC_FN complex& operator+=(const U& b) { return *this = *this + b; }
    template <class U> JITVEC_FN complex& operator-=(const U& b) { return *this = *this - b; }
    template <class U> JITVEC_FN complex& operator*=(const U& b) { return *this = *this * b; }
    template <class U> JITVEC_FN complex& operator/=(const U& b) { return *this = *this / b; }
  };
  typedef complex<float> complex64;
  typedef complex<double> complex128;

  template <class U> struct real_operand : jitvec_types::enable_if<jitvec_types::is_real<U>::value> {};

  template <class T> JITVEC_FN complex<T> operator+(const complex<T>& a, const complex<T>& b) { return complex<T>(a.x + b.x, a.y + b.y); }
  template <class T> JITVEC_FN complex<T> operator-(const complex<T>& a, const complex<T>& b) { return complex<T>(a.x - b.x, a.y - b.y); }
  template <class T> JITVEC_FN complex<T> operator*(const complex<T>& a, const complex<T>& b) {
    return complex<T>(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
  }
  // NumPy's complex division (Smith's method, numpy/_core/src/umath/loops.c.src).
  template <class T> JITVEC_FN complex<T> operator/(const complex<T>& a, const complex<T>& b) {
    const T abs_re = b.x < 0 ? -b.x : b.x, abs_im = b.y < 0 ? -b.y : b.y;
    if (abs_re >= abs_im) {
      if (abs_re == 0 && abs_im == 0) return complex<T>(a.x / abs_re, a.y / abs_re);
      const T rat = b.y / b.x, scl = T(1) / (b.x + b.y * rat);
      return complex<T>((a.x + a.y * rat) * scl, (a.y - a.x * rat) * scl);
    }
    const T rat = b.x / b.y, scl = T(1) / (b.y + b.x * rat);
    return complex<T>((a.x * rat + a.y) * scl, (a.y * rat - a.x) * scl);
  }
  template <class T, class U, class = typename real_operand<U>::type> JITVEC_FN complex<T> operator+(const complex<T>& a, const U& b) { return complex<T>(a.x + static_cast<T>(b), a.y); }
  template <class T, class U, class = typename real_operand<U>::type> JITVEC_FN complex<T> operator+(const U& a, const complex<T>& b) { return complex<T>(static_cast<T>(a) + b.x, b.y); }
  template <class T, class U, class = typename real_operand<U>::type> JITVEC_FN complex<T> operator-(const complex<T>& a, const U& b) { return complex<T>(a.x - static_cast<T>(b), a.y); }
  template <class T, class U, class = typename real_operand<U>::type> JITVEC_FN complex<T> operator-(const U& a, const complex<T>& b) { return complex<T>(static_cast<T>(a) - b.x, -b.y); }
  template <class T, class U, class = typename real_operand<U>::type> JITVEC_FN complex<T> operator*(const complex<T>& a, const U& b) { return complex<T>(a.x * static_cast<T>(b), a.y * static_cast<T>(b)); }
  template <class T, class U, class = typename real_operand<U>::type> JITVEC_FN complex<T> operator*(const U& a, const complex<T>& b) { return complex<T>(static_cast<T>(a) * b.x, static_cast<T>(a) * b.y); }
  template <class T, class U, class = typename real_operand<U>::type> JITVEC_FN complex<T> operator/(const complex<T>& a, const U& b) { return complex<T>(a.x / static_cast<T>(b), a.y / static_cast<T>(b)); }
  template <class T, class U, class = typename real_operand<U>::type> JITVEC_FN complex<T> operator/(const U& a, const complex<T>& b) { return complex<T>(static_cast<T>(a)) / b; }
  template <class T> JITVEC_FN complex<T> operator-(const complex<T>& a) { return complex<T>(-a.x, -a.y); }
  template <class T> JITVEC_FN complex<T> operator+(const complex<T>& a) { return a; }
  template <class T> JITVEC_FN bool operator==(const complex<T>& a, const complex<T>& b) { return a.x == b.x && a.y == b.y; }
  template <class T> JITVEC_FN bool operator!=(const complex<T>& a, const complex<T>& b) { return !(a == b); }

  template <class T> JITVEC_FN T real(const complex<T>& z) { return z.x; }
  template <class T> JITVEC_FN T imag(const complex<T>& z) { return z.y; }
  template <class T> JITVEC_FN complex<T> conj(const complex<T>& z) { return complex<T>(z.x, -z.y); }
  template <class T> JITVEC_FN T abs(const complex<T>& z) { return ::hypot(z.x, z.y); }
  template <class T> JITVEC_FN T arg(const complex<T>& z) { return ::atan2(z.y, z.x); }
  template <class T> JITVEC_FN T norm(const complex<T>& z) { return z.x * z.x + z.y * z.y; }
  template <class T> JITVEC_FN complex<T> polar(T r, T theta = T()) { return complex<T>(r * ::cos(theta), r * ::sin(theta)); }
  template <class T> JITVEC_FN complex<T> exp(const complex<T>& z) {
    const T r = ::exp(z.x);
    if (z.y == 0) return complex<T>(r, z.y);  // exp of a real keeps the imaginary zero's sign
    return complex<T>(r * ::cos(z.y), r * ::sin(z.y));
  }
  template <class T> JITVEC_FN complex<T> log(const complex<T>& z) { return complex<T>(::log(abs(z)), arg(z)); }
  // C99's csqrt: the principal root, computed without cancellation.
  template <class T> JITVEC_FN complex<T> sqrt(const complex<T>& z) {
    if (z.x == 0 && z.y == 0) return complex<T>(T(0), z.y);
    const T t = ::sqrt((::fabs(z.x) + ::hypot(z.x, z.y)) * T(0.5));
    if (z.x >= 0) return complex<T>(t, z.y / (t + t));
    return complex<T>(::fabs(z.y) / (t + t), ::copysign(t, z.y));
  }
}  // namespace jitvec
using jitvec::complex;
using jitvec::polar;  // the only function of complex numbers that takes none
typedef jitvec::complex<float> complex64;
typedef jitvec::complex<double> complex128;
#undef JITVEC_FN
// ---- end of the jitvec types ----
#line 1 "ufunc:zero_suppress"
template <typename T> __device__ T zero_suppress(T x, T threshold) {
  return (x > threshold || x < -threshold) ? x : T(0);
}
#line 1 "jitvec-generated-loop"
namespace jitvec_detail {
__device__ __forceinline__ short jitvec_apply(short a0, short a1) {
  return static_cast<short>(zero_suppress(a0, a1));
}
}  // namespace jitvec_detail
using jitvec_detail::jitvec_apply;
struct jitvec_strided32_params {
  unsigned numel;
  int ndim;
  unsigned sizes[16];
  unsigned magic[16];
  unsigned shift[16];
  int strides[3][16];
};
static_assert(sizeof(jitvec_strided32_params) == 392, "jitvec: strided parameter layout");
struct jitvec_strided64_params {
  long long numel;
  long long ndim;
  long long sizes[16];
  long long strides[3][16];
};
static_assert(sizeof(jitvec_strided64_params) == 528, "jitvec: strided parameter layout");
extern "C" __global__ void __launch_bounds__(256) jitvec_contig_vec(const short* __restrict__ in0, const short s0, const short* __restrict__ in1, const short s1, short* __restrict__ out, const unsigned scalar_mask, const unsigned lane_mask, const long long n) {
  constexpr int BLOCK = 256, VEC = 8, UNROLL = 1;
  constexpr long long TILE = static_cast<long long>(BLOCK) * VEC * UNROLL;
  const long long base = static_cast<long long>(blockIdx.x) * TILE;
  if (base + TILE <= n) {
    jitvec_detail::Vec<short, VEC> v0[UNROLL];
    if (!((scalar_mask >> 0) & 1u)) {
#pragma unroll
      for (int u = 0; u < UNROLL; ++u)
        v0[u] = *reinterpret_cast<const jitvec_detail::Vec<short, VEC>*>(in0 + base + (static_cast<long long>(u) * BLOCK + threadIdx.x) * VEC);
    }
    jitvec_detail::Vec<short, VEC> v1[UNROLL];
    if (!((scalar_mask >> 1) & 1u)) {
#pragma unroll
      for (int u = 0; u < UNROLL; ++u)
        v1[u] = *reinterpret_cast<const jitvec_detail::Vec<short, VEC>*>(in1 + base + (static_cast<long long>(u) * BLOCK + threadIdx.x) * VEC);
    }
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) {
      jitvec_detail::Vec<short, VEC> r;
#pragma unroll
      for (int e = 0; e < VEC; ++e) r.v[e] = jitvec_apply(((scalar_mask >> 0) & 1u ? s0 : v0[u].v[e]), ((scalar_mask >> 1) & 1u ? s1 : v1[u].v[e]));
      *reinterpret_cast<jitvec_detail::Vec<short, VEC>*>(out + base + (static_cast<long long>(u) * BLOCK + threadIdx.x) * VEC) = r;
    }
  } else {
    for (long long i = base + threadIdx.x; i < n; i += BLOCK) out[i] = jitvec_apply(((scalar_mask >> 0) & 1u ? s0 : in0[i]), ((scalar_mask >> 1) & 1u ? s1 : in1[i]));
  }
}
extern "C" __global__ void __launch_bounds__(256) jitvec_contig_vec_s0(const short* __restrict__ in0, const short s0, const short* __restrict__ in1, const short s1, short* __restrict__ out, const unsigned scalar_mask, const unsigned lane_mask, const long long n) {
  constexpr int BLOCK = 256, VEC = 8, UNROLL = 1;
  constexpr long long TILE = static_cast<long long>(BLOCK) * VEC * UNROLL;
  const long long base = static_cast<long long>(blockIdx.x) * TILE;
  if (base + TILE <= n) {
    jitvec_detail::Vec<short, VEC> v0[UNROLL];
#pragma unroll
    for (int u = 0; u < UNROLL; ++u)
      v0[u] = *reinterpret_cast<const jitvec_detail::Vec<short, VEC>*>(in0 + base + (static_cast<long long>(u) * BLOCK + threadIdx.x) * VEC);
    jitvec_detail::Vec<short, VEC> v1[UNROLL];
#pragma unroll
    for (int u = 0; u < UNROLL; ++u)
      v1[u] = *reinterpret_cast<const jitvec_detail::Vec<short, VEC>*>(in1 + base + (static_cast<long long>(u) * BLOCK + threadIdx.x) * VEC);
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) {
      jitvec_detail::Vec<short, VEC> r;
#pragma unroll
      for (int e = 0; e < VEC; ++e) r.v[e] = jitvec_apply(v0[u].v[e], v1[u].v[e]);
      *reinterpret_cast<jitvec_detail::Vec<short, VEC>*>(out + base + (static_cast<long long>(u) * BLOCK + threadIdx.x) * VEC) = r;
    }
  } else {
    for (long long i = base + threadIdx.x; i < n; i += BLOCK) out[i] = jitvec_apply(in0[i], in1[i]);
  }
}
extern "C" __global__ void __launch_bounds__(256) jitvec_contig_vec_s2(const short* __restrict__ in0, const short s0, const short* __restrict__ in1, const short s1, short* __restrict__ out, const unsigned scalar_mask, const unsigned lane_mask, const long long n) {
  constexpr int BLOCK = 256, VEC = 8, UNROLL = 1;
  constexpr long long TILE = static_cast<long long>(BLOCK) * VEC * UNROLL;
  const long long base = static_cast<long long>(blockIdx.x) * TILE;
  if (base + TILE <= n) {
    jitvec_detail::Vec<short, VEC> v0[UNROLL];
#pragma unroll
    for (int u = 0; u < UNROLL; ++u)
      v0[u] = *reinterpret_cast<const jitvec_detail::Vec<short, VEC>*>(in0 + base + (static_cast<long long>(u) * BLOCK + threadIdx.x) * VEC);
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) {
      jitvec_detail::Vec<short, VEC> r;
#pragma unroll
      for (int e = 0; e < VEC; ++e) r.v[e] = jitvec_apply(v0[u].v[e], s1);
      *reinterpret_cast<jitvec_detail::Vec<short, VEC>*>(out + base + (static_cast<long long>(u) * BLOCK + threadIdx.x) * VEC) = r;
    }
  } else {
    for (long long i = base + threadIdx.x; i < n; i += BLOCK) out[i] = jitvec_apply(in0[i], s1);
  }
}
extern "C" __global__ void __launch_bounds__(256) jitvec_contig(const short* __restrict__ in0, const short s0, const short* __restrict__ in1, const short s1, short* __restrict__ out, const unsigned scalar_mask, const unsigned lane_mask, const long long n) {
  const long long step = static_cast<long long>(gridDim.x) * 256;
  for (long long i = static_cast<long long>(blockIdx.x) * 256 + threadIdx.x; i < n; i += step)
    out[i] = jitvec_apply(((scalar_mask >> 0) & 1u ? s0 : in0[i]), ((scalar_mask >> 1) & 1u ? s1 : in1[i]));
}
extern "C" __global__ void __launch_bounds__(256) jitvec_strided32(const short* __restrict__ in0, const short s0, const short* __restrict__ in1, const short s1, short* __restrict__ out, const unsigned scalar_mask, const unsigned lane_mask, const jitvec_strided32_params p) {
  constexpr int BLOCK = 256, UNROLL = 4, OPERANDS = 3, OUT = OPERANDS - 1;
  const unsigned base = static_cast<unsigned>(blockIdx.x) * (BLOCK * UNROLL) + threadIdx.x;
  int off[OPERANDS][UNROLL];
#pragma unroll
  for (int u = 0; u < UNROLL; ++u) {
#pragma unroll
    for (int op = 0; op < OPERANDS; ++op) off[op][u] = 0;
    unsigned rem = base + u * BLOCK;
    if (rem >= p.numel) continue;
#pragma unroll 1
    for (int d = 0; d < 16; ++d) {
      if (d == p.ndim) break;
      const unsigned q = (__umulhi(rem, p.magic[d]) + rem) >> p.shift[d];
      const int coord = static_cast<int>(rem - q * p.sizes[d]);
      rem = q;
#pragma unroll
      for (int op = 0; op < OPERANDS; ++op) off[op][u] += coord * p.strides[op][d];
    }
  }
  short v0[UNROLL];
  if (!((scalar_mask >> 0) & 1u)) {
#pragma unroll
    for (int u = 0; u < UNROLL; ++u)
      if (base + u * BLOCK < p.numel) v0[u] = in0[off[0][u]];
  }
  short v1[UNROLL];
  if (!((scalar_mask >> 1) & 1u)) {
#pragma unroll
    for (int u = 0; u < UNROLL; ++u)
      if (base + u * BLOCK < p.numel) v1[u] = in1[off[1][u]];
  }
#pragma unroll
  for (int u = 0; u < UNROLL; ++u)
    if (base + u * BLOCK < p.numel) out[off[OUT][u]] = jitvec_apply(((scalar_mask >> 0) & 1u ? s0 : v0[u]), ((scalar_mask >> 1) & 1u ? s1 : v1[u]));
}
extern "C" __global__ void __launch_bounds__(256) jitvec_strided64(const short* __restrict__ in0, const short s0, const short* __restrict__ in1, const short s1, short* __restrict__ out, const unsigned scalar_mask, const unsigned lane_mask, const jitvec_strided64_params p) {
  constexpr int BLOCK = 256, UNROLL = 1, OPERANDS = 3, OUT = OPERANDS - 1;
  const long long base = static_cast<long long>(blockIdx.x) * (BLOCK * UNROLL) + threadIdx.x;
  long long off[OPERANDS][UNROLL];
#pragma unroll
  for (int u = 0; u < UNROLL; ++u) {
#pragma unroll
    for (int op = 0; op < OPERANDS; ++op) off[op][u] = 0;
    long long rem = base + u * BLOCK;
    if (rem >= p.numel) continue;
#pragma unroll 1
    for (int d = 0; d < 16; ++d) {
      if (d == p.ndim) break;
      const long long q = rem / p.sizes[d];
      const long long coord = static_cast<long long>(rem - q * p.sizes[d]);
      rem = q;
#pragma unroll
      for (int op = 0; op < OPERANDS; ++op) off[op][u] += coord * p.strides[op][d];
    }
  }
  short v0[UNROLL];
  if (!((scalar_mask >> 0) & 1u)) {
#pragma unroll
    for (int u = 0; u < UNROLL; ++u)
      if (base + u * BLOCK < p.numel) v0[u] = in0[off[0][u]];
  }
  short v1[UNROLL];
  if (!((scalar_mask >> 1) & 1u)) {
#pragma unroll
    for (int u = 0; u < UNROLL; ++u)
      if (base + u * BLOCK < p.numel) v1[u] = in1[off[1][u]];
  }
#pragma unroll
  for (int u = 0; u < UNROLL; ++u)
    if (base + u * BLOCK < p.numel) out[off[OUT][u]] = jitvec_apply(((scalar_mask >> 0) & 1u ? s0 : v0[u]), ((scalar_mask >> 1) & 1u ? s1 : v1[u]));
}
extern "C" __global__ void __launch_bounds__(256) jitvec_rows(const short* __restrict__ in0, const short s0, const short* __restrict__ in1, const short s1, short* __restrict__ out, const unsigned scalar_mask, const unsigned lane_mask, const jitvec_strided64_params p) {
  constexpr int BLOCK = 256, UNROLL = 4, OPERANDS = 3, OUT = OPERANDS - 1;
  const int ndim = static_cast<int>(p.ndim);
  const long long cols = p.sizes[0], rows = p.numel / cols;
  const long long rows_per_block = (rows + gridDim.y - 1) / gridDim.y;
  long long row = static_cast<long long>(blockIdx.y) * rows_per_block;
  const long long row_end = row + rows_per_block < rows ? row + rows_per_block : rows;
  long long base[OPERANDS], inner_row;
  {
    long long rem = row;
#pragma unroll
    for (int op = 0; op < OPERANDS; ++op) base[op] = 0;
    inner_row = rem;
#pragma unroll 1
    for (int d = 1; d < ndim; ++d) {
      const long long q = d + 1 < ndim ? rem / p.sizes[d] : 0;
      const long long coord = rem - q * p.sizes[d];
      if (d == 1) inner_row = coord;
#pragma unroll
      for (int op = 0; op < OPERANDS; ++op) base[op] += coord * p.strides[op][d];
      rem = q;
    }
  }

  const long long c0 = static_cast<long long>(blockIdx.x) * (BLOCK * UNROLL) + threadIdx.x;
  for (; row < row_end; ++row) {
    short v0[UNROLL];
    if (!((scalar_mask >> 0) & 1u)) {
      const short* row0 = in0 + base[0];
#pragma unroll
      for (int u = 0; u < UNROLL; ++u)
        if (c0 + u * BLOCK < cols) v0[u] = row0[(c0 + u * BLOCK) * p.strides[0][0]];
    }
    short v1[UNROLL];
    if (!((scalar_mask >> 1) & 1u)) {
      const short* row1 = in1 + base[1];
#pragma unroll
      for (int u = 0; u < UNROLL; ++u)
        if (c0 + u * BLOCK < cols) v1[u] = row1[(c0 + u * BLOCK) * p.strides[1][0]];
    }
    short* row_out = out + base[OUT];
#pragma unroll
    for (int u = 0; u < UNROLL; ++u)
      if (c0 + u * BLOCK < cols) row_out[(c0 + u * BLOCK) * p.strides[OUT][0]] = jitvec_apply(((scalar_mask >> 0) & 1u ? s0 : v0[u]), ((scalar_mask >> 1) & 1u ? s1 : v1[u]));
    if (++inner_row == p.sizes[1]) {
      {
        long long rem = row + 1;
#pragma unroll
        for (int op = 0; op < OPERANDS; ++op) base[op] = 0;
        inner_row = rem;
#pragma unroll 1
        for (int d = 1; d < ndim; ++d) {
          const long long q = d + 1 < ndim ? rem / p.sizes[d] : 0;
          const long long coord = rem - q * p.sizes[d];
          if (d == 1) inner_row = coord;
#pragma unroll
          for (int op = 0; op < OPERANDS; ++op) base[op] += coord * p.strides[op][d];
          rem = q;
        }
      }
    } else {
#pragma unroll
      for (int op = 0; op < OPERANDS; ++op) base[op] += p.strides[op][1];
    }
  }
}
extern "C" __global__ void __launch_bounds__(256) jitvec_rows_vec(const short* __restrict__ in0, const short s0, const short* __restrict__ in1, const short s1, short* __restrict__ out, const unsigned scalar_mask, const unsigned lane_mask, const jitvec_strided64_params p) {
  constexpr int BLOCK = 256, VEC = 8, UNROLL = 1, OPERANDS = 3, OUT = OPERANDS - 1;
  const unsigned column_mask = lane_mask;
  const int ndim = static_cast<int>(p.ndim);
  const long long cols = p.sizes[0], rows = p.numel / cols;
  const long long rows_per_block = (rows + gridDim.y - 1) / gridDim.y;
  long long row = static_cast<long long>(blockIdx.y) * rows_per_block;
  const long long row_end = row + rows_per_block < rows ? row + rows_per_block : rows;
  long long base[OPERANDS], inner_row;
  {
    long long rem = row;
#pragma unroll
    for (int op = 0; op < OPERANDS; ++op) base[op] = 0;
    inner_row = rem;
#pragma unroll 1
    for (int d = 1; d < ndim; ++d) {
      const long long q = d + 1 < ndim ? rem / p.sizes[d] : 0;
      const long long coord = rem - q * p.sizes[d];
      if (d == 1) inner_row = coord;
#pragma unroll
      for (int op = 0; op < OPERANDS; ++op) base[op] += coord * p.strides[op][d];
      rem = q;
    }
  }

  const long long vectors = cols / VEC;
  const long long q0 = static_cast<long long>(blockIdx.x) * (BLOCK * UNROLL) + threadIdx.x;
  for (; row < row_end; ++row) {
    jitvec_detail::Vec<short, VEC> v0[UNROLL];
    const short* row0 = in0 + base[0];
    if (!((scalar_mask >> 0) & 1u)) {
      if ((column_mask >> 0) & 1u) {
        const short same = *row0;
#pragma unroll
        for (int u = 0; u < UNROLL; ++u)
#pragma unroll
          for (int e = 0; e < VEC; ++e) v0[u].v[e] = same;
      } else {
#pragma unroll
        for (int u = 0; u < UNROLL; ++u)
          if (q0 + u * BLOCK < vectors) v0[u] = *reinterpret_cast<const jitvec_detail::Vec<short, VEC>*>(row0 + (q0 + u * BLOCK) * VEC);
      }
    }
    jitvec_detail::Vec<short, VEC> v1[UNROLL];
    const short* row1 = in1 + base[1];
    if (!((scalar_mask >> 1) & 1u)) {
      if ((column_mask >> 1) & 1u) {
        const short same = *row1;
#pragma unroll
        for (int u = 0; u < UNROLL; ++u)
#pragma unroll
          for (int e = 0; e < VEC; ++e) v1[u].v[e] = same;
      } else {
#pragma unroll
        for (int u = 0; u < UNROLL; ++u)
          if (q0 + u * BLOCK < vectors) v1[u] = *reinterpret_cast<const jitvec_detail::Vec<short, VEC>*>(row1 + (q0 + u * BLOCK) * VEC);
      }
    }
    short* row_out = out + base[OUT];
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) {
      if (q0 + u * BLOCK >= vectors) break;
      jitvec_detail::Vec<short, VEC> result;
#pragma unroll
      for (int e = 0; e < VEC; ++e) result.v[e] = jitvec_apply(((scalar_mask >> 0) & 1u ? s0 : v0[u].v[e]), ((scalar_mask >> 1) & 1u ? s1 : v1[u].v[e]));
      *reinterpret_cast<jitvec_detail::Vec<short, VEC>*>(row_out + (q0 + u * BLOCK) * VEC) = result;
    }
    const long long c = vectors * VEC + threadIdx.x;
    if (blockIdx.x == 0 && c < cols) row_out[c] = jitvec_apply(((scalar_mask >> 0) & 1u ? s0 : row0[((column_mask >> 0) & 1u) ? 0 : c]), ((scalar_mask >> 1) & 1u ? s1 : row1[((column_mask >> 1) & 1u) ? 0 : c]));
    if (++inner_row == p.sizes[1]) {
      {
        long long rem = row + 1;
#pragma unroll
        for (int op = 0; op < OPERANDS; ++op) base[op] = 0;
        inner_row = rem;
#pragma unroll 1
        for (int d = 1; d < ndim; ++d) {
          const long long q = d + 1 < ndim ? rem / p.sizes[d] : 0;
          const long long coord = rem - q * p.sizes[d];
          if (d == 1) inner_row = coord;
#pragma unroll
          for (int op = 0; op < OPERANDS; ++op) base[op] += coord * p.strides[op][d];
          rem = q;
        }
      }
    } else {
#pragma unroll
      for (int op = 0; op < OPERANDS; ++op) base[op] += p.strides[op][1];
    }
  }
}
extern "C" __global__ void __launch_bounds__(256) jitvec_tiled(const short* __restrict__ in0, const short s0, const short* __restrict__ in1, const short s1, short* __restrict__ out, const unsigned scalar_mask, const unsigned lane_mask, const jitvec_strided64_params p) {
  extern __shared__ __align__(16) unsigned char jitvec_tiles[];
  constexpr int OPERANDS = 3, OUT = OPERANDS - 1;
  const unsigned tiled_mask = lane_mask;
  const long long cols = p.sizes[0], rows = p.sizes[1];
  // blockIdx.x: the row tile, blockIdx.y: the column tile, blockIdx.z: the batch (the
  // dimensions past the first two, the outermost found without a division).
  const long long r0 = static_cast<long long>(blockIdx.x) * 64;
  const long long c0 = static_cast<long long>(blockIdx.y) * 64;
  long long base[OPERANDS];
#pragma unroll
  for (int op = 0; op < OPERANDS; ++op) base[op] = 0;
  long long batch = blockIdx.z;
#pragma unroll 1
  for (int d = 2; d < p.ndim; ++d) {
    const long long q = d + 1 < p.ndim ? batch / p.sizes[d] : 0, coord = batch - q * p.sizes[d];
    batch = q;
#pragma unroll
    for (int op = 0; op < OPERANDS; ++op) base[op] += coord * p.strides[op][d];
  }
  const int tx = threadIdx.x & 63, ty = threadIdx.x >> 6;
  const bool interior = r0 + 64 <= rows && c0 + 64 <= cols;
  unsigned slot = 0;
  short (*tile0)[65] = reinterpret_cast<short (*)[65]>(jitvec_tiles + slot);
  if ((tiled_mask >> 0) & 1u) {
    slot += 64 * 65 * sizeof(short);
    const short* src = in0 + base[0] + (r0 + tx) * p.strides[0][1] + (c0 + ty) * p.strides[0][0];
    const long long step = 4 * p.strides[0][0];
    if (interior) {
      short v[16];
#pragma unroll
      for (int j = 0; j < 16; ++j) v[j] = src[j * step];
#pragma unroll
      for (int j = 0; j < 16; ++j) tile0[ty + 4 * j][tx] = v[j];
    } else {
#pragma unroll 1
      for (int j = 0; j < 16; ++j)
        if (r0 + tx < rows && c0 + ty + 4 * j < cols) tile0[ty + 4 * j][tx] = src[j * step];
    }
  }
  short (*tile1)[65] = reinterpret_cast<short (*)[65]>(jitvec_tiles + slot);
  if ((tiled_mask >> 1) & 1u) {
    slot += 64 * 65 * sizeof(short);
    const short* src = in1 + base[1] + (r0 + tx) * p.strides[1][1] + (c0 + ty) * p.strides[1][0];
    const long long step = 4 * p.strides[1][0];
    if (interior) {
      short v[16];
#pragma unroll
      for (int j = 0; j < 16; ++j) v[j] = src[j * step];
#pragma unroll
      for (int j = 0; j < 16; ++j) tile1[ty + 4 * j][tx] = v[j];
    } else {
#pragma unroll 1
      for (int j = 0; j < 16; ++j)
        if (r0 + tx < rows && c0 + ty + 4 * j < cols) tile1[ty + 4 * j][tx] = src[j * step];
    }
  }
  __syncthreads();
  const long long r = r0 + ty, c = c0 + tx;
  const short* direct0 = in0 + base[0] + r * p.strides[0][1] + c * p.strides[0][0];
  const long long direct_step0 = 4 * p.strides[0][1];
  const short* direct1 = in1 + base[1] + r * p.strides[1][1] + c * p.strides[1][0];
  const long long direct_step1 = 4 * p.strides[1][1];
  auto* dst = out + base[OUT] + r * p.strides[OUT][1] + c * p.strides[OUT][0];
  const long long out_step = 4 * p.strides[OUT][1];
  if (interior) {
#pragma unroll
    for (int j = 0; j < 16; ++j) dst[j * out_step] = jitvec_apply(((scalar_mask >> 0) & 1u ? s0 : (((tiled_mask >> 0) & 1u) ? tile0[tx][ty + 4 * j] : direct0[j * direct_step0])), ((scalar_mask >> 1) & 1u ? s1 : (((tiled_mask >> 1) & 1u) ? tile1[tx][ty + 4 * j] : direct1[j * direct_step1])));
  } else {
#pragma unroll 1
    for (int j = 0; j < 16; ++j)
      if (r + 4 * j < rows && c < cols) dst[j * out_step] = jitvec_apply(((scalar_mask >> 0) & 1u ? s0 : (((tiled_mask >> 0) & 1u) ? tile0[tx][ty + 4 * j] : direct0[j * direct_step0])), ((scalar_mask >> 1) & 1u ? s1 : (((tiled_mask >> 1) & 1u) ? tile1[tx][ty + 4 * j] : direct1[j * direct_step1])));
  }
}
extern "C" __global__ void __launch_bounds__(256) jitvec_tiled_s0(const short* __restrict__ in0, const short s0, const short* __restrict__ in1, const short s1, short* __restrict__ out, const unsigned scalar_mask, const unsigned lane_mask, const jitvec_strided64_params p) {
  extern __shared__ __align__(16) unsigned char jitvec_tiles[];
  constexpr int OPERANDS = 3, OUT = OPERANDS - 1;
  const unsigned tiled_mask = lane_mask;
  const long long cols = p.sizes[0], rows = p.sizes[1];
  // blockIdx.x: the row tile, blockIdx.y: the column tile, blockIdx.z: the batch (the
  // dimensions past the first two, the outermost found without a division).
  const long long r0 = static_cast<long long>(blockIdx.x) * 64;
  const long long c0 = static_cast<long long>(blockIdx.y) * 64;
  long long base[OPERANDS];
#pragma unroll
  for (int op = 0; op < OPERANDS; ++op) base[op] = 0;
  long long batch = blockIdx.z;
#pragma unroll 1
  for (int d = 2; d < p.ndim; ++d) {
    const long long q = d + 1 < p.ndim ? batch / p.sizes[d] : 0, coord = batch - q * p.sizes[d];
    batch = q;
#pragma unroll
    for (int op = 0; op < OPERANDS; ++op) base[op] += coord * p.strides[op][d];
  }
  const int tx = threadIdx.x & 63, ty = threadIdx.x >> 6;
  const bool interior = r0 + 64 <= rows && c0 + 64 <= cols;
  unsigned slot = 0;
  short (*tile0)[65] = reinterpret_cast<short (*)[65]>(jitvec_tiles + slot);
  if ((tiled_mask >> 0) & 1u) {
    slot += 64 * 65 * sizeof(short);
    const short* src = in0 + base[0] + (r0 + tx) * p.strides[0][1] + (c0 + ty) * p.strides[0][0];
    const long long step = 4 * p.strides[0][0];
    if (interior) {
      short v[16];
#pragma unroll
      for (int j = 0; j < 16; ++j) v[j] = src[j * step];
#pragma unroll
      for (int j = 0; j < 16; ++j) tile0[ty + 4 * j][tx] = v[j];
    } else {
#pragma unroll 1
      for (int j = 0; j < 16; ++j)
        if (r0 + tx < rows && c0 + ty + 4 * j < cols) tile0[ty + 4 * j][tx] = src[j * step];
    }
  }
  short (*tile1)[65] = reinterpret_cast<short (*)[65]>(jitvec_tiles + slot);
  if ((tiled_mask >> 1) & 1u) {
    slot += 64 * 65 * sizeof(short);
    const short* src = in1 + base[1] + (r0 + tx) * p.strides[1][1] + (c0 + ty) * p.strides[1][0];
    const long long step = 4 * p.strides[1][0];
    if (interior) {
      short v[16];
#pragma unroll
      for (int j = 0; j < 16; ++j) v[j] = src[j * step];
#pragma unroll
      for (int j = 0; j < 16; ++j) tile1[ty + 4 * j][tx] = v[j];
    } else {
#pragma unroll 1
      for (int j = 0; j < 16; ++j)
        if (r0 + tx < rows && c0 + ty + 4 * j < cols) tile1[ty + 4 * j][tx] = src[j * step];
    }
  }
  __syncthreads();
  const long long r = r0 + ty, c = c0 + tx;
  const short* direct0 = in0 + base[0] + r * p.strides[0][1] + c * p.strides[0][0];
  const long long direct_step0 = 4 * p.strides[0][1];
  const short* direct1 = in1 + base[1] + r * p.strides[1][1] + c * p.strides[1][0];
  const long long direct_step1 = 4 * p.strides[1][1];
  auto* dst = out + base[OUT] + r * p.strides[OUT][1] + c * p.strides[OUT][0];
  const long long out_step = 4 * p.strides[OUT][1];
  if (interior) {
#pragma unroll
    for (int j = 0; j < 16; ++j) dst[j * out_step] = jitvec_apply((((tiled_mask >> 0) & 1u) ? tile0[tx][ty + 4 * j] : direct0[j * direct_step0]), (((tiled_mask >> 1) & 1u) ? tile1[tx][ty + 4 * j] : direct1[j * direct_step1]));
  } else {
#pragma unroll 1
    for (int j = 0; j < 16; ++j)
      if (r + 4 * j < rows && c < cols) dst[j * out_step] = jitvec_apply((((tiled_mask >> 0) & 1u) ? tile0[tx][ty + 4 * j] : direct0[j * direct_step0]), (((tiled_mask >> 1) & 1u) ? tile1[tx][ty + 4 * j] : direct1[j * direct_step1]));
  }
}
extern "C" __global__ void __launch_bounds__(256) jitvec_tiled_s2(const short* __restrict__ in0, const short s0, const short* __restrict__ in1, const short s1, short* __restrict__ out, const unsigned scalar_mask, const unsigned lane_mask, const jitvec_strided64_params p) {
  extern __shared__ __align__(16) unsigned char jitvec_tiles[];
  constexpr int OPERANDS = 3, OUT = OPERANDS - 1;
  const long long cols = p.sizes[0], rows = p.sizes[1];
  // blockIdx.x: the row tile, blockIdx.y: the column tile, blockIdx.z: the batch (the
  // dimensions past the first two, the outermost found without a division).
  const long long r0 = static_cast<long long>(blockIdx.x) * 64;
  const long long c0 = static_cast<long long>(blockIdx.y) * 64;
  long long base[OPERANDS];
#pragma unroll
  for (int op = 0; op < OPERANDS; ++op) base[op] = 0;
  long long batch = blockIdx.z;
#pragma unroll 1
  for (int d = 2; d < p.ndim; ++d) {
    const long long q = d + 1 < p.ndim ? batch / p.sizes[d] : 0, coord = batch - q * p.sizes[d];
    batch = q;
#pragma unroll
    for (int op = 0; op < OPERANDS; ++op) base[op] += coord * p.strides[op][d];
  }
  const int tx = threadIdx.x & 63, ty = threadIdx.x >> 6;
  const bool interior = r0 + 64 <= rows && c0 + 64 <= cols;
  unsigned slot = 0;
  short (*tile0)[65] = reinterpret_cast<short (*)[65]>(jitvec_tiles + slot);
  {
    slot += 64 * 65 * sizeof(short);
    const short* src = in0 + base[0] + (r0 + tx) * p.strides[0][1] + (c0 + ty) * p.strides[0][0];
    const long long step = 4 * p.strides[0][0];
    if (interior) {
      short v[16];
#pragma unroll
      for (int j = 0; j < 16; ++j) v[j] = src[j * step];
#pragma unroll
      for (int j = 0; j < 16; ++j) tile0[ty + 4 * j][tx] = v[j];
    } else {
#pragma unroll 1
      for (int j = 0; j < 16; ++j)
        if (r0 + tx < rows && c0 + ty + 4 * j < cols) tile0[ty + 4 * j][tx] = src[j * step];
    }
  }
  __syncthreads();
  const long long r = r0 + ty, c = c0 + tx;
  auto* dst = out + base[OUT] + r * p.strides[OUT][1] + c * p.strides[OUT][0];
  const long long out_step = 4 * p.strides[OUT][1];
  if (interior) {
#pragma unroll
    for (int j = 0; j < 16; ++j) dst[j * out_step] = jitvec_apply(tile0[tx][ty + 4 * j], s1);
  } else {
#pragma unroll 1
    for (int j = 0; j < 16; ++j)
      if (r + 4 * j < rows && c < cols) dst[j * out_step] = jitvec_apply(tile0[tx][ty + 4 * j], s1);
  }
}
extern "C" __global__ void __launch_bounds__(256) jitvec_nd_vec(const short* __restrict__ in0, const short s0, const short* __restrict__ in1, const short s1, short* __restrict__ out, const unsigned scalar_mask, const unsigned lane_mask, const jitvec_strided32_params p) {
  constexpr int BLOCK = 256, VEC = 8, UNROLL = 2, OPERANDS = 3, OUT = OPERANDS - 1;
  __shared__ int row_offsets[BLOCK][OPERANDS];
  const unsigned gather_mask = lane_mask;
  const unsigned tile = blockIdx.x * (BLOCK * UNROLL);
  const unsigned first = tile + threadIdx.x;
  int off[OPERANDS][UNROLL];
  // The rows this block's vectors lie in: when they are at most BLOCK, each thread locates one
  // (a division per outer dimension) and every vector finds its row's offsets in the table.
  const unsigned vectors_per_row = p.sizes[0];
  const unsigned first_row = (__umulhi(tile, p.magic[0]) + tile) >> p.shift[0];
  const unsigned last = min(tile + BLOCK * UNROLL, p.numel) - 1;
  const unsigned rows = ((__umulhi(last, p.magic[0]) + last) >> p.shift[0]) - first_row + 1;
  if (rows <= BLOCK) {
    if (threadIdx.x < rows) {
      unsigned rem = first_row + threadIdx.x;
      int row_off[OPERANDS];
#pragma unroll
      for (int op = 0; op < OPERANDS; ++op) row_off[op] = 0;
#pragma unroll 1
      for (int d = 1; d < 16; ++d) {
        if (d == p.ndim) break;
        const unsigned q = (__umulhi(rem, p.magic[d]) + rem) >> p.shift[d];
        const int coord = static_cast<int>(rem - q * p.sizes[d]);
        rem = q;
#pragma unroll
        for (int op = 0; op < OPERANDS; ++op) row_off[op] += coord * p.strides[op][d];
      }
#pragma unroll
      for (int op = 0; op < OPERANDS; ++op) row_offsets[threadIdx.x][op] = row_off[op];
    }
    __syncthreads();
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) {
      const unsigned v = first + u * BLOCK;
      const unsigned row = (__umulhi(v, p.magic[0]) + v) >> p.shift[0];
      const int column = static_cast<int>(v - row * vectors_per_row) * VEC;
      const unsigned slot = v < p.numel ? row - first_row : 0;
#pragma unroll
      for (int op = 0; op < OPERANDS; ++op) off[op][u] = row_offsets[slot][op] + column * p.strides[op][0];
    }
  } else {
    // Rows shorter than UNROLL vectors: each vector locates itself.
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) {
#pragma unroll
      for (int op = 0; op < OPERANDS; ++op) off[op][u] = 0;
      unsigned rem = first + u * BLOCK;
      if (rem >= p.numel) continue;
#pragma unroll 1
      for (int d = 0; d < 16; ++d) {
        if (d == p.ndim) break;
        const unsigned q = (__umulhi(rem, p.magic[d]) + rem) >> p.shift[d];
        const int coord = static_cast<int>(rem - q * p.sizes[d]) * (d == 0 ? VEC : 1);
        rem = q;
#pragma unroll
        for (int op = 0; op < OPERANDS; ++op) off[op][u] += coord * p.strides[op][d];
      }
    }
  }
  jitvec_detail::Vec<short, VEC> v0[UNROLL];
  if (!((scalar_mask >> 0) & 1u)) {
    const int step = p.strides[0][0];
    if (step == 0) {
#pragma unroll
      for (int u = 0; u < UNROLL; ++u) {
        if (first + u * BLOCK >= p.numel) break;
        const short same = in0[off[0][u]];
#pragma unroll
        for (int e = 0; e < VEC; ++e) v0[u].v[e] = same;
      }
    } else if ((gather_mask >> 0) & 1u) {
#pragma unroll
      for (int u = 0; u < UNROLL; ++u) {
        if (first + u * BLOCK >= p.numel) break;
#pragma unroll
        for (int e = 0; e < VEC; ++e) v0[u].v[e] = in0[off[0][u] + e * step];
      }
    } else {
#pragma unroll
      for (int u = 0; u < UNROLL; ++u)
        if (first + u * BLOCK < p.numel) v0[u] = *reinterpret_cast<const jitvec_detail::Vec<short, VEC>*>(in0 + off[0][u]);
    }
  }
  jitvec_detail::Vec<short, VEC> v1[UNROLL];
  if (!((scalar_mask >> 1) & 1u)) {
    const int step = p.strides[1][0];
    if (step == 0) {
#pragma unroll
      for (int u = 0; u < UNROLL; ++u) {
        if (first + u * BLOCK >= p.numel) break;
        const short same = in1[off[1][u]];
#pragma unroll
        for (int e = 0; e < VEC; ++e) v1[u].v[e] = same;
      }
    } else if ((gather_mask >> 1) & 1u) {
#pragma unroll
      for (int u = 0; u < UNROLL; ++u) {
        if (first + u * BLOCK >= p.numel) break;
#pragma unroll
        for (int e = 0; e < VEC; ++e) v1[u].v[e] = in1[off[1][u] + e * step];
      }
    } else {
#pragma unroll
      for (int u = 0; u < UNROLL; ++u)
        if (first + u * BLOCK < p.numel) v1[u] = *reinterpret_cast<const jitvec_detail::Vec<short, VEC>*>(in1 + off[1][u]);
    }
  }
#pragma unroll
  for (int u = 0; u < UNROLL; ++u) {
    if (first + u * BLOCK >= p.numel) break;
    jitvec_detail::Vec<short, VEC> r;
#pragma unroll
    for (int e = 0; e < VEC; ++e) r.v[e] = jitvec_apply(((scalar_mask >> 0) & 1u ? s0 : v0[u].v[e]), ((scalar_mask >> 1) & 1u ? s1 : v1[u].v[e]));
    *reinterpret_cast<jitvec_detail::Vec<short, VEC>*>(out + off[OUT][u]) = r;
  }
}

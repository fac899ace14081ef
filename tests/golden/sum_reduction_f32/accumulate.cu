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
  template <class T> struct is_int { enum : bool { value = false }; };
  template <> struct is_int<bool> { enum : bool { value = true }; };
  template <> struct is_int<char> { enum : bool { value = true }; };
  template <> struct is_int<signed char> { enum : bool { value = true }; };
  template <> struct is_int<unsigned char> { enum : bool { value = true }; };
  template <> struct is_int<short> { enum : bool { value = true }; };
  template <> struct is_int<unsigned short> { enum : bool { value = true }; };
  template <> struct is_int<int> { enum : bool { value = true }; };
  template <> struct is_int<unsigned int> { enum : bool { value = true }; };
  template <> struct is_int<long> { enum : bool { value = true }; };
  template <> struct is_int<unsigned long> { enum : bool { value = true }; };
  template <> struct is_int<long long> { enum : bool { value = true }; };
  template <> struct is_int<unsigned long long> { enum : bool { value = true }; };
  template <class T> struct is_arith { enum : bool { value = is_int<T>::value }; };
  template <> struct is_arith<float> { enum : bool { value = true }; };
  template <> struct is_arith<double> { enum : bool { value = true }; };
  template <class T> struct is_real { enum : bool { value = is_arith<T>::value }; };
}  // namespace jitvec_types
namespace jitvec_types {

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
  template <> struct is_real<__half> { enum : bool { value = true }; };
  template <> struct is_real<__nv_bfloat16> { enum : bool { value = true }; };
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
  // a's or b m's last bit), so any float within 1 ulp of it that reproduces midpoints exactly
  // rounds to the same half as the IEEE float quotient. This one is a times 1/b as two floats,
  // hi + lo, summed by one fma: hi is the approximate reciprocal (1 float ulp) scaled by
  // 1 - 2^-21, so that |hi| < |1/b| and the residual e = 1 - b hi is positive (2^-22 to 2^-20),
  // and lo = hi e; hi + lo is 1/b to 2^-40, and a hi + a lo is a/b to 2^-39, rounded once.
  // Everything but the last fma and product depends on b alone, so for a divisor shared by the
  // elements (a scalar, sigma) each element costs one FMUL and one FFMA; a divisor per element
  // costs 3 more (the reciprocal's two products and the max) than the compare-and-correct
  // formula (bench/NOTES.md, session 6). Signs and specials are IEEE's without a compare: lo has
  // hi's sign and is never zero for a finite nonzero b, so a zero or infinite a gives products
  // of one sign (+-0, +-inf); b = +-0 or +-inf makes e NaN, which fmaxf turns into 2^-40, so
  // lo = hi 2^-40 is +-inf or +-0 with hi's sign and a hi + a lo is IEEE's a/b (0/0, inf/inf
  // NaN, x/0 infinite, x/inf zero); a NaN stays NaN. Products stay normal (|lo| >= 2^-38).
  JITVEC_FN __half arith_div(const __half& a, const __half& b) {
#ifdef __CUDA_ARCH__
    const float fa = float(a), fb = float(b);
    float r;
    asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(fb));
    const float hi = __fmul_rn(r, 0.99999952316284179688f);  // 1 - 2^-21
    const float lo = __fmul_rn(hi, fmaxf(__fmaf_rn(-fb, hi, 1.0f), 0x1p-40f));
    return __half(__fmaf_rn(fa, hi, __fmul_rn(fa, lo)));
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
  JITVEC_SMALL_FLOAT_MATH1(H, sqrt) JITVEC_SMALL_FLOAT_MATH1(H, exp2)                                \
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
// exp of a half: NumPy's float32 expf rounded to half. On the GPU without expf's range
// reduction (8 instructions): ex2.approx.ftz of the float product x * log2(e), then cvt.rn, as
// CUDA's hexp computes it. A half has 65536 values, and this gives NumPy's bits (glibc's expf,
// then one rounding) for every one but two, whose ex2 lies just under a half midpoint that the
// exact value passes: those two inputs take the result up by 2^-20 of itself (then above the
// midpoint, far below the next). tests/gpu/test_gpu_half.cpp checks every input against the
// host; tests/unit/test_half_native.cpp checks the product's rounding against the exact value
// and lists every input whose value lies as near a midpoint as ex2's error (bench/NOTES.md,
// session 6). ex2 of a large negative product flushes to +0 (ftz), as the half result would.
JITVEC_FN __half exp(const __half& a) {
#ifdef __CUDA_ARCH__
  const float f = jitvec_types::f16_to_f32(a.__x);
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(__fmul_rn(f, 1.44269502162933349609375f)));
  if (f == -2.615234375f || f == -2.966796875f) y = __fmul_rn(y, 1.00000095367431640625f);  // 0xc13b, 0xc1ef
  return jitvec_types::as_half(jitvec_types::f32_to_f16(y));
#else
  return __half(exp(float(a)));
#endif
}
JITVEC_SMALL_FLOAT_MATH1(__nv_bfloat16, exp)
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
}  // namespace jitvec
namespace jitvec {

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
#line 1 "ufunc:golden_sum"
template <typename T> __device__ T golden_sum(T a, T b) { return a + b; }
#line 1 "jitvec-generated-loop"
namespace jitvec_detail {
__device__ __forceinline__ float jitvec_apply(float a0, float a1) {
  return static_cast<float>(golden_sum(a0, a1));
}
}  // namespace jitvec_detail
using jitvec_detail::jitvec_apply;
typedef float jitvec_in_t;
typedef float jitvec_acc_t;
typedef float jitvec_out_t;
struct jitvec_reduction_params {
  const void* in;
  void* out;
  void* work;
  long long outputs, length, chunk, chunks, out_ndim, red_ndim, final_pass, has_init;
  unsigned long long init_bits[2];
  long long axis_out_stride, vectorized;
  long long out_sizes[16], out_in_strides[16], out_out_strides[16];
  long long red_sizes[16], red_strides[16];
};
static_assert(sizeof(jitvec_reduction_params) == 760, "jitvec_reduction_params differs from kernels::ReductionParams");
// The offset of flat index i over dimensions given innermost first.
__device__ __forceinline__ long long jitvec_offset(const long long* sizes, const long long* strides, long long ndim, long long i) {
  long long off = 0;
  for (long long d = 0; d < ndim; ++d) {
    const long long c = i % sizes[d];
    i /= sizes[d];
    off += c * strides[d];
  }
  return off;
}
__device__ __forceinline__ long long jitvec_red_offset(const jitvec_reduction_params& p, long long r) {
  return p.red_ndim == 1 ? r * p.red_strides[0] : jitvec_offset(p.red_sizes, p.red_strides, p.red_ndim, r);
}
__device__ __forceinline__ jitvec_acc_t jitvec_init(const jitvec_reduction_params& p) {
  jitvec_acc_t v;
  const unsigned char* from = reinterpret_cast<const unsigned char*>(p.init_bits);
  unsigned char* to = reinterpret_cast<unsigned char*>(&v);
  for (int i = 0; i < static_cast<int>(sizeof(v)); ++i) to[i] = from[i];
  return v;
}
// A result: this pass's partial, or (final pass) init folded in front, stored as the output type.
__device__ __forceinline__ void jitvec_reduce_store(const jitvec_reduction_params& p, long long o, long long partial, bool any, jitvec_acc_t acc) {
  if (!p.final_pass) {
    static_cast<jitvec_acc_t*>(p.out)[partial] = acc;
    return;
  }
  const jitvec_acc_t r = !any ? jitvec_init(p) : p.has_init ? jitvec_apply(jitvec_init(p), acc) : acc;
  static_cast<jitvec_out_t*>(p.out)[jitvec_offset(p.out_sizes, p.out_out_strides, p.out_ndim, o)] = static_cast<jitvec_out_t>(r);
}
// A value moved between the lanes of a warp 32 bits at a time by `shuffle` (a __shfl_*_sync of
// one word): any accumulator type.
template <typename T, typename Shuffle> __device__ __forceinline__ T jitvec_shfl_words(const T& v, Shuffle shuffle) {
  T r = v;
  if constexpr (sizeof(T) % 4 == 0) {
    unsigned int* w = reinterpret_cast<unsigned int*>(&r);
#pragma unroll
    for (int i = 0; i < static_cast<int>(sizeof(T) / 4); ++i) w[i] = shuffle(w[i]);
  } else {  // 1 or 2 bytes
    unsigned char* b = reinterpret_cast<unsigned char*>(&r);
    unsigned int word = 0;
#pragma unroll
    for (int i = 0; i < static_cast<int>(sizeof(T)); ++i) word |= static_cast<unsigned int>(b[i]) << (8 * i);
    word = shuffle(word);
#pragma unroll
    for (int i = 0; i < static_cast<int>(sizeof(T)); ++i) b[i] = static_cast<unsigned char>(word >> (8 * i));
  }
  return r;
}
// From `delta` lanes below (__shfl_up_sync), and from lane `src` (__shfl_sync).
template <typename T> __device__ __forceinline__ T jitvec_shfl_up(const T& v, int delta) {
  return jitvec_shfl_words(v, [delta](unsigned int w) { return __shfl_up_sync(0xffffffffu, w, delta); });
}
template <typename T> __device__ __forceinline__ T jitvec_shfl(const T& v, int src) {
  return jitvec_shfl_words(v, [src](unsigned int w) { return __shfl_sync(0xffffffffu, w, src); });
}
template <typename T> __device__ __forceinline__ T jitvec_shfl_down(const T& v, int delta) {
  return jitvec_shfl_words(v, [delta](unsigned int w) { return __shfl_down_sync(0xffffffffu, w, delta); });
}

// One row of a tile. Thread t holds x[0..m) (its VEC elements; m = 0 past the row's end), and
// the `active` threads that hold any are a prefix of the block. On return x[j] is the thread's
// inclusive fold up to j, `excl` the fold of the row's elements before the thread's first
// (none for thread 0), `total` the row's fold. `sums`: one value a warp, in shared memory.
template <int VEC>
__device__ __forceinline__ void jitvec_scan_row(jitvec_acc_t (&x)[VEC], int m, int active, jitvec_acc_t* sums,
                                                jitvec_acc_t& excl, jitvec_acc_t& total) {
  const int t = threadIdx.x, lane = t & 31, warp = t >> 5;
  jitvec_acc_t s = x[0];
#pragma unroll
  for (int j = 1; j < VEC; ++j) {
    if (j < m) {
      x[j] = jitvec_apply(s, x[j]);
      s = x[j];
    }
  }
#pragma unroll
  for (int d = 1; d < 32; d *= 2) {
    const jitvec_acc_t y = jitvec_shfl_up(s, d);
    if (lane >= d && m > 0) s = jitvec_apply(y, s);
  }
  const jitvec_acc_t before = jitvec_shfl_up(s, 1);
  if (m > 0 && (lane == 31 || t == active - 1)) sums[warp] = s;
  __syncthreads();
  const int warps = (active + 31) >> 5;
  jitvec_acc_t run = sums[0];
  jitvec_acc_t wx = run;
#pragma unroll
  for (int i = 1; i < 8; ++i) {
    if (i < warps) {
      if (i == warp) wx = run;
      run = jitvec_apply(run, sums[i]);
    }
  }
  total = run;
  excl = lane == 0 ? wx : warp > 0 ? jitvec_apply(wx, before) : before;
}

// The tiles' status (kernels/scan.hpp): after the counter, a slot for every aligned range of
// every line. Accumulators of at most 4 bytes: one 64-bit word a slot, (value bits << 32) | 1,
// stored and read whole. Wider: a 32-bit flag a slot, then the values; the value is stored,
// fenced, then flagged, and read after the flag and a fence. Reads are volatile (from L2: an
// SM's L1 may hold a stale line).
struct jitvec_scan_status {
  unsigned char* base;  // the slots: p.work + the counter's bytes
  long long slots;      // every line's
  long long per_line;   // one line's: 2 tiles - popcount(tiles)
  long long tiles;      // a line's
};

// The slot of the aligned range of 2^level tiles whose last tile is `last`, in line `line`:
// the levels below take sum_{l < level} floor(tiles / 2^l) = F(tiles) - F(tiles >> level) slots
// (F(x) = 2x - popcount(x)).
__device__ __forceinline__ long long jitvec_scan_slot(const jitvec_scan_status& s, long long line, int level, long long last) {
  const long long high = s.tiles >> level;
  const long long below = 2 * s.tiles - __popcll(s.tiles) - 2 * high + __popcll(high);
  return line * s.per_line + below + ((last + 1) >> level) - 1;
}

template <typename T> __device__ __forceinline__ unsigned char* jitvec_scan_values(const jitvec_scan_status& s) {
  return s.base + ((4 * s.slots + 15) / 16) * 16;
}

template <typename T> __device__ __forceinline__ void jitvec_scan_publish(const jitvec_scan_status& s, long long slot, const T& v) {
  if constexpr (sizeof(T) <= 4) {
    unsigned int bits = 0;
    if constexpr (sizeof(T) == 4) {
      bits = *reinterpret_cast<const unsigned int*>(&v);
    } else {
#pragma unroll
      for (int i = 0; i < static_cast<int>(sizeof(T)); ++i) bits |= static_cast<unsigned int>(reinterpret_cast<const unsigned char*>(&v)[i]) << (8 * i);
    }
    reinterpret_cast<volatile unsigned long long*>(s.base)[slot] = (static_cast<unsigned long long>(bits) << 32) | 1ull;
  } else {
    volatile unsigned int* value = reinterpret_cast<volatile unsigned int*>(jitvec_scan_values<T>(s) + slot * sizeof(T));
#pragma unroll
    for (int i = 0; i < static_cast<int>(sizeof(T) / 4); ++i) value[i] = reinterpret_cast<const unsigned int*>(&v)[i];
    __threadfence();
    reinterpret_cast<volatile unsigned int*>(s.base)[slot] = 1u;
  }
}

__device__ __forceinline__ void jitvec_scan_pause() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700
  __nanosleep(32);
#endif
}

// One read of `slot`: true and its value in `v` when it is published.
template <typename T> __device__ __forceinline__ bool jitvec_scan_try(const jitvec_scan_status& s, long long slot, T& v) {
  if constexpr (sizeof(T) <= 4) {
    const unsigned long long w = reinterpret_cast<const volatile unsigned long long*>(s.base)[slot];
    if (!(w & 1ull)) return false;
    const unsigned int bits = static_cast<unsigned int>(w >> 32);
    if constexpr (sizeof(T) == 4) {
      *reinterpret_cast<unsigned int*>(&v) = bits;
    } else {
#pragma unroll
      for (int i = 0; i < static_cast<int>(sizeof(T)); ++i) reinterpret_cast<unsigned char*>(&v)[i] = static_cast<unsigned char>(bits >> (8 * i));
    }
  } else {
    if (reinterpret_cast<const volatile unsigned int*>(s.base)[slot] == 0u) return false;
    __threadfence();
    const volatile unsigned int* value = reinterpret_cast<const volatile unsigned int*>(jitvec_scan_values<T>(s) + slot * sizeof(T));
#pragma unroll
    for (int i = 0; i < static_cast<int>(sizeof(T) / 4); ++i) reinterpret_cast<unsigned int*>(&v)[i] = value[i];
  }
  return true;
}

// Warp 0 of tile k of `line`, whose aggregate is `a`: publishes A(k), returns P(k-1) (k > 0) and
// publishes every aligned range ending at k. Every value is the tree's (kernels/scan.hpp), but
// the ranges that end among the last tiles are rebuilt here from those tiles' aggregates rather
// than waited for: with the windows of W = 2^LOG_B tiles, B = [k0, k0 + W) holding k and the
// one before it, k's digits below W are nodes of a tree over B's aggregates (AGG a lane, joined
// in the lane, then by shuffles); its smallest higher digit, the range ending at k0 - 1, is its
// halves: ranges of W, 2W, ... tiles ending at least W tiles before k0 (read) around the
// previous window's tree; its larger digits are read. So a tile waits for its neighbours'
// aggregates (published as soon as they are loaded) and for ranges published by tiles that
// started at least W tiles earlier, whose look-backs have long ended: a chain of look-backs
// advances W tiles a look-back, more than the GPU starts meanwhile. The line's last tile
// publishes nothing (no tile reads it).
template <int LOG_B>
__device__ __forceinline__ jitvec_acc_t jitvec_scan_look_back(const jitvec_scan_status& s, long long line, long long k, const jitvec_acc_t& a) {
  constexpr int W = 1 << LOG_B, A = LOG_B - 5, AGG = 1 << A;  // tiles a window; AGG = 2^A aggregates a lane
  const int lane = threadIdx.x & 31;
  const bool publishes = k + 1 < s.tiles;
  if (publishes && lane == 0) jitvec_scan_publish(s, jitvec_scan_slot(s, line, 0, k), a);
  const long long k0 = (k >> LOG_B) << LOG_B;
  const int low = static_cast<int>(k - k0);
  const unsigned int high = static_cast<unsigned int>(k >> LOG_B);
  const int highs = __popc(high);                // k's digits of W tiles and more
  const int spine = high ? __ffs(high) - 1 : 0;  // the smallest one is W * 2^spine tiles
  // One round of reads: the aggregates of the two windows below k (unused ones stand in as a),
  // and one range a lane: k's larger digits (lanes 0 .. highs-2, largest first), then the
  // halves of the smallest one (lanes highs-1 .., largest first).
  jitvec_acc_t cur[AGG], prev[AGG], range = a;
  bool r_cur[AGG], r_prev[AGG], r_range = true;
  const long long c0 = k0 + AGG * lane, p0 = k0 - W + AGG * lane;
#pragma unroll
  for (int j = 0; j < AGG; ++j) {
    cur[j] = a;
    prev[j] = a;
    r_cur[j] = c0 + j >= k;
    r_prev[j] = high == 0;
  }
  long long slot_range = 0;
  if (lane < highs - 1) {
    unsigned int rest = high;  // the lane-th highest digit: drop the `lane` above it
    for (int l = 0; l < lane; ++l) rest &= ~(1u << (31 - __clz(rest)));
    const int level = 31 - __clz(rest);
    const long long first = static_cast<long long>(high & ~((2u << level) - 1u)) << LOG_B;
    slot_range = jitvec_scan_slot(s, line, level + LOG_B, first + (static_cast<long long>(W) << level) - 1);
    r_range = false;
  } else if (high && lane < highs - 1 + spine) {
    const int level = spine - 1 - (lane - (highs - 1));  // a half of W * 2^level tiles ending at k0 - W * 2^level - 1
    slot_range = jitvec_scan_slot(s, line, level + LOG_B, k0 - (static_cast<long long>(W) << level) - 1);
    r_range = false;
  }
  auto read_unpublished = [&] {
#pragma unroll
    for (int j = 0; j < AGG; ++j) {
      if (!r_cur[j]) r_cur[j] = jitvec_scan_try(s, jitvec_scan_slot(s, line, 0, c0 + j), cur[j]);
    }
#pragma unroll
    for (int j = 0; j < AGG; ++j) {
      if (!r_prev[j]) r_prev[j] = jitvec_scan_try(s, jitvec_scan_slot(s, line, 0, p0 + j), prev[j]);
    }
    if (!r_range) r_range = jitvec_scan_try(s, slot_range, range);
  };
  auto all_read = [&] {
    bool all = r_range;
#pragma unroll
    for (int j = 0; j < AGG; ++j) all = all && r_cur[j] && r_prev[j];
    return all;
  };
  read_unpublished();
  // Then every slot still unpublished is read again, all together, until none is left (one
  // round trip a retry, however many a lane waits for).
  while (!all_read()) {
    jitvec_scan_pause();
    read_unpublished();
  }
  __syncwarp();
  // The current window's nodes for k's digits below W (level b: the aligned range of 2^b tiles
  // at k0 + the digits of low above b), each sent to every lane. Levels below A are inside a
  // lane (node `index` of lane base / AGG); level A is a lane's AGG aggregates; higher levels
  // join lanes: level b's node q sits in lane q * 2^(b - A).
  jitvec_acc_t small[LOG_B];
#pragma unroll
  for (int b = 0; b < A; ++b) {
    const int base = low & ~((2 << b) - 1);
    const int index = (base & (AGG - 1)) >> b;  // the same in every lane
    jitvec_acc_t pick = cur[0];
#pragma unroll
    for (int j = 1; j < (AGG >> b); ++j) {
      if (j == index) pick = cur[j];
    }
    small[b] = jitvec_shfl(pick, base >> A);
#pragma unroll
    for (int j = 0; j < (AGG >> (b + 1)); ++j) cur[j] = jitvec_apply(cur[2 * j], cur[2 * j + 1]);
  }
  jitvec_acc_t node = cur[0];
  small[A] = jitvec_shfl(node, (low & ~((2 << A) - 1)) >> A);
#pragma unroll
  for (int b = A + 1; b < LOG_B; ++b) {
    node = jitvec_apply(node, jitvec_shfl_down(node, 1 << (b - A - 1)));
    small[b] = jitvec_shfl(node, (low & ~((2 << b) - 1)) >> A);
  }
  // The smallest higher digit: the previous window's tree, then its halves, smallest first.
  jitvec_acc_t smallest_high = a;
  if (high) {
#pragma unroll
    for (int b = 0; b < A; ++b) {
#pragma unroll
      for (int j = 0; j < (AGG >> (b + 1)); ++j) prev[j] = jitvec_apply(prev[2 * j], prev[2 * j + 1]);
    }
    jitvec_acc_t t = prev[0];
#pragma unroll
    for (int d = 1; d < 32; d *= 2) t = jitvec_apply(t, jitvec_shfl_down(t, d));
    smallest_high = jitvec_shfl(t, 0);
    for (int i = 0; i < spine; ++i) smallest_high = jitvec_apply(jitvec_shfl(range, highs - 1 + spine - 1 - i), smallest_high);
  }
  // k's digits, largest first: the larger higher ones, the smallest higher one, the small ones.
  auto high_term = [&](int j) { return j == highs - 1 ? smallest_high : jitvec_shfl(range, j); };
  jitvec_acc_t prefix = a;
  bool has_prefix = false;
  for (int j = 0; j < highs; ++j) {
    const jitvec_acc_t v = high_term(j);
    prefix = has_prefix ? jitvec_apply(prefix, v) : v;
    has_prefix = true;
  }
#pragma unroll
  for (int b = LOG_B - 1; b >= 0; --b) {
    if (low & (1 << b)) {
      prefix = has_prefix ? jitvec_apply(prefix, small[b]) : small[b];
      has_prefix = true;
    }
  }
  if (publishes) {
    // The ranges ending at k: level i joins its left half, k's digit 2^(i-1), with level i-1.
    const int levels = __ffs(~static_cast<unsigned int>(k)) - 1;
    jitvec_acc_t joined = a;
    for (int i = 1; i <= levels; ++i) {
      const int digit = i - 1;
      const jitvec_acc_t half = digit < LOG_B ? small[digit < LOG_B ? digit : 0] : high_term(__popc(high >> (digit - LOG_B + 1)));
      joined = jitvec_apply(half, joined);
      if (lane == 0) jitvec_scan_publish(s, jitvec_scan_slot(s, line, i, k), joined);
    }
  }
  return prefix;
}

// Thread t's elements of one row into its 16 bytes of the tile's stage in shared memory: an
// asynchronous 16-byte copy (cp.async, sm_80 on; waited for by jitvec_scan_stage_wait) when
// `vec`, else loaded one by one and stored.
template <typename InT, int VEC>
__device__ __forceinline__ void jitvec_scan_stage(jitvec_detail::Vec<InT, VEC>* slot, const InT* in, long long first, int m,
                                                  long long s_in, bool vec) {
  if (vec) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    const unsigned int to = static_cast<unsigned int>(__cvta_generic_to_shared(slot));
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(to), "l"(in + first) : "memory");
#else
    *slot = *reinterpret_cast<const jitvec_detail::Vec<InT, VEC>*>(in + first);
#endif
  } else {
    jitvec_detail::Vec<InT, VEC> r;
#pragma unroll
    for (int e = 0; e < VEC; ++e) {
      if (e < m) r.v[e] = in[(first + e) * s_in];
    }
    *slot = r;
  }
}

// Waits for this thread's copies of jitvec_scan_stage (each thread reads back only its own).
__device__ __forceinline__ void jitvec_scan_stage_wait() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_all;\n" ::: "memory");
#endif
}

// One tile (kernels/scan.hpp), in three steps: jitvec_scan_tile_rows stages it in shared memory
// (ROWS x 16 bytes a thread, all copies in flight together) and scans its rows from no carry,
// giving A(k); the kernel's warp 0 then publishes A(k) and finds P(k-1) when the line has
// several tiles (p.work: the status); jitvec_scan_tile_write writes each element with the carry
// in front. Accumulators of up to 8 bytes keep each thread's exclusive prefixes in registers and
// the rows' sums in shared memory between the steps; wider ones scan the rows again from the
// stage. FULL: the tile has TILE elements (every tile but a line's last) and is read and written
// 16 bytes at a time, so that every count is a constant and the bounds checks fold away; the
// folds are the same either way.
template <typename InT>
struct jitvec_scan_tile_shape {
  static constexpr int BLOCK = 256, ROWS = 10, VEC = 16 / sizeof(InT), ROW = BLOCK * VEC, TILE = ROWS * ROW;
  static constexpr bool KEEP = sizeof(jitvec_acc_t) <= 8;
};

// Row u of a tile of `len` elements from the stage: thread t's inclusive folds in x (m of them),
// its exclusive prefix and the row's sum.
template <typename InT, bool FULL>
__device__ __forceinline__ void jitvec_scan_tile_row(const jitvec_detail::Vec<InT, 16 / sizeof(InT)>* stage, int len, int u,
                                                     jitvec_acc_t (&x)[16 / sizeof(InT)], int& m, jitvec_acc_t* sums,
                                                     jitvec_acc_t& excl, jitvec_acc_t& total) {
  using S = jitvec_scan_tile_shape<InT>;
  const int t = threadIdx.x;
  const int row_len = FULL ? S::ROW : len - u * S::ROW;  // the same in every thread, > 0
  const int active = FULL ? S::BLOCK : row_len < S::ROW ? (row_len + S::VEC - 1) / S::VEC : S::BLOCK;
  m = FULL ? S::VEC : row_len - t * S::VEC;
  m = m < 0 ? 0 : m > S::VEC ? S::VEC : m;
  if (m > 0) {
    const jitvec_detail::Vec<InT, S::VEC> r = stage[u * S::BLOCK + t];
#pragma unroll
    for (int e = 0; e < S::VEC; ++e) {
      if (e < m) x[e] = static_cast<jitvec_acc_t>(r.v[e]);
    }
  }
  jitvec_scan_row<S::VEC>(x, m, active, sums + (u & 1) * (S::BLOCK / 32), excl, total);
}

// Stages tile k of `line` (`len` elements) and scans its rows from no carry: each thread's
// exclusive prefixes in excl and the rows' sums in totals (KEEP); returns A(k).
template <typename InT, bool FULL>
__device__ __forceinline__ jitvec_acc_t jitvec_scan_tile_rows(const jitvec_reduction_params& p, long long line, long long k, int len,
                                                              jitvec_detail::Vec<InT, 16 / sizeof(InT)>* stage, jitvec_acc_t* sums,
                                                              jitvec_acc_t* totals, jitvec_acc_t (&excl)[10]) {
  using S = jitvec_scan_tile_shape<InT>;
  const int t = threadIdx.x;
  if (FULL) len = S::TILE;
  const long long start = k * S::TILE;
  const InT* in = static_cast<const InT*>(p.in) + jitvec_offset(p.out_sizes, p.out_in_strides, p.out_ndim, line);
  const bool vec_in = FULL;
#pragma unroll
  for (int u = 0; u < S::ROWS; ++u) {
    int m = FULL ? S::VEC : len - u * S::ROW - t * S::VEC;
    m = m < 0 ? 0 : m > S::VEC ? S::VEC : m;
    if (m > 0) jitvec_scan_stage<InT, S::VEC>(&stage[u * S::BLOCK + t], in, start + static_cast<long long>(u) * S::ROW + static_cast<long long>(t) * S::VEC, m, p.red_strides[0], vec_in);
  }
  jitvec_scan_stage_wait();
  jitvec_acc_t a;
#pragma unroll
  for (int u = 0; u < S::ROWS; ++u) {
    if (len <= u * S::ROW) break;
    jitvec_acc_t x[S::VEC], e_u, t_u;
    int m;
    jitvec_scan_tile_row<InT, FULL>(stage, len, u, x, m, sums, e_u, t_u);
    if (S::KEEP) {
      excl[u] = e_u;
      if (t == 0) totals[u] = t_u;
    }
    a = u == 0 ? t_u : jitvec_apply(a, t_u);
  }
  return a;
}

// Writes tile k of `line` (`len` elements) from the stage: each row's elements with the carry in
// front (P(k-1) when has_carry, then the rows' sums chained).
template <typename InT, typename OutT, bool FULL>
__device__ __forceinline__ void jitvec_scan_tile_write(const jitvec_reduction_params& p, long long line, long long k, int len,
                                                       const jitvec_detail::Vec<InT, 16 / sizeof(InT)>* stage, jitvec_acc_t* sums,
                                                       const jitvec_acc_t* totals, const jitvec_acc_t (&excl)[10],
                                                       bool has_carry, jitvec_acc_t carry) {
  using S = jitvec_scan_tile_shape<InT>;
  constexpr int VEC = S::VEC, OUT_VEC = 16 / sizeof(OutT);
  constexpr bool OUT_FITS = (VEC * sizeof(OutT)) % 16 == 0;
  const int t = threadIdx.x;
  if (FULL) len = S::TILE;
  const long long start = k * S::TILE;
  OutT* out = static_cast<OutT*>(p.out) + jitvec_offset(p.out_sizes, p.out_out_strides, p.out_ndim, line);
  const long long s_out = p.axis_out_stride;
  const bool vec_out = FULL && OUT_FITS;
#pragma unroll
  for (int u = 0; u < S::ROWS; ++u) {
    if (len <= u * S::ROW) break;
    jitvec_acc_t x[VEC], e_u, t_u;
    int m;
    if (S::KEEP) {
      // The thread's inclusive folds again (the same applies as jitvec_scan_row's first loop).
      m = FULL ? VEC : len - u * S::ROW - t * VEC;
      m = m < 0 ? 0 : m > VEC ? VEC : m;
      if (m > 0) {
        const jitvec_detail::Vec<InT, VEC> r = stage[u * S::BLOCK + t];
        x[0] = static_cast<jitvec_acc_t>(r.v[0]);
#pragma unroll
        for (int e = 1; e < VEC; ++e) {
          if (e < m) x[e] = jitvec_apply(x[e - 1], static_cast<jitvec_acc_t>(r.v[e]));
        }
      }
      e_u = excl[u];
      t_u = totals[u];
    } else {
      jitvec_scan_tile_row<InT, FULL>(stage, len, u, x, m, sums, e_u, t_u);
    }
    if (m > 0) {
      const long long first = start + static_cast<long long>(u) * S::ROW + static_cast<long long>(t) * VEC;
      const bool has_excl = t > 0;
      if (has_carry || has_excl) {
        const jitvec_acc_t c = has_carry && has_excl ? jitvec_apply(carry, e_u) : has_carry ? carry : e_u;
#pragma unroll
        for (int e = 0; e < VEC; ++e) {
          if (e < m) x[e] = jitvec_apply(c, x[e]);
        }
      }
      if constexpr (OUT_FITS) {
        if (vec_out) {
          jitvec_detail::Vec<OutT, OUT_VEC>* w = reinterpret_cast<jitvec_detail::Vec<OutT, OUT_VEC>*>(out + first);
#pragma unroll
          for (int q = 0; q < VEC / OUT_VEC; ++q) {
            jitvec_detail::Vec<OutT, OUT_VEC> y;
#pragma unroll
            for (int e = 0; e < OUT_VEC; ++e) y.v[e] = static_cast<OutT>(x[q * OUT_VEC + e]);
            w[q] = y;
          }
        }
      }
      if (!vec_out) {
#pragma unroll
        for (int e = 0; e < VEC; ++e) {
          if (e < m) out[(first + e) * s_out] = static_cast<OutT>(x[e]);
        }
      }
    }
    carry = has_carry ? jitvec_apply(carry, t_u) : t_u;
    has_carry = true;
  }
}

// The lines kind: thread i folds chunk k = i / outputs of line i % outputs.
template <typename InT, typename OutT, bool APPLY>
__device__ __forceinline__ void jitvec_scan_line_body(const jitvec_reduction_params& p) {
  constexpr int UNROLL = 8;
  const long long item = static_cast<long long>(blockIdx.x) * 256 + threadIdx.x;
  if (item >= p.outputs * p.chunks) return;
  const long long k = item / p.outputs, line = item - k * p.outputs;
  const long long start = k * p.chunk;
  const long long len = p.length - start < p.chunk ? p.length - start : p.chunk;
  const long long s_in = p.red_strides[0], s_out = p.axis_out_stride;
  const InT* q = static_cast<const InT*>(p.in) + jitvec_offset(p.out_sizes, p.out_in_strides, p.out_ndim, line) + start * s_in;
  OutT* w = static_cast<OutT*>(p.out);
  if (APPLY) w += jitvec_offset(p.out_sizes, p.out_out_strides, p.out_ndim, line) + start * s_out;
  const bool has_prefix = APPLY && k > 0 && p.work;
  jitvec_acc_t prefix;
  if (has_prefix) prefix = static_cast<const jitvec_acc_t*>(p.work)[item - p.outputs];
  jitvec_acc_t run = static_cast<jitvec_acc_t>(q[0]);
  if (APPLY) w[0] = static_cast<OutT>(has_prefix ? jitvec_apply(prefix, run) : run);
  long long i = 1;
  for (; i + UNROLL <= len; i += UNROLL) {
    InT v[UNROLL];
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) v[u] = q[(i + u) * s_in];
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) {
      run = jitvec_apply(run, static_cast<jitvec_acc_t>(v[u]));
      if (APPLY) w[(i + u) * s_out] = static_cast<OutT>(has_prefix ? jitvec_apply(prefix, run) : run);
    }
  }
  for (; i < len; ++i) {
    run = jitvec_apply(run, static_cast<jitvec_acc_t>(q[i * s_in]));
    if (APPLY) w[i * s_out] = static_cast<OutT>(has_prefix ? jitvec_apply(prefix, run) : run);
  }
  if (!APPLY) static_cast<jitvec_acc_t*>(p.out)[item] = run;
}

extern "C" __global__ void __launch_bounds__(256, sizeof(jitvec_acc_t) <= 4 ? 5 : sizeof(jitvec_acc_t) <= 8 ? 4 : 2)
    jitvec_scan_tiles(const jitvec_reduction_params p) {
  using S = jitvec_scan_tile_shape<jitvec_in_t>;
  __shared__ jitvec_detail::Vec<jitvec_in_t, S::VEC> stage[S::ROWS * S::BLOCK];
  __shared__ alignas(16) unsigned char sums_bytes[2 * (S::BLOCK / 32) * sizeof(jitvec_acc_t)];
  __shared__ alignas(16) unsigned char totals_bytes[S::ROWS * sizeof(jitvec_acc_t)];
  __shared__ alignas(16) unsigned char prefix_bytes[sizeof(jitvec_acc_t)];
  __shared__ alignas(16) unsigned char parked_bytes[S::KEEP ? S::ROWS * 32 * sizeof(jitvec_acc_t) : 16];
  __shared__ long long tile_id;
  jitvec_acc_t* parked = reinterpret_cast<jitvec_acc_t*>(parked_bytes);
  jitvec_acc_t* sums = reinterpret_cast<jitvec_acc_t*>(sums_bytes);
  jitvec_acc_t* totals = reinterpret_cast<jitvec_acc_t*>(totals_bytes);
  const int t = threadIdx.x;
  if (t == 0) {
    tile_id = p.work ? static_cast<long long>(atomicAdd(static_cast<unsigned long long*>(p.work), 1ull))
                     : static_cast<long long>(blockIdx.x);
  }
  __syncthreads();
  const long long id = tile_id;
  const long long line = id / p.chunks, k = id - line * p.chunks;
  const long long rest = p.length - k * S::TILE;
  constexpr bool OUT_FITS = (S::VEC * sizeof(jitvec_out_t)) % 16 == 0;
  const bool full = rest >= S::TILE && (p.vectorized & 1) && (!OUT_FITS || (p.vectorized & 2));  // the same in the whole block
  const int len = full ? S::TILE : static_cast<int>(rest);
  jitvec_acc_t excl[S::ROWS];
  const jitvec_acc_t a = full ? jitvec_scan_tile_rows<jitvec_in_t, true>(p, line, k, len, stage, sums, totals, excl)
                              : jitvec_scan_tile_rows<jitvec_in_t, false>(p, line, k, len, stage, sums, totals, excl);
  if (p.work && t < 32) {
    // Warp 0 parks its prefixes (KEEP: without it there are none) in shared memory during the
    // look-back, whose registers they would otherwise take (spilled to local memory).
    if constexpr (S::KEEP) {
#pragma unroll
      for (int u = 0; u < S::ROWS; ++u) parked[u * 32 + t] = excl[u];
    }
    const jitvec_scan_status s{static_cast<unsigned char*>(p.work) + 16, p.outputs * (2 * p.chunks - __popcll(p.chunks)),
                               2 * p.chunks - __popcll(p.chunks), p.chunks};
    const jitvec_acc_t prefix = jitvec_scan_look_back<6>(s, line, k, a);
    if (t == 0) *reinterpret_cast<jitvec_acc_t*>(prefix_bytes) = prefix;
    if constexpr (S::KEEP) {
#pragma unroll
      for (int u = 0; u < S::ROWS; ++u) excl[u] = parked[u * 32 + t];
    }
  }
  // The rows' sums (KEEP) and the prefix; and without KEEP, the write step's first row must not
  // store its warps' sums before every thread has read the last row's (the same buffer when the
  // tile has an odd number of rows).
  __syncthreads();
  const bool has_carry = p.work && k > 0;
  jitvec_acc_t carry;
  if (has_carry) carry = *reinterpret_cast<const jitvec_acc_t*>(prefix_bytes);
  if (full) {
    jitvec_scan_tile_write<jitvec_in_t, jitvec_out_t, true>(p, line, k, len, stage, sums, totals, excl, has_carry, carry);
  } else {
    jitvec_scan_tile_write<jitvec_in_t, jitvec_out_t, false>(p, line, k, len, stage, sums, totals, excl, has_carry, carry);
  }
}
extern "C" __global__ void __launch_bounds__(256) jitvec_scan_line_aggregates(const jitvec_reduction_params p) {
  jitvec_scan_line_body<jitvec_in_t, jitvec_acc_t, false>(p);
}
extern "C" __global__ void __launch_bounds__(256) jitvec_scan_line_apply(const jitvec_reduction_params p) {
  jitvec_scan_line_body<jitvec_in_t, jitvec_out_t, true>(p);
}
// The chunks' aggregates of each line ([chunk][line] in work) chained in order, in place.
extern "C" __global__ void __launch_bounds__(256) jitvec_scan_line_chain(const jitvec_reduction_params p) {
  const long long line = static_cast<long long>(blockIdx.x) * 256 + threadIdx.x;
  if (line >= p.outputs) return;
  jitvec_acc_t* a = static_cast<jitvec_acc_t*>(p.work) + line;
  jitvec_acc_t run = a[0];
  for (long long k = 1; k < p.chunks; ++k) {
    run = jitvec_apply(run, a[k * p.outputs]);
    a[k * p.outputs] = run;
  }
}

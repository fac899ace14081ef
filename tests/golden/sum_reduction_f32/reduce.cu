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
template <typename InT>
__device__ __forceinline__ void jitvec_reduce_rows_body(const jitvec_reduction_params& p) {
  constexpr int BLOCK = 256, VEC = 16 / sizeof(InT), ITEMS = 16;
  constexpr long long SLOTS = static_cast<long long>(BLOCK) * VEC;
  __shared__ alignas(16) unsigned char part_bytes[BLOCK * sizeof(jitvec_acc_t)];
  jitvec_acc_t* part = reinterpret_cast<jitvec_acc_t*>(part_bytes);
  const int t = threadIdx.x;
  const long long item = blockIdx.x;
  const long long o = item / p.chunks, c = item - o * p.chunks;
  const long long start = c * p.chunk;
  long long len = p.length - start;
  if (len > p.chunk) len = p.chunk;
  if (len < 0) len = 0;
  const InT* in = static_cast<const InT*>(p.in) + jitvec_offset(p.out_sizes, p.out_in_strides, p.out_ndim, o);
  jitvec_acc_t lane[VEC];
  long long m = len - static_cast<long long>(t) * VEC;  // lanes of this thread that hold elements
  if (m > VEC) m = VEC;
  if (p.vectorized && len == SLOTS * ITEMS) {
    const jitvec_detail::Vec<InT, VEC>* v = reinterpret_cast<const jitvec_detail::Vec<InT, VEC>*>(in + start);
    jitvec_detail::Vec<InT, VEC> r[ITEMS];
#pragma unroll
    for (int it = 0; it < ITEMS; ++it) r[it] = v[it * BLOCK + t];
#pragma unroll
    for (int e = 0; e < VEC; ++e) lane[e] = static_cast<jitvec_acc_t>(r[0].v[e]);
#pragma unroll
    for (int it = 1; it < ITEMS; ++it) {
#pragma unroll
      for (int e = 0; e < VEC; ++e) lane[e] = jitvec_apply(lane[e], static_cast<jitvec_acc_t>(r[it].v[e]));
    }
  } else {
#pragma unroll
    for (int e = 0; e < VEC; ++e) {
      const long long i = static_cast<long long>(t) * VEC + e;
      if (i < len) lane[e] = static_cast<jitvec_acc_t>(in[jitvec_red_offset(p, start + i)]);
    }
    for (long long base = SLOTS; base < len; base += SLOTS) {
#pragma unroll
      for (int e = 0; e < VEC; ++e) {
        const long long i = base + static_cast<long long>(t) * VEC + e;
        if (i < len) lane[e] = jitvec_apply(lane[e], static_cast<jitvec_acc_t>(in[jitvec_red_offset(p, start + i)]));
      }
    }
  }
#pragma unroll
  for (int s = VEC / 2; s >= 1; s /= 2) {
#pragma unroll
    for (int e = 0; e < s; ++e) {
      if (e + s < m) lane[e] = jitvec_apply(lane[e], lane[e + s]);
    }
    if (m > s) m = s;
  }
  if (m > 0) part[t] = lane[0];
  long long valid = (len + VEC - 1) / VEC;  // threads that hold elements: always a prefix
  if (valid > BLOCK) valid = BLOCK;
#pragma unroll
  for (int s = BLOCK / 2; s >= 1; s /= 2) {
    __syncthreads();
    if (t < s && t + s < valid) part[t] = jitvec_apply(part[t], part[t + s]);
    if (valid > s) valid = s;
  }
  if (t == 0) jitvec_reduce_store(p, o, item, len > 0, len > 0 ? part[0] : jitvec_init(p));
}

template <typename InT>
__device__ __forceinline__ void jitvec_reduce_cols_body(const jitvec_reduction_params& p) {
  constexpr int BLOCK = 256, UNROLL = 8;
  const long long col_blocks = (p.outputs + BLOCK - 1) / BLOCK;
  const long long item = blockIdx.x;
  const long long c = item / col_blocks;
  const long long o = (item - c * col_blocks) * BLOCK + threadIdx.x;
  if (o >= p.outputs) return;
  const long long start = c * p.chunk;
  long long len = p.length - start;
  if (len > p.chunk) len = p.chunk;
  if (len < 0) len = 0;
  const InT* in = static_cast<const InT*>(p.in) + jitvec_offset(p.out_sizes, p.out_in_strides, p.out_ndim, o);
  jitvec_acc_t acc;
  if (len > 0 && p.red_ndim == 1) {
    const long long s = p.red_strides[0];
    const InT* q = in + start * s;
    acc = static_cast<jitvec_acc_t>(q[0]);
    long long i = 1;
    for (; i + UNROLL <= len; i += UNROLL) {
      InT v[UNROLL];
#pragma unroll
      for (int u = 0; u < UNROLL; ++u) v[u] = q[(i + u) * s];
#pragma unroll
      for (int u = 0; u < UNROLL; ++u) acc = jitvec_apply(acc, static_cast<jitvec_acc_t>(v[u]));
    }
    for (; i < len; ++i) acc = jitvec_apply(acc, static_cast<jitvec_acc_t>(q[i * s]));
  } else if (len > 0) {
    acc = static_cast<jitvec_acc_t>(in[jitvec_red_offset(p, start)]);
    for (long long i = 1; i < len; ++i) acc = jitvec_apply(acc, static_cast<jitvec_acc_t>(in[jitvec_red_offset(p, start + i)]));
  }
  jitvec_reduce_store(p, o, c * p.outputs + o, len > 0, len > 0 ? acc : jitvec_init(p));
}

extern "C" __global__ void __launch_bounds__(256) jitvec_reduce_rows(const jitvec_reduction_params p) {
  jitvec_reduce_rows_body<jitvec_in_t>(p);
}
extern "C" __global__ void __launch_bounds__(256) jitvec_reduce_rows_t(const jitvec_reduction_params p) {
  jitvec_reduce_rows_body<jitvec_acc_t>(p);
}
extern "C" __global__ void __launch_bounds__(256) jitvec_reduce_cols(const jitvec_reduction_params p) {
  jitvec_reduce_cols_body<jitvec_in_t>(p);
}
extern "C" __global__ void __launch_bounds__(256) jitvec_reduce_cols_t(const jitvec_reduction_params p) {
  jitvec_reduce_cols_body<jitvec_acc_t>(p);
}

#include "codegen/dual_number.hpp"

namespace jitvec::codegen {
namespace {

// The layout: the class with its hidden friends (found by argument-dependent lookup when a
// ufunc calls `exp(z)` unqualified with a dual `z`), then the functions whose names the host
// prelude turns into `jitvec_host::...` by a macro (a qualified call, which argument-dependent
// lookup does not extend: their dual overloads are declared where the macro leads). On the
// host, the names that map to a function of the same name (`rsqrtf` -> jitvec_host::rsqrtf)
// are taken out of the macros' way with push_macro while they are declared.
// Each derivative is multiplied by the argument's tangent only when that is not zero, so that
// a function of an input held constant (tangent 0) gives 0 even where its derivative is
// infinite (sqrt at 0). The value of each function is the compiler's own (`::exp(x)`), so a
// derivative loop's value output equals the ordinary loop's.
constexpr std::string_view kDualSource = R"dual(// ---- jitvec::dual<T>: forward-mode derivatives (src/codegen/dual_number.hpp) ----
#ifdef JITVEC_HOST
#pragma push_macro("exp10f")
#pragma push_macro("exp10")
#pragma push_macro("sincosf")
#pragma push_macro("sincos")
#pragma push_macro("rsqrtf")
#pragma push_macro("rsqrt")
#pragma push_macro("sinpif")
#pragma push_macro("sinpi")
#pragma push_macro("cospif")
#pragma push_macro("cospi")
#undef exp10f
#undef exp10
#undef sincosf
#undef sincos
#undef rsqrtf
#undef rsqrt
#undef sinpif
#undef sinpi
#undef cospif
#undef cospi
#endif

#define JITVEC_DUAL_F __device__ __forceinline__
// A function of one argument, in its overloaded and its f-suffixed spelling: x is the
// argument's value, y the function's; DERIVATIVE is dy/dx.
#define JITVEC_DUAL_UNARY_ONE(NAME, DERIVATIVE)                                \
  friend JITVEC_DUAL_F dual NAME(const dual& a) {                              \
    const T x = a.v;                                                           \
    const T y = ::NAME(x);                                                     \
    (void)x;                                                                   \
    (void)y;                                                                   \
    return dual(y, a.t == T(0) ? T(0) : T(DERIVATIVE) * a.t);                  \
  }
#define JITVEC_DUAL_UNARY(NAME, FNAME, DERIVATIVE) \
  JITVEC_DUAL_UNARY_ONE(NAME, DERIVATIVE) JITVEC_DUAL_UNARY_ONE(FNAME, DERIVATIVE)
#define JITVEC_DUAL_ARITHMETIC(OP)                                                               \
  friend JITVEC_DUAL_F dual operator OP(dual a, const dual& b) { a OP## = b; return a; }        \
  friend JITVEC_DUAL_F dual operator OP(dual a, const T& b) { a OP## = dual(b); return a; }     \
  friend JITVEC_DUAL_F dual operator OP(const T& a, const dual& b) { dual r(a); r OP## = b; return r; }
#define JITVEC_DUAL_COMPARE(OP)                                                                     \
  friend JITVEC_DUAL_F bool operator OP(const dual& a, const dual& b) { return a.v OP b.v; }      \
  friend JITVEC_DUAL_F bool operator OP(const dual& a, const T& b) { return a.v OP b; }           \
  friend JITVEC_DUAL_F bool operator OP(const T& a, const dual& b) { return a OP b.v; }
// min/max and their kin: the argument chosen gives the tangent (a NaN argument loses).
#define JITVEC_DUAL_CHOOSE(NAME, PICK_B)                                                   \
  friend JITVEC_DUAL_F dual NAME(const dual& a, const dual& b) {                           \
    return dual(::NAME(a.v, b.v), (PICK_B) ? b.t : a.t);                                   \
  }

namespace jitvec {

template <class T>
struct dual {
  typedef T value_type;
  T v;  // the value
  T t;  // the tangent: the derivative of the value with respect to the chosen input

  JITVEC_DUAL_F dual() : v(0), t(0) {}
  JITVEC_DUAL_F dual(T value) : v(value), t(0) {}
  JITVEC_DUAL_F dual(T value, T tangent) : v(value), t(tangent) {}

  JITVEC_DUAL_F dual& operator+=(const dual& b) { v = v + b.v; t = t + b.t; return *this; }
  JITVEC_DUAL_F dual& operator-=(const dual& b) { v = v - b.v; t = t - b.t; return *this; }
  JITVEC_DUAL_F dual& operator*=(const dual& b) {
    t = (b.t == T(0) ? t * b.v : t * b.v + v * b.t);
    v = v * b.v;
    return *this;
  }
  JITVEC_DUAL_F dual& operator/=(const dual& b) {
    const T q = v / b.v;
    t = (b.t == T(0) ? t / b.v : (t - q * b.t) / b.v);
    v = q;
    return *this;
  }

  friend JITVEC_DUAL_F dual operator+(const dual& a) { return a; }
  friend JITVEC_DUAL_F dual operator-(const dual& a) { return dual(-a.v, -a.t); }
  JITVEC_DUAL_ARITHMETIC(+)
  JITVEC_DUAL_ARITHMETIC(-)
  JITVEC_DUAL_ARITHMETIC(*)
  JITVEC_DUAL_ARITHMETIC(/)
  JITVEC_DUAL_COMPARE(<)
  JITVEC_DUAL_COMPARE(<=)
  JITVEC_DUAL_COMPARE(>)
  JITVEC_DUAL_COMPARE(>=)
  JITVEC_DUAL_COMPARE(==)
  JITVEC_DUAL_COMPARE(!=)

  JITVEC_DUAL_UNARY(exp, expf, y)
  JITVEC_DUAL_UNARY(exp2, exp2f, y * T(0.6931471805599453))
  JITVEC_DUAL_UNARY(expm1, expm1f, y + T(1))
  JITVEC_DUAL_UNARY(log, logf, T(1) / x)
  JITVEC_DUAL_UNARY(log2, log2f, T(1.4426950408889634) / x)
  JITVEC_DUAL_UNARY(log10, log10f, T(0.4342944819032518) / x)
  JITVEC_DUAL_UNARY(log1p, log1pf, T(1) / (T(1) + x))
  JITVEC_DUAL_UNARY(sqrt, sqrtf, T(0.5) / y)
  JITVEC_DUAL_UNARY(cbrt, cbrtf, T(1) / (T(3) * y * y))
  JITVEC_DUAL_UNARY(rcbrt, rcbrtf, T(-1) / T(3) * y * y * y * y)
  JITVEC_DUAL_UNARY(sin, sinf, ::cos(x))
  JITVEC_DUAL_UNARY(cos, cosf, -::sin(x))
  JITVEC_DUAL_UNARY(tan, tanf, T(1) + y * y)
  JITVEC_DUAL_UNARY(asin, asinf, T(1) / ::sqrt(T(1) - x * x))
  JITVEC_DUAL_UNARY(acos, acosf, T(-1) / ::sqrt(T(1) - x * x))
  JITVEC_DUAL_UNARY(atan, atanf, T(1) / (T(1) + x * x))
  JITVEC_DUAL_UNARY(sinh, sinhf, ::cosh(x))
  JITVEC_DUAL_UNARY(cosh, coshf, ::sinh(x))
  JITVEC_DUAL_UNARY(tanh, tanhf, T(1) - y * y)
  JITVEC_DUAL_UNARY(asinh, asinhf, T(1) / ::sqrt(x * x + T(1)))
  JITVEC_DUAL_UNARY(acosh, acoshf, T(1) / (::sqrt(x - T(1)) * ::sqrt(x + T(1))))
  JITVEC_DUAL_UNARY(atanh, atanhf, T(1) / (T(1) - x * x))
  JITVEC_DUAL_UNARY(erf, erff, T(1.1283791670955126) * ::exp(-x * x))
  JITVEC_DUAL_UNARY(erfc, erfcf, T(-1.1283791670955126) * ::exp(-x * x))
  JITVEC_DUAL_UNARY(erfinv, erfinvf, T(0.88622692545275801) * ::exp(y * y))
  JITVEC_DUAL_UNARY(erfcinv, erfcinvf, T(-0.88622692545275801) * ::exp(y * y))
  JITVEC_DUAL_UNARY(normcdf, normcdff, T(0.3989422804014327) * ::exp(T(-0.5) * x * x))
  JITVEC_DUAL_UNARY(normcdfinv, normcdfinvf, T(2.5066282746310002) * ::exp(T(0.5) * y * y))
  JITVEC_DUAL_UNARY(fabs, fabsf, x > T(0) ? T(1) : (x < T(0) ? T(-1) : T(0)))
  JITVEC_DUAL_UNARY_ONE(abs, x > T(0) ? T(1) : (x < T(0) ? T(-1) : T(0)))
  JITVEC_DUAL_UNARY(floor, floorf, T(0))
  JITVEC_DUAL_UNARY(ceil, ceilf, T(0))
  JITVEC_DUAL_UNARY(trunc, truncf, T(0))
  JITVEC_DUAL_UNARY(round, roundf, T(0))
  JITVEC_DUAL_UNARY(rint, rintf, T(0))
  JITVEC_DUAL_UNARY(nearbyint, nearbyintf, T(0))

  JITVEC_DUAL_CHOOSE(fmin, a.v != a.v || b.v < a.v)
  JITVEC_DUAL_CHOOSE(fminf, a.v != a.v || b.v < a.v)
  JITVEC_DUAL_CHOOSE(min, a.v != a.v || b.v < a.v)
  JITVEC_DUAL_CHOOSE(fmax, a.v != a.v || b.v > a.v)
  JITVEC_DUAL_CHOOSE(fmaxf, a.v != a.v || b.v > a.v)
  JITVEC_DUAL_CHOOSE(max, a.v != a.v || b.v > a.v)

  friend JITVEC_DUAL_F dual pow(const dual& a, const dual& b) { return power(::pow(a.v, b.v), ::pow(a.v, b.v - T(1)), ::log(a.v), a, b); }
  friend JITVEC_DUAL_F dual powf(const dual& a, const dual& b) { return power(::powf(a.v, b.v), ::powf(a.v, b.v - T(1)), ::logf(a.v), a, b); }
  friend JITVEC_DUAL_F dual atan2(const dual& a, const dual& b) { return dual(::atan2(a.v, b.v), angle(a, b)); }
  friend JITVEC_DUAL_F dual atan2f(const dual& a, const dual& b) { return dual(::atan2f(a.v, b.v), angle(a, b)); }
  friend JITVEC_DUAL_F dual hypot(const dual& a, const dual& b) { const T h = ::hypot(a.v, b.v); return dual(h, (a.v * a.t + b.v * b.t) / h); }
  friend JITVEC_DUAL_F dual hypotf(const dual& a, const dual& b) { const T h = ::hypotf(a.v, b.v); return dual(h, (a.v * a.t + b.v * b.t) / h); }
  friend JITVEC_DUAL_F dual fmod(const dual& a, const dual& b) { const T r = ::fmod(a.v, b.v); return dual(r, a.t - ::trunc(a.v / b.v) * b.t); }
  friend JITVEC_DUAL_F dual fmodf(const dual& a, const dual& b) { const T r = ::fmodf(a.v, b.v); return dual(r, a.t - ::truncf(a.v / b.v) * b.t); }
  friend JITVEC_DUAL_F dual fdim(const dual& a, const dual& b) { return dual(::fdim(a.v, b.v), a.v > b.v ? a.t - b.t : T(0)); }
  friend JITVEC_DUAL_F dual fdimf(const dual& a, const dual& b) { return dual(::fdimf(a.v, b.v), a.v > b.v ? a.t - b.t : T(0)); }
  friend JITVEC_DUAL_F dual copysign(const dual& a, const dual& b) { const T r = ::copysign(a.v, b.v); return dual(r, negative(r) != negative(a.v) ? -a.t : a.t); }
  friend JITVEC_DUAL_F dual copysignf(const dual& a, const dual& b) { const T r = ::copysignf(a.v, b.v); return dual(r, negative(r) != negative(a.v) ? -a.t : a.t); }
  friend JITVEC_DUAL_F dual fma(const dual& a, const dual& b, const dual& c) { return dual(::fma(a.v, b.v, c.v), a.t * b.v + a.v * b.t + c.t); }
  friend JITVEC_DUAL_F dual fmaf(const dual& a, const dual& b, const dual& c) { return dual(::fmaf(a.v, b.v, c.v), a.t * b.v + a.v * b.t + c.t); }
  friend JITVEC_DUAL_F void sincospi(const dual& a, dual* s, dual* c) { T sv, cv; ::sincospi(a.v, &sv, &cv); *s = dual(sv, T(3.141592653589793) * cv * a.t); *c = dual(cv, T(-3.141592653589793) * sv * a.t); }
  friend JITVEC_DUAL_F void sincospif(const dual& a, dual* s, dual* c) { T sv, cv; ::sincospif(a.v, &sv, &cv); *s = dual(sv, T(3.141592653589793) * cv * a.t); *c = dual(cv, T(-3.141592653589793) * sv * a.t); }
  friend JITVEC_DUAL_F bool isnan(const dual& a) { return a.v != a.v; }
  friend JITVEC_DUAL_F bool isinf(const dual& a) { return a.v - a.v != a.v - a.v && a.v == a.v; }
  friend JITVEC_DUAL_F bool isfinite(const dual& a) { return a.v - a.v == a.v - a.v; }
  friend JITVEC_DUAL_F bool signbit(const dual& a) { return negative(a.v); }

 private:
  // Whether the sign bit of `v` is set (-0 too; a NaN counts as positive).
  static JITVEC_DUAL_F bool negative(T v) { return v < T(0) || (v == T(0) && T(1) / v < T(0)); }
  // y = a^b, given y, a^(b-1) and log a: b a^(b-1) a' + log(a) y b' (each term only when its
  // tangent is not zero, so pow(x, 2) at x = 0 and pow(-2, x) of a constant x are finite).
  static JITVEC_DUAL_F dual power(T y, T lower, T log_a, const dual& a, const dual& b) {
    T t = a.t == T(0) ? T(0) : b.v * lower * a.t;
    if (b.t != T(0)) t = t + log_a * y * b.t;
    return dual(y, t);
  }
  // d atan2(a, b) = (b a' - a b') / (a^2 + b^2)
  static JITVEC_DUAL_F T angle(const dual& a, const dual& b) {
    return (b.v * a.t - a.v * b.t) / (a.v * a.v + b.v * b.v);
  }
};

// The value and the tangent of a result (a result that is not a dual depends on no input).
template <class T> JITVEC_DUAL_F T dual_value(const dual<T>& r) { return r.v; }
template <class U> JITVEC_DUAL_F U dual_value(const U& r) { return r; }
template <class T> JITVEC_DUAL_F T dual_tangent(const dual<T>& r) { return r.t; }
template <class U> JITVEC_DUAL_F U dual_tangent(const U&) { return U(0); }

}  // namespace jitvec

// The functions that the host prelude maps by a macro: CUDA's name on the GPU (in namespace
// jitvec, found by argument-dependent lookup), the macro's target on the host.
#ifdef JITVEC_HOST
#define JITVEC_DUAL_NAMESPACE jitvec_host
#define JITVEC_DUAL_NAME(CUDA, HOST) HOST
#define JITVEC_DUAL_CALL(CUDA, HOST) ::jitvec_host::HOST
#else
#define JITVEC_DUAL_NAMESPACE jitvec
#define JITVEC_DUAL_NAME(CUDA, HOST) CUDA
#define JITVEC_DUAL_CALL(CUDA, HOST) ::CUDA
#endif
#define JITVEC_DUAL_MAPPED_UNARY(CUDA, HOST, DERIVATIVE)                                 \
  template <class T>                                                                     \
  JITVEC_DUAL_F ::jitvec::dual<T> JITVEC_DUAL_NAME(CUDA, HOST)(const ::jitvec::dual<T>& a) { \
    const T x = a.v;                                                                     \
    const T y = JITVEC_DUAL_CALL(CUDA, HOST)(x);                                         \
    (void)x;                                                                             \
    (void)y;                                                                             \
    return ::jitvec::dual<T>(y, a.t == T(0) ? T(0) : T(DERIVATIVE) * a.t);               \
  }
#define JITVEC_DUAL_MAPPED_SINCOS(CUDA, HOST)                                                 \
  template <class T>                                                                          \
  JITVEC_DUAL_F void JITVEC_DUAL_NAME(CUDA, HOST)(const ::jitvec::dual<T>& a,                 \
                                                  ::jitvec::dual<T>* s, ::jitvec::dual<T>* c) { \
    T sv, cv;                                                                                 \
    JITVEC_DUAL_CALL(CUDA, HOST)(a.v, &sv, &cv);                                              \
    *s = ::jitvec::dual<T>(sv, cv * a.t);                                                     \
    *c = ::jitvec::dual<T>(cv, -sv * a.t);                                                    \
  }
// A correctly rounded operation of two (or three) operands of type T: its tangent by the
// ordinary rules.
#define JITVEC_DUAL_MAPPED_BINARY(CUDA, HOST, T, TANGENT)                                    \
  JITVEC_DUAL_F ::jitvec::dual<T> JITVEC_DUAL_NAME(CUDA, HOST)(const ::jitvec::dual<T>& a,   \
                                                               const ::jitvec::dual<T>& b) { \
    const T y = JITVEC_DUAL_CALL(CUDA, HOST)(a.v, b.v);                                      \
    return ::jitvec::dual<T>(y, TANGENT);                                                    \
  }
#define JITVEC_DUAL_MAPPED_FMA(CUDA, HOST, T)                                                  \
  JITVEC_DUAL_F ::jitvec::dual<T> JITVEC_DUAL_NAME(CUDA, HOST)(                                \
      const ::jitvec::dual<T>& a, const ::jitvec::dual<T>& b, const ::jitvec::dual<T>& c) {    \
    return ::jitvec::dual<T>(JITVEC_DUAL_CALL(CUDA, HOST)(a.v, b.v, c.v),                      \
                             a.t * b.v + a.v * b.t + c.t);                                     \
  }

namespace JITVEC_DUAL_NAMESPACE {
JITVEC_DUAL_MAPPED_UNARY(exp10, exp10, y * T(2.302585092994046))
JITVEC_DUAL_MAPPED_UNARY(exp10f, exp10f, y * T(2.302585092994046))
JITVEC_DUAL_MAPPED_UNARY(rsqrt, rsqrt, T(-0.5) * y * y * y)
JITVEC_DUAL_MAPPED_UNARY(rsqrtf, rsqrtf, T(-0.5) * y * y * y)
JITVEC_DUAL_MAPPED_UNARY(sinpi, sinpi, T(3.141592653589793) * JITVEC_DUAL_CALL(cospi, cospi)(x))
JITVEC_DUAL_MAPPED_UNARY(sinpif, sinpif, T(3.141592653589793) * JITVEC_DUAL_CALL(cospif, cospif)(x))
JITVEC_DUAL_MAPPED_UNARY(cospi, cospi, T(-3.141592653589793) * JITVEC_DUAL_CALL(sinpi, sinpi)(x))
JITVEC_DUAL_MAPPED_UNARY(cospif, cospif, T(-3.141592653589793) * JITVEC_DUAL_CALL(sinpif, sinpif)(x))
JITVEC_DUAL_MAPPED_SINCOS(sincos, sincos)
JITVEC_DUAL_MAPPED_SINCOS(sincosf, sincosf)
JITVEC_DUAL_MAPPED_SINCOS(__sincosf, intrinsic_sincosf)
JITVEC_DUAL_MAPPED_UNARY(__expf, intrinsic_expf, y)
JITVEC_DUAL_MAPPED_UNARY(__exp10f, intrinsic_exp10f, y * T(2.302585092994046))
JITVEC_DUAL_MAPPED_UNARY(__logf, intrinsic_logf, T(1) / x)
JITVEC_DUAL_MAPPED_UNARY(__log2f, intrinsic_log2f, T(1.4426950408889634) / x)
JITVEC_DUAL_MAPPED_UNARY(__log10f, intrinsic_log10f, T(0.4342944819032518) / x)
JITVEC_DUAL_MAPPED_UNARY(__sinf, intrinsic_sinf, JITVEC_DUAL_CALL(__cosf, intrinsic_cosf)(x))
JITVEC_DUAL_MAPPED_UNARY(__cosf, intrinsic_cosf, -JITVEC_DUAL_CALL(__sinf, intrinsic_sinf)(x))
JITVEC_DUAL_MAPPED_UNARY(__tanf, intrinsic_tanf, T(1) + y * y)
JITVEC_DUAL_MAPPED_UNARY(__fsqrt_rn, intrinsic_fsqrt_rn, T(0.5) / y)
JITVEC_DUAL_MAPPED_UNARY(__frcp_rn, intrinsic_frcp_rn, -y * y)
JITVEC_DUAL_MAPPED_UNARY(__saturatef, intrinsic_saturatef, x > T(0) && x < T(1) ? T(1) : T(0))
JITVEC_DUAL_MAPPED_BINARY(__fdividef, intrinsic_fdividef, float, (a.t - y * b.t) / b.v)
JITVEC_DUAL_MAPPED_BINARY(__powf, intrinsic_powf, float,
                          (a.t == 0.0f ? 0.0f : b.v * JITVEC_DUAL_CALL(__powf, intrinsic_powf)(a.v, b.v - 1.0f) * a.t) +
                              (b.t == 0.0f ? 0.0f : JITVEC_DUAL_CALL(__logf, intrinsic_logf)(a.v) * y * b.t))
JITVEC_DUAL_MAPPED_BINARY(__fadd_rn, intrinsic_fadd_rn, float, a.t + b.t)
JITVEC_DUAL_MAPPED_BINARY(__fsub_rn, intrinsic_fsub_rn, float, a.t - b.t)
JITVEC_DUAL_MAPPED_BINARY(__fmul_rn, intrinsic_fmul_rn, float, a.t * b.v + a.v * b.t)
JITVEC_DUAL_MAPPED_BINARY(__fdiv_rn, intrinsic_fdiv_rn, float, (a.t - y * b.t) / b.v)
JITVEC_DUAL_MAPPED_BINARY(__dadd_rn, intrinsic_dadd_rn, double, a.t + b.t)
JITVEC_DUAL_MAPPED_BINARY(__dsub_rn, intrinsic_dsub_rn, double, a.t - b.t)
JITVEC_DUAL_MAPPED_BINARY(__dmul_rn, intrinsic_dmul_rn, double, a.t * b.v + a.v * b.t)
JITVEC_DUAL_MAPPED_BINARY(__ddiv_rn, intrinsic_ddiv_rn, double, (a.t - y * b.t) / b.v)
JITVEC_DUAL_MAPPED_FMA(__fmaf_rn, intrinsic_fmaf_rn, float)
JITVEC_DUAL_MAPPED_FMA(__fma_rn, intrinsic_fma_rn, double)
}  // namespace JITVEC_DUAL_NAMESPACE

#undef JITVEC_DUAL_MAPPED_FMA
#undef JITVEC_DUAL_MAPPED_BINARY
#undef JITVEC_DUAL_MAPPED_SINCOS
#undef JITVEC_DUAL_MAPPED_UNARY
#undef JITVEC_DUAL_CALL
#undef JITVEC_DUAL_NAME
#undef JITVEC_DUAL_NAMESPACE
#undef JITVEC_DUAL_CHOOSE
#undef JITVEC_DUAL_COMPARE
#undef JITVEC_DUAL_ARITHMETIC
#undef JITVEC_DUAL_UNARY
#undef JITVEC_DUAL_UNARY_ONE
#undef JITVEC_DUAL_F
#ifdef JITVEC_HOST
#pragma pop_macro("exp10f")
#pragma pop_macro("exp10")
#pragma pop_macro("sincosf")
#pragma pop_macro("sincos")
#pragma pop_macro("rsqrtf")
#pragma pop_macro("rsqrt")
#pragma pop_macro("sinpif")
#pragma pop_macro("sinpi")
#pragma pop_macro("cospif")
#pragma pop_macro("cospi")
#endif
// ---- end of jitvec::dual<T> ----
)dual";

}  // namespace

std::string_view dual_number_source() { return kDualSource; }

const std::vector<std::string>& dual_function_names() {
  static const std::vector<std::string> names = {
      "exp", "expf", "exp2", "exp2f", "exp10", "exp10f", "expm1", "expm1f", "log", "logf",
      "log2", "log2f", "log10", "log10f", "log1p", "log1pf", "sqrt", "sqrtf", "rsqrt", "rsqrtf",
      "cbrt", "cbrtf", "rcbrt", "rcbrtf", "sin", "sinf", "cos", "cosf", "tan", "tanf", "sinpi",
      "sinpif", "cospi", "cospif", "sincos", "sincosf", "sincospi", "sincospif", "asin", "asinf",
      "acos", "acosf", "atan", "atanf", "atan2", "atan2f", "sinh", "sinhf", "cosh", "coshf",
      "tanh", "tanhf", "asinh", "asinhf", "acosh", "acoshf", "atanh", "atanhf", "erf", "erff",
      "erfc", "erfcf", "erfinv", "erfinvf", "erfcinv", "erfcinvf", "normcdf", "normcdff",
      "normcdfinv", "normcdfinvf", "pow", "powf", "hypot", "hypotf", "fmod", "fmodf", "fdim",
      "fdimf", "copysign", "copysignf", "fma", "fmaf", "fabs", "fabsf", "abs", "fmin", "fminf",
      "fmax", "fmaxf", "min", "max", "floor", "floorf", "ceil", "ceilf", "trunc", "truncf",
      "round", "roundf", "rint", "rintf", "nearbyint", "nearbyintf", "isnan", "isinf",
      "isfinite", "signbit", "__expf", "__exp10f", "__logf", "__log2f", "__log10f", "__sinf",
      "__cosf", "__tanf", "__sincosf", "__powf", "__fdividef", "__saturatef", "__fsqrt_rn",
      "__frcp_rn", "__fadd_rn", "__fsub_rn", "__fmul_rn", "__fdiv_rn", "__fmaf_rn", "__dadd_rn",
      "__dsub_rn", "__dmul_rn", "__ddiv_rn", "__fma_rn"};
  return names;
}

}  // namespace jitvec::codegen

// tests/gufunc_cases.hpp: the generalized ufuncs the gufunc tests (CPU and GPU) define, with
// float64 references written independently as plain loops over std::vectors of doubles.
//   h4_dot     (n),(n)->()       batched dot product (float32 and float64 loops)
//   h4_movavg  (n),()->(n)       trailing moving average over a window of w elements
//   h4_matvec  (m,n),(n)->(m)    small matrix times vector
//   h4_minmax  (n)->(),()        two outputs: the smallest and the largest element
// and error_of(), which the method tests (outer, at, gufuncs) use to read an error's message.
#pragma once

#include <jitvec/jitvec.hpp>

#include <algorithm>
#include <cstdint>
#include <exception>
#include <functional>
#include <string>
#include <mutex>
#include <vector>

namespace jitvec_test {

/// The message of what `f` throws, or "(no error)".
inline std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "(no error)";
}

inline void define_test_gufuncs(jitvec::Engine& engine) {
  static std::mutex mutex;
  static jitvec::Engine* defined_in = nullptr;
  std::lock_guard<std::mutex> lock(mutex);
  if (defined_in == &engine) return;
  defined_in = &engine;
  engine.guvectorize("h4_dot", {"void(float32[:], float32[:], float32)", "void(f8[:], f8[:], f8[:])"},
                     "(n),(n)->()", R"(
template <class In, class Out>
__device__ void h4_dot(In a, In b, Out out) {
  decltype(a[0] + 0) s = 0;  // the element type (not evaluated: a may be empty)
  for (long long i = 0; i < a.size(); ++i) s += a[i] * b[i];
  out[0] = s;
})");
  engine.guvectorize("h4_movavg", {"void(float32[:], int32, float32[:])", "void(float64[:], int64, float64[:])"},
                     "(n),()->(n)", R"(
template <class T, class W>
__device__ void h4_movavg(jitvec::View<const T, 1> x, jitvec::View<const W, 0> w,
                          jitvec::View<T, 1> out) {
  const long long window = w();
  T sum = 0;
  for (long long i = 0; i < x.size(); ++i) {
    sum += x[i];
    if (i >= window) sum -= x[i - window];
    const long long count = i + 1 < window ? i + 1 : window;
    out[i] = sum / T(count);
  }
})");
  engine.guvectorize("h4_matvec", {"void(float32[:,:], float32[:], float32[:])"}, "(m,n),(n)->(m)", R"(
__device__ void h4_matvec(jitvec::View<const float, 2> a, jitvec::View<const float, 1> x,
                          jitvec::View<float, 1> y) {
  for (long long i = 0; i < a.size(0); ++i) {
    float s = 0.0f;
    for (long long j = 0; j < a.size(1); ++j) s += a(i, j) * x(j);
    y(i) = s;
  }
})");
  engine.guvectorize("h4_minmax", {"void(int32[:], int32, int32)"}, "(n)->(),()", R"(
__device__ void h4_minmax(jitvec::View<const int32_t, 1> x, jitvec::View<int32_t, 0> lo,
                          jitvec::View<int32_t, 0> hi) {
  int32_t a = x[0], b = x[0];
  for (long long i = 1; i < x.size(); ++i) { a = min(a, x[i]); b = max(b, x[i]); }
  *lo = a;
  *hi = b;
})");
}

inline double ref_dot(const std::vector<double>& a, const std::vector<double>& b) {
  double s = 0;
  for (std::size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
  return s;
}

inline std::vector<double> ref_movavg(const std::vector<double>& x, std::int64_t w) {
  std::vector<double> out(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    const std::int64_t first = std::max<std::int64_t>(0, static_cast<std::int64_t>(i) - w + 1);
    double s = 0;
    for (std::int64_t j = first; j <= static_cast<std::int64_t>(i); ++j) s += x[static_cast<std::size_t>(j)];
    out[i] = s / static_cast<double>(static_cast<std::int64_t>(i) - first + 1);
  }
  return out;
}

inline std::vector<double> ref_matvec(const std::vector<std::vector<double>>& a,
                                      const std::vector<double>& x) {
  std::vector<double> y(a.size(), 0.0);
  for (std::size_t i = 0; i < a.size(); ++i) {
    for (std::size_t j = 0; j < x.size(); ++j) y[i] += a[i][j] * x[j];
  }
  return y;
}

}  // namespace jitvec_test

#include "kernels/gufunc_views.hpp"

namespace jitvec::kernels {

namespace {

// Member functions of a class template are compiled only when called, so v(i, j) on a 1-d
// view fails with the static_assert's message at the user's call, not in every module.
constexpr std::string_view kViews = R"views(// ---- jitvec gufunc views (src/kernels/gufunc_views.hpp) ----
namespace jitvec {
template <class T, int N> struct View {
  T* data;
  long long extent[N];
  long long stride[N];
  __device__ __forceinline__ long long size(int d = 0) const { return extent[d]; }
  __device__ __forceinline__ T& operator[](long long i) const {
    static_assert(N == 1, "v[i] indexes a 1-d view; use v(i, j, ...)");
    return data[i * stride[0]];
  }
  __device__ __forceinline__ T& operator()(long long i) const {
    static_assert(N == 1, "v(i) indexes a 1-d view");
    return data[i * stride[0]];
  }
  __device__ __forceinline__ T& operator()(long long i, long long j) const {
    static_assert(N == 2, "v(i, j) indexes a 2-d view");
    return data[i * stride[0] + j * stride[1]];
  }
  __device__ __forceinline__ T& operator()(long long i, long long j, long long k) const {
    static_assert(N == 3, "v(i, j, k) indexes a 3-d view");
    return data[i * stride[0] + j * stride[1] + k * stride[2]];
  }
};
template <class T> struct View<T, 0> {
  T* data;
  __device__ __forceinline__ long long size(int = 0) const { return 1; }
  __device__ __forceinline__ T& operator()() const { return *data; }
  __device__ __forceinline__ T& operator*() const { return *data; }
  __device__ __forceinline__ T& operator[](long long) const { return *data; }
};
}  // namespace jitvec
)views";

}  // namespace

std::string_view gufunc_views_prelude() { return kViews; }

}  // namespace jitvec::kernels

// bench/probes/kernel_probes.cu: hand-written kernels that answer "why is this case below the
// copy ceiling?" for the cases jitvec misses (bench/NOTES.md), measured in one run on the GPU.
//
//   * float64 gaussian_pdf (2^28) and float32 polar_distance (2^26): the jitvec-shaped kernel
//     (16-byte loads, 8 elements a thread) against the same kernel with its loads replaced by
//     values made from the index (compute only, stores kept) and with its arithmetic replaced
//     by a sum (memory only). If "compute only" takes about as long as the real kernel, the
//     case is bound by arithmetic, not memory, and no access pattern brings it to the ceiling.
//   * the transposed input (16384^2 float32 gaussian_pdf of x.T): 64x64 tiles with scalar
//     accesses (jitvec_tiled2d's scheme), the same tiles with 16-byte accesses on both sides,
//     and 32x32 tiles (the classic transpose), each against a device-to-device copy.
//
// Build and run on the GPU machine (scripts/gpu_check.sh --probes does it):
//   nvcc -O3 -arch=sm_90 -std=c++17 -o kernel_probes bench/probes/kernel_probes.cu -lcuda
// Every output is checked against a float64 host reference on sampled elements before its
// time is printed; times are medians of CUDA-event-timed runs after a warm-up.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <random>
#include <vector>

#include "probe_support.cuh"

template <class T, int N> struct alignas(sizeof(T) * N) Vec { T v[N]; };

template <class T> __device__ __forceinline__ T gaussian(T x, T mean, T sigma) {
  const T z = (x - mean) / sigma;
  return exp(T(-0.5) * z * z) / (sigma * T(2.5066282746310002));
}

__device__ __forceinline__ float polar(float r1, float t1, float r2, float t2) {
  const float x1 = r1 * cosf(t1), y1 = r1 * sinf(t1);
  const float x2 = r2 * cosf(t2), y2 = r2 * sinf(t2);
  return sqrtf((x1 - x2) * (x1 - x2) + (y1 - y2) * (y1 - y2));
}

// ---- gaussian_pdf, float64: MODE 0 real, 1 compute only, 2 memory only ----
template <int MODE, int UNROLL>
__global__ void __launch_bounds__(256) gauss64(const double* __restrict__ x, double* __restrict__ y,
                                               double mean, double sigma, long long n) {
  constexpr int VEC = 2;
  const long long base = (long long)blockIdx.x * 256 * VEC * UNROLL;
  if (base + 256LL * VEC * UNROLL > n) return;  // sizes are whole tiles
  Vec<double, VEC> v[UNROLL];
#pragma unroll
  for (int u = 0; u < UNROLL; ++u) {
    const long long i = base + ((long long)u * 256 + threadIdx.x) * VEC;
    if (MODE == 1) {
#pragma unroll
      for (int e = 0; e < VEC; ++e) v[u].v[e] = (double)((i + e) & 0xffff) * (6.0 / 65536) - 3.0;
    } else {
      v[u] = *reinterpret_cast<const Vec<double, VEC>*>(x + i);
    }
  }
#pragma unroll
  for (int u = 0; u < UNROLL; ++u) {
    const long long i = base + ((long long)u * 256 + threadIdx.x) * VEC;
    Vec<double, VEC> r;
#pragma unroll
    for (int e = 0; e < VEC; ++e) r.v[e] = MODE == 2 ? v[u].v[e] + mean : gaussian(v[u].v[e], mean, sigma);
    *reinterpret_cast<Vec<double, VEC>*>(y + i) = r;
  }
}

// ---- polar_distance, float32 ----
template <int MODE, int UNROLL>
__global__ void __launch_bounds__(256) polar32(const float* __restrict__ a, const float* __restrict__ b,
                                               const float* __restrict__ c, const float* __restrict__ d,
                                               float* __restrict__ y, long long n) {
  constexpr int VEC = 4;
  const long long base = (long long)blockIdx.x * 256 * VEC * UNROLL;
  if (base + 256LL * VEC * UNROLL > n) return;
  Vec<float, VEC> va[UNROLL], vb[UNROLL], vc[UNROLL], vd[UNROLL];
#pragma unroll
  for (int u = 0; u < UNROLL; ++u) {
    const long long i = base + ((long long)u * 256 + threadIdx.x) * VEC;
    if (MODE == 1) {
#pragma unroll
      for (int e = 0; e < VEC; ++e) {
        const float h = (float)((i + e) & 0xffff) * (1.0f / 65536);
        va[u].v[e] = 1 + h; vb[u].v[e] = 6.2f * h; vc[u].v[e] = 2 - h; vd[u].v[e] = 6.2f - 6.2f * h;
      }
    } else {
      va[u] = *reinterpret_cast<const Vec<float, VEC>*>(a + i);
      vb[u] = *reinterpret_cast<const Vec<float, VEC>*>(b + i);
      vc[u] = *reinterpret_cast<const Vec<float, VEC>*>(c + i);
      vd[u] = *reinterpret_cast<const Vec<float, VEC>*>(d + i);
    }
  }
#pragma unroll
  for (int u = 0; u < UNROLL; ++u) {
    const long long i = base + ((long long)u * 256 + threadIdx.x) * VEC;
    Vec<float, VEC> r;
#pragma unroll
    for (int e = 0; e < VEC; ++e)
      r.v[e] = MODE == 2 ? va[u].v[e] + vb[u].v[e] + vc[u].v[e] + vd[u].v[e]
                         : polar(va[u].v[e], vb[u].v[e], vc[u].v[e], vd[u].v[e]);
    *reinterpret_cast<Vec<float, VEC>*>(y + i) = r;
  }
}

// ---- transposed input: y[r][c] = gaussian(x[c][r]), x and y side x side, C order ----
// jitvec_tiled2d's scheme: 64x64 tile, 256 threads, 16 scalar loads and stores a thread.
__global__ void __launch_bounds__(256) tiled_scalar(const float* __restrict__ x, float* __restrict__ y,
                                                    int side, float mean, float sigma) {
  __shared__ float tile[64][65];
  const long long r0 = (long long)blockIdx.x * 64, c0 = (long long)blockIdx.y * 64;
  const int tx = threadIdx.x & 63, ty = threadIdx.x >> 6;
#pragma unroll
  for (int j = 0; j < 16; ++j) {
    const long long c = c0 + ty + 4 * j, r = r0 + tx;  // x[c][r]: r is x's fast dimension
    tile[ty + 4 * j][tx] = x[c * side + r];
  }
  __syncthreads();
#pragma unroll
  for (int j = 0; j < 16; ++j) {
    const long long r = r0 + ty + 4 * j, c = c0 + tx;
    y[r * side + c] = gaussian(tile[tx][ty + 4 * j], mean, sigma);
  }
}

// 64x64 tile with 16-byte accesses: each thread loads 4 float4 runs along x's fast dimension
// and stores 4 float4 runs along y's.
__global__ void __launch_bounds__(256) tiled_vec4(const float* __restrict__ x, float* __restrict__ y,
                                                  int side, float mean, float sigma) {
  __shared__ float tile[64][65];  // tile[c - c0][r - r0]
  const long long r0 = (long long)blockIdx.x * 64, c0 = (long long)blockIdx.y * 64;
  const int q = threadIdx.x & 15, w = threadIdx.x >> 4;  // q: which float4 of 64, w: 0..15
  Vec<float, 4> in[4];
#pragma unroll
  for (int j = 0; j < 4; ++j) {
    const long long c = c0 + w + 16 * j;
    in[j] = *reinterpret_cast<const Vec<float, 4>*>(x + c * side + r0 + 4 * q);
  }
#pragma unroll
  for (int j = 0; j < 4; ++j)
#pragma unroll
    for (int e = 0; e < 4; ++e) tile[w + 16 * j][4 * q + e] = in[j].v[e];
  __syncthreads();
#pragma unroll
  for (int j = 0; j < 4; ++j) {
    const long long r = r0 + w + 16 * j;
    Vec<float, 4> out;
#pragma unroll
    for (int e = 0; e < 4; ++e) out.v[e] = gaussian(tile[4 * q + e][w + 16 * j], mean, sigma);
    *reinterpret_cast<Vec<float, 4>*>(y + r * side + c0 + 4 * q) = out;
  }
}

// The classic 32x32 tile, 32x8 threads, 4 elements a thread.
__global__ void __launch_bounds__(256) tiled_32(const float* __restrict__ x, float* __restrict__ y,
                                                int side, float mean, float sigma) {
  __shared__ float tile[32][33];
  const long long r0 = (long long)blockIdx.x * 32, c0 = (long long)blockIdx.y * 32;
  const int tx = threadIdx.x & 31, ty = threadIdx.x >> 5;
#pragma unroll
  for (int j = 0; j < 4; ++j) tile[ty + 8 * j][tx] = x[(c0 + ty + 8 * j) * side + r0 + tx];
  __syncthreads();
#pragma unroll
  for (int j = 0; j < 4; ++j)
    y[(r0 + ty + 8 * j) * side + c0 + tx] = gaussian(tile[tx][ty + 8 * j], mean, sigma);
}

// ---- harness ----
Timer* g_timer;
double copy_ms(void* dst, const void* src, size_t bytes) {
  return g_timer->median_ms([&] { CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice)); });
}

void report(const char* name, double ms, double bytes, double ceiling_ms, bool verified) {
  std::printf("%-44s %9.3f ms %8.1f GB/s  %.3f of copy  %s\n", name, ms, bytes / ms / 1e6,
              ceiling_ms / ms, verified ? "verified" : "NOT VERIFIED");
}

template <class T> std::vector<T> random_vector(size_t n, double lo, double hi, unsigned seed) {
  std::mt19937_64 g(seed);
  std::uniform_real_distribution<double> d(lo, hi);
  std::vector<T> v(n);
  for (auto& e : v) e = (T)d(g);
  return v;
}

template <class T> T* upload(const std::vector<T>& v) {
  T* p = nullptr;
  CHECK(cudaMalloc(&p, v.size() * sizeof(T)));
  CHECK(cudaMemcpy(p, v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice));
  return p;
}

template <class T> bool check_sampled(const T* device, size_t n, double rtol, double atol,
                                      const std::function<double(size_t)>& want) {
  std::vector<T> host(n);
  CHECK(cudaMemcpy(host.data(), device, n * sizeof(T), cudaMemcpyDeviceToHost));
  for (size_t i = 0; i < n; i += 997) {
    const double w = want(i);
    if (!(std::fabs((double)host[i] - w) <= atol + rtol * std::fabs(w))) {
      std::printf("  mismatch at %zu: got %.17g want %.17g\n", i, (double)host[i], w);
      return false;
    }
  }
  return true;
}

double gauss_ref(double x, double m, double s) {
  const double z = (x - m) / s;
  return std::exp(-0.5 * z * z) / (s * 2.5066282746310002);
}

int main() {
  Timer timer;
  g_timer = &timer;
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf("kernel probes on %s (%d SMs)\n", prop.name, prop.multiProcessorCount);
  const double mean = 0.25, sigma = 1.5;

  {  // float64 gaussian_pdf, 2^28
    const size_t n = size_t{1} << 28;
    const auto xs = random_vector<double>(n, -3, 3, 1);
    double* x = upload(xs);
    double* y = nullptr;
    CHECK(cudaMalloc(&y, n * sizeof(double)));
    const double bytes = 16.0 * n, ceiling = copy_ms(y, x, n * sizeof(double));
    std::printf("-- gaussian_pdf float64, 2^28 (copy of the same bytes: %.3f ms)\n", ceiling);
    auto run = [&](auto kernel, int per_thread, const char* name, bool verify) {
      const unsigned grid = (unsigned)(n / (256 * per_thread));
      const double ms = timer.median_ms([&] { kernel<<<grid, 256>>>(x, y, mean, sigma, (long long)n); });
      bool ok = true;
      if (verify) ok = check_sampled<double>(y, n, 1e-13, 1e-300, [&](size_t i) { return gauss_ref(xs[i], mean, sigma); });
      report(name, ms, bytes, ceiling, ok || !verify);
    };
    run(gauss64<0, 4>, 8, "real, 8 elements a thread (jitvec's shape)", true);
    run(gauss64<0, 8>, 16, "real, 16 elements a thread", true);
    run(gauss64<0, 2>, 4, "real, 4 elements a thread", true);
    run(gauss64<1, 4>, 8, "compute only (stores, no loads)", false);
    run(gauss64<2, 4>, 8, "memory only (x + mean)", false);
    CHECK(cudaFree(x));
    CHECK(cudaFree(y));
  }
  {  // float32 polar_distance, 2^26
    const size_t n = size_t{1} << 26;
    const auto r1 = random_vector<float>(n, 0.5, 2, 2), t1 = random_vector<float>(n, 0, 6.283, 3);
    const auto r2 = random_vector<float>(n, 0.5, 2, 4), t2 = random_vector<float>(n, 0, 6.283, 5);
    float *a = upload(r1), *b = upload(t1), *c = upload(r2), *d = upload(t2), *y = nullptr, *big = nullptr;
    CHECK(cudaMalloc(&y, n * sizeof(float)));
    CHECK(cudaMalloc(&big, 5 * n * sizeof(float) / 2 + 16));
    const double bytes = 20.0 * n;
    // The copy ceiling moves the same bytes: 10 n bytes read and 10 n written.
    float* big_src = nullptr;
    CHECK(cudaMalloc(&big_src, 10 * n));
    CHECK(cudaMemset(big_src, 1, 10 * n));
    const double ceiling = copy_ms(big, big_src, 10 * n);
    std::printf("-- polar_distance float32, 2^26 (copy of the same bytes: %.3f ms)\n", ceiling);
    auto run = [&](auto kernel, int per_thread, const char* name, bool verify) {
      const unsigned grid = (unsigned)(n / (256 * per_thread));
      const double ms = timer.median_ms([&] { kernel<<<grid, 256>>>(a, b, c, d, y, (long long)n); });
      bool ok = true;
      if (verify) ok = check_sampled<float>(y, n, 2e-6, 5e-6, [&](size_t i) {
        const double x1 = r1[i] * std::cos((double)t1[i]), y1 = r1[i] * std::sin((double)t1[i]);
        const double x2 = r2[i] * std::cos((double)t2[i]), y2 = r2[i] * std::sin((double)t2[i]);
        return std::sqrt((x1 - x2) * (x1 - x2) + (y1 - y2) * (y1 - y2));
      });
      report(name, ms, bytes, ceiling, ok || !verify);
    };
    run(polar32<0, 2>, 8, "real, 8 elements a thread (jitvec's shape)", true);
    run(polar32<0, 1>, 4, "real, 4 elements a thread", true);
    run(polar32<0, 4>, 16, "real, 16 elements a thread", true);
    run(polar32<1, 2>, 8, "compute only (stores, no loads)", false);
    run(polar32<2, 2>, 8, "memory only (sum of the inputs)", false);
    for (float* p : {a, b, c, d, y, big, big_src}) CHECK(cudaFree(p));
  }
  {  // transposed input, 16384^2 float32
    const int side = 16384;
    const size_t n = (size_t)side * side;
    const auto xs = random_vector<float>(n, -3, 3, 6);
    float* x = upload(xs);
    float* y = nullptr;
    CHECK(cudaMalloc(&y, n * sizeof(float)));
    const double bytes = 8.0 * n, ceiling = copy_ms(y, x, n * sizeof(float));
    std::printf("-- gaussian_pdf of x.T, %d^2 float32 (copy of the same bytes: %.3f ms)\n", side, ceiling);
    auto run = [&](auto kernel, int tile, const char* name) {
      CHECK(cudaMemset(y, 0xff, n * sizeof(float)));
      const dim3 grid(side / tile, side / tile);
      const double ms = timer.median_ms([&] { kernel<<<grid, 256>>>(x, y, side, (float)mean, (float)sigma); });
      const bool ok = check_sampled<float>(y, n, 2e-6, 1e-7, [&](size_t k) {
        const size_t r = k / side, c = k % side;
        return gauss_ref(xs[c * side + r], mean, sigma);
      });
      report(name, ms, bytes, ceiling, ok);
    };
    run(tiled_scalar, 64, "64x64 tiles, scalar (jitvec_tiled2d's scheme)");
    run(tiled_vec4, 64, "64x64 tiles, 16-byte loads and stores");
    run(tiled_32, 32, "32x32 tiles, scalar");
    CHECK(cudaFree(x));
    CHECK(cudaFree(y));
  }
  return 0;
}

// bench/probes/scan_probes.cu: why does accumulate (a one-pass inclusive scan of 2^28 float32)
// read only ~0.6 of the device copy on the H200, and what would lift it? Hand-written variants
// of jitvec_scan_tiles' structure (kernels/scan.hpp), each timed against the copy in one run:
//   * copy     the tile's structure with no scan: stage ROWS x 256 x 16 bytes in shared memory
//              with cp.async, write them back (or, "regs", hold them in registers). Tile numbers
//              from blockIdx or from an atomic counter (as jitvec takes them).
//   * rows     the tile scanned as jitvec does today: row by row, a barrier a row.
//   * onebar   the same order of folds, but every row's warp scans at once and one barrier.
//   * +nb      a look-back of one round trip: a tile publishes its aggregate, then waits for
//              its predecessor's (no chain: the predecessor publishes before it waits), and
//              adds it in front. Tile-local scans (and +nb's one neighbour) are what the
//              outputs hold, so every variant's output is checked against a float64 host
//              reference of exactly that, on every element.
// Build and run on the GPU machine:
//   nvcc -O3 -arch=sm_90 -std=c++17 -o scan_probes bench/probes/scan_probes.cu
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "probe_support.cuh"

constexpr int BLOCK = 256, WARPS = BLOCK / 32;
enum : int { kCounter = 1, kRowScan = 2, kOneBarrier = 4, kNeighbour = 8, kRegisters = 16 };

__device__ __forceinline__ void copy_async(float4* to, const float4* from) {
  const unsigned int s = static_cast<unsigned int>(__cvta_generic_to_shared(to));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(s), "l"(from) : "memory");
}
__device__ __forceinline__ void copy_wait() { asm volatile("cp.async.wait_all;\n" ::: "memory"); }

// The fold of warp sums in order: the row's total and the sum of the warps before `warp`.
__device__ __forceinline__ void fold_warps(const float* sums, int warp, float& before_warp, float& total) {
  float run = sums[0], wx = run;
#pragma unroll
  for (int i = 1; i < WARPS; ++i) {
    if (i == warp) wx = run;
    run += sums[i];
  }
  before_warp = wx;
  total = run;
}

// The tile scanned (rows or onebar), +nb's neighbour in front, written.
template <int ROWS, int MODE>
__device__ __forceinline__ void scan_tile(float4* stage, const float4* src, float4* dst, unsigned long long* status, long long k) {
  __shared__ float sums[ROWS][WARPS];
  __shared__ float carry_in;
  const int t = threadIdx.x, lane = t & 31, warp = t >> 5;
#pragma unroll
  for (int u = 0; u < ROWS; ++u) copy_async(&stage[u * BLOCK + t], &src[u * BLOCK + t]);
  copy_wait();  // each thread reads back only its own slots
  float excl[ROWS], tot[ROWS];
  if (MODE & kRowScan) {
#pragma unroll
    for (int u = 0; u < ROWS; ++u) {
      const float4 v = stage[u * BLOCK + t];
      float s = ((v.x + v.y) + v.z) + v.w;
#pragma unroll
      for (int d = 1; d < 32; d *= 2) {
        const float y = __shfl_up_sync(0xffffffffu, s, d);
        if (lane >= d) s = y + s;
      }
      const float before = __shfl_up_sync(0xffffffffu, s, 1);
      if (lane == 31) sums[u][warp] = s;
      __syncthreads();
      float wx;
      fold_warps(sums[u], warp, wx, tot[u]);
      excl[u] = lane == 0 ? wx : warp > 0 ? wx + before : before;
    }
  } else {
    float s[ROWS];
#pragma unroll
    for (int u = 0; u < ROWS; ++u) {
      const float4 v = stage[u * BLOCK + t];
      s[u] = ((v.x + v.y) + v.z) + v.w;
    }
#pragma unroll
    for (int d = 1; d < 32; d *= 2) {
#pragma unroll
      for (int u = 0; u < ROWS; ++u) {
        const float y = __shfl_up_sync(0xffffffffu, s[u], d);
        if (lane >= d) s[u] = y + s[u];
      }
    }
#pragma unroll
    for (int u = 0; u < ROWS; ++u) {
      const float before = __shfl_up_sync(0xffffffffu, s[u], 1);
      if (lane == 31) sums[u][warp] = s[u];
      excl[u] = before;
    }
    __syncthreads();
#pragma unroll
    for (int u = 0; u < ROWS; ++u) {
      float wx;
      fold_warps(sums[u], warp, wx, tot[u]);
      excl[u] = lane == 0 ? wx : warp > 0 ? wx + excl[u] : excl[u];
    }
  }
  bool has_carry = false;
  float carry = 0.0f;
  if (MODE & kNeighbour) {
    if (t == 0) {
      float a = tot[0];
#pragma unroll
      for (int u = 1; u < ROWS; ++u) a += tot[u];
      volatile unsigned long long* flags = status + 1;
      flags[k] = (static_cast<unsigned long long>(__float_as_uint(a)) << 32) | 1ull;
      float c = 0.0f;
      if (k > 0) {
        unsigned long long w;
        while (!((w = flags[k - 1]) & 1ull)) __nanosleep(32);
        c = __uint_as_float(static_cast<unsigned int>(w >> 32));
      }
      carry_in = c;
    }
    __syncthreads();
    carry = carry_in;
    has_carry = k > 0;
  }
#pragma unroll
  for (int u = 0; u < ROWS; ++u) {
    const float4 v = stage[u * BLOCK + t];
    float4 x;
    x.x = v.x;
    x.y = x.x + v.y;
    x.z = x.y + v.z;
    x.w = x.z + v.w;
    const bool has_excl = t > 0;
    if (has_carry || has_excl) {
      const float c = has_carry && has_excl ? carry + excl[u] : has_carry ? carry : excl[u];
      x.x = c + x.x;
      x.y = c + x.y;
      x.z = c + x.z;
      x.w = c + x.w;
    }
    dst[u * BLOCK + t] = x;
    carry = has_carry ? carry + tot[u] : tot[u];
    has_carry = true;
  }
}

template <int ROWS, int MODE>
__global__ void __launch_bounds__(BLOCK) tile_probe(const float* __restrict__ in, float* __restrict__ out,
                                                    unsigned long long* status) {
  extern __shared__ float4 stage[];  // ROWS * BLOCK
  __shared__ long long tile_id;
  const int t = threadIdx.x;
  long long k = blockIdx.x;
  if (MODE & kCounter) {
    if (t == 0) tile_id = static_cast<long long>(atomicAdd(status, 1ull));
    __syncthreads();
    k = tile_id;
  }
  const float4* src = reinterpret_cast<const float4*>(in) + k * ROWS * BLOCK;
  float4* dst = reinterpret_cast<float4*>(out) + k * ROWS * BLOCK;
  if constexpr (!(MODE & (kRowScan | kOneBarrier))) {  // copy
    if constexpr (MODE & kRegisters) {
      float4 r[ROWS];
#pragma unroll
      for (int u = 0; u < ROWS; ++u) r[u] = src[u * BLOCK + t];
#pragma unroll
      for (int u = 0; u < ROWS; ++u) dst[u * BLOCK + t] = r[u];
    } else {
#pragma unroll
      for (int u = 0; u < ROWS; ++u) copy_async(&stage[u * BLOCK + t], &src[u * BLOCK + t]);
      copy_wait();
#pragma unroll
      for (int u = 0; u < ROWS; ++u) dst[u * BLOCK + t] = stage[u * BLOCK + t];
    }
  } else {
    scan_tile<ROWS, MODE>(stage, src, dst, status, k);
  }
}


// Every element of `got` against the float64 reference: the tile-local inclusive scan, plus
// (neighbour) the previous tile's total in front, or (copy) the input itself.
bool check(const std::vector<float>& x, const std::vector<float>& got, long long tile, bool scan, bool neighbour) {
  const size_t n = x.size();
  double run = 0.0, prev_total = 0.0;
  for (size_t i = 0; i < n; ++i) {
    double want = x[i];
    if (scan) {
      if (i % tile == 0) {
        prev_total = run;
        run = 0.0;
      }
      run += x[i];
      want = run + (neighbour && i >= static_cast<size_t>(tile) ? prev_total : 0.0);
    }
    const double tol = scan ? 1e-6 * (1.0 + std::fabs(want)) * 64 : 0.0;
    if (!(std::fabs(static_cast<double>(got[i]) - want) <= tol)) {
      std::printf("  mismatch at %zu: got %.9g want %.9g\n", i, static_cast<double>(got[i]), want);
      return false;
    }
  }
  return true;
}

int main() {
  Timer timer;
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  const size_t n = size_t{1} << 28;
  std::printf("scan probes on %s (%d SMs), 2^28 float32; ratio = 8 bytes an element against the copy\n", prop.name,
              prop.multiProcessorCount);
  std::vector<float> xs(n);
  std::mt19937 g(7);
  std::uniform_real_distribution<float> d(0.0f, 1.0f);
  for (auto& e : xs) e = d(g);
  float *x = nullptr, *y = nullptr;
  unsigned long long* status = nullptr;
  CHECK(cudaMalloc(&x, n * 4));
  CHECK(cudaMalloc(&y, n * 4));
  CHECK(cudaMalloc(&status, 8 * (n / 1024 + 2)));
  CHECK(cudaMemcpy(x, xs.data(), n * 4, cudaMemcpyHostToDevice));
  const double copy = timer.median_ms([&] { CHECK(cudaMemcpyAsync(y, x, n * 4, cudaMemcpyDeviceToDevice)); });
  std::printf("%-34s %8.3f ms\n", "device copy (1 GiB)", copy);
  std::vector<float> got(n);
  auto run = [&](const char* name, auto kernel, int rows, int mode) {
    const long long tile = static_cast<long long>(rows) * BLOCK * 4;
    const int smem = rows * BLOCK * 16;
    CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    int per_sm = 0;
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, BLOCK, smem));
    const unsigned int blocks = static_cast<unsigned int>(n / tile);
    const size_t status_bytes = 8 * (blocks + 1);
    auto launch = [&] {
      if (mode & (kCounter | kNeighbour)) CHECK(cudaMemsetAsync(status, 0, status_bytes));
      kernel<<<blocks, BLOCK, smem>>>(x, y, status);
    };
    CHECK(cudaMemset(y, 0xff, n * 4));  // poison
    const double ms = timer.median_ms(launch);
    CHECK(cudaMemcpy(got.data(), y, n * 4, cudaMemcpyDeviceToHost));
    const bool ok = check(xs, got, tile, mode & (kRowScan | kOneBarrier), mode & kNeighbour);
    std::printf("%-34s %8.3f ms  %.3f of copy  %d KB tiles, %d blocks/SM  %s\n", name, ms, copy / ms,
                rows * BLOCK * 16 / 1024, per_sm, ok ? "verified" : "WRONG");
  };
  run("copy R8 blockIdx", tile_probe<8, 0>, 8, 0);
  run("copy R8 counter", tile_probe<8, kCounter>, 8, kCounter);
  run("copy R8 regs blockIdx", tile_probe<8, kRegisters>, 8, kRegisters);
  run("copy R16 counter", tile_probe<16, kCounter>, 16, kCounter);
  run("copy R4 counter", tile_probe<4, kCounter>, 4, kCounter);
  run("rows R8 counter", tile_probe<8, kCounter | kRowScan>, 8, kCounter | kRowScan);
  run("rows R8 counter +nb", tile_probe<8, kCounter | kRowScan | kNeighbour>, 8, kCounter | kRowScan | kNeighbour);
  run("onebar R8 counter", tile_probe<8, kCounter | kOneBarrier>, 8, kCounter | kOneBarrier);
  run("onebar R8 counter +nb", tile_probe<8, kCounter | kOneBarrier | kNeighbour>, 8, kCounter | kOneBarrier | kNeighbour);
  run("onebar R4 counter +nb", tile_probe<4, kCounter | kOneBarrier | kNeighbour>, 4, kCounter | kOneBarrier | kNeighbour);
  run("onebar R16 counter +nb", tile_probe<16, kCounter | kOneBarrier | kNeighbour>, 16, kCounter | kOneBarrier | kNeighbour);
  run("onebar R8 blockIdx +nb", tile_probe<8, kOneBarrier | kNeighbour>, 8, kOneBarrier | kNeighbour);
  return 0;
}

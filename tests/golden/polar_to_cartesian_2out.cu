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
#line 1 "ufunc:polar_to_cartesian"
__device__ void polar_to_cartesian(float r, float theta, float& x, float& y) {
  x = r * cosf(theta);
  y = r * sinf(theta);
}
#line 1 "jitvec-generated-loop"
namespace jitvec_detail {
__device__ __forceinline__ void jitvec_apply(float a0, float a1, float& r0, float& r1) {
  polar_to_cartesian(a0, a1, r0, r1);
}
}  // namespace jitvec_detail
using jitvec_detail::jitvec_apply;
struct jitvec_strided32_params {
  unsigned numel;
  int ndim;
  unsigned sizes[16];
  unsigned magic[16];
  unsigned shift[16];
  int strides[4][16];
};
static_assert(sizeof(jitvec_strided32_params) == 456, "jitvec: strided parameter layout");
struct jitvec_strided64_params {
  long long numel;
  long long ndim;
  long long sizes[16];
  long long strides[4][16];
};
static_assert(sizeof(jitvec_strided64_params) == 656, "jitvec: strided parameter layout");
extern "C" __global__ void __launch_bounds__(256) jitvec_contig_vec(const float* __restrict__ in0, const float s0, const float* __restrict__ in1, const float s1, float* __restrict__ out0, double* __restrict__ out1, const unsigned scalar_mask, const unsigned lane_mask, const long long n) {
  constexpr int BLOCK = 256, VEC = 2, UNROLL = 4;
  constexpr long long TILE = static_cast<long long>(BLOCK) * VEC * UNROLL;
  const long long base = static_cast<long long>(blockIdx.x) * TILE;
  if (base + TILE <= n) {
    jitvec_detail::Vec<float, VEC> v0[UNROLL];
    if (!((scalar_mask >> 0) & 1u)) {
#pragma unroll
      for (int u = 0; u < UNROLL; ++u)
        v0[u] = *reinterpret_cast<const jitvec_detail::Vec<float, VEC>*>(in0 + base + (static_cast<long long>(u) * BLOCK + threadIdx.x) * VEC);
    }
    jitvec_detail::Vec<float, VEC> v1[UNROLL];
    if (!((scalar_mask >> 1) & 1u)) {
#pragma unroll
      for (int u = 0; u < UNROLL; ++u)
        v1[u] = *reinterpret_cast<const jitvec_detail::Vec<float, VEC>*>(in1 + base + (static_cast<long long>(u) * BLOCK + threadIdx.x) * VEC);
    }
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) {
      jitvec_detail::Vec<float, VEC> r0;
      jitvec_detail::Vec<double, VEC> r1;
#pragma unroll
      for (int e = 0; e < VEC; ++e) { float res0; float res1; jitvec_apply(((scalar_mask >> 0) & 1u ? s0 : v0[u].v[e]), ((scalar_mask >> 1) & 1u ? s1 : v1[u].v[e]), res0, res1); r0.v[e] = res0; r1.v[e] = static_cast<double>(res1); }
      *reinterpret_cast<jitvec_detail::Vec<float, VEC>*>(out0 + base + (static_cast<long long>(u) * BLOCK + threadIdx.x) * VEC) = r0;
      *reinterpret_cast<jitvec_detail::Vec<double, VEC>*>(out1 + base + (static_cast<long long>(u) * BLOCK + threadIdx.x) * VEC) = r1;
    }
  } else {
    for (long long i = base + threadIdx.x; i < n; i += BLOCK) { float res0; float res1; jitvec_apply(((scalar_mask >> 0) & 1u ? s0 : in0[i]), ((scalar_mask >> 1) & 1u ? s1 : in1[i]), res0, res1); out0[i] = res0; out1[i] = static_cast<double>(res1); }
  }
}
extern "C" __global__ void __launch_bounds__(256) jitvec_contig_vec_s0(const float* __restrict__ in0, const float s0, const float* __restrict__ in1, const float s1, float* __restrict__ out0, double* __restrict__ out1, const unsigned scalar_mask, const unsigned lane_mask, const long long n) {
  constexpr int BLOCK = 256, VEC = 2, UNROLL = 4;
  constexpr long long TILE = static_cast<long long>(BLOCK) * VEC * UNROLL;
  const long long base = static_cast<long long>(blockIdx.x) * TILE;
  if (base + TILE <= n) {
    jitvec_detail::Vec<float, VEC> v0[UNROLL];
#pragma unroll
    for (int u = 0; u < UNROLL; ++u)
      v0[u] = *reinterpret_cast<const jitvec_detail::Vec<float, VEC>*>(in0 + base + (static_cast<long long>(u) * BLOCK + threadIdx.x) * VEC);
    jitvec_detail::Vec<float, VEC> v1[UNROLL];
#pragma unroll
    for (int u = 0; u < UNROLL; ++u)
      v1[u] = *reinterpret_cast<const jitvec_detail::Vec<float, VEC>*>(in1 + base + (static_cast<long long>(u) * BLOCK + threadIdx.x) * VEC);
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) {
      jitvec_detail::Vec<float, VEC> r0;
      jitvec_detail::Vec<double, VEC> r1;
#pragma unroll
      for (int e = 0; e < VEC; ++e) { float res0; float res1; jitvec_apply(v0[u].v[e], v1[u].v[e], res0, res1); r0.v[e] = res0; r1.v[e] = static_cast<double>(res1); }
      *reinterpret_cast<jitvec_detail::Vec<float, VEC>*>(out0 + base + (static_cast<long long>(u) * BLOCK + threadIdx.x) * VEC) = r0;
      *reinterpret_cast<jitvec_detail::Vec<double, VEC>*>(out1 + base + (static_cast<long long>(u) * BLOCK + threadIdx.x) * VEC) = r1;
    }
  } else {
    for (long long i = base + threadIdx.x; i < n; i += BLOCK) { float res0; float res1; jitvec_apply(in0[i], in1[i], res0, res1); out0[i] = res0; out1[i] = static_cast<double>(res1); }
  }
}
extern "C" __global__ void __launch_bounds__(256) jitvec_contig_vec_s2(const float* __restrict__ in0, const float s0, const float* __restrict__ in1, const float s1, float* __restrict__ out0, double* __restrict__ out1, const unsigned scalar_mask, const unsigned lane_mask, const long long n) {
  constexpr int BLOCK = 256, VEC = 2, UNROLL = 4;
  constexpr long long TILE = static_cast<long long>(BLOCK) * VEC * UNROLL;
  const long long base = static_cast<long long>(blockIdx.x) * TILE;
  if (base + TILE <= n) {
    jitvec_detail::Vec<float, VEC> v0[UNROLL];
#pragma unroll
    for (int u = 0; u < UNROLL; ++u)
      v0[u] = *reinterpret_cast<const jitvec_detail::Vec<float, VEC>*>(in0 + base + (static_cast<long long>(u) * BLOCK + threadIdx.x) * VEC);
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) {
      jitvec_detail::Vec<float, VEC> r0;
      jitvec_detail::Vec<double, VEC> r1;
#pragma unroll
      for (int e = 0; e < VEC; ++e) { float res0; float res1; jitvec_apply(v0[u].v[e], s1, res0, res1); r0.v[e] = res0; r1.v[e] = static_cast<double>(res1); }
      *reinterpret_cast<jitvec_detail::Vec<float, VEC>*>(out0 + base + (static_cast<long long>(u) * BLOCK + threadIdx.x) * VEC) = r0;
      *reinterpret_cast<jitvec_detail::Vec<double, VEC>*>(out1 + base + (static_cast<long long>(u) * BLOCK + threadIdx.x) * VEC) = r1;
    }
  } else {
    for (long long i = base + threadIdx.x; i < n; i += BLOCK) { float res0; float res1; jitvec_apply(in0[i], s1, res0, res1); out0[i] = res0; out1[i] = static_cast<double>(res1); }
  }
}
extern "C" __global__ void __launch_bounds__(256) jitvec_contig(const float* __restrict__ in0, const float s0, const float* __restrict__ in1, const float s1, float* __restrict__ out0, double* __restrict__ out1, const unsigned scalar_mask, const unsigned lane_mask, const long long n) {
  const long long step = static_cast<long long>(gridDim.x) * 256;
  for (long long i = static_cast<long long>(blockIdx.x) * 256 + threadIdx.x; i < n; i += step)
    { float res0; float res1; jitvec_apply(((scalar_mask >> 0) & 1u ? s0 : in0[i]), ((scalar_mask >> 1) & 1u ? s1 : in1[i]), res0, res1); out0[i] = res0; out1[i] = static_cast<double>(res1); }
}
extern "C" __global__ void __launch_bounds__(256) jitvec_strided32(const float* __restrict__ in0, const float s0, const float* __restrict__ in1, const float s1, float* __restrict__ out0, double* __restrict__ out1, const unsigned scalar_mask, const unsigned lane_mask, const jitvec_strided32_params p) {
  constexpr int BLOCK = 256, UNROLL = 4, OPERANDS = 4, OUT = OPERANDS - 2;
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
  float v0[UNROLL];
  if (!((scalar_mask >> 0) & 1u)) {
#pragma unroll
    for (int u = 0; u < UNROLL; ++u)
      if (base + u * BLOCK < p.numel) v0[u] = in0[off[0][u]];
  }
  float v1[UNROLL];
  if (!((scalar_mask >> 1) & 1u)) {
#pragma unroll
    for (int u = 0; u < UNROLL; ++u)
      if (base + u * BLOCK < p.numel) v1[u] = in1[off[1][u]];
  }
#pragma unroll
  for (int u = 0; u < UNROLL; ++u)
    if (base + u * BLOCK < p.numel) { float res0; float res1; jitvec_apply(((scalar_mask >> 0) & 1u ? s0 : v0[u]), ((scalar_mask >> 1) & 1u ? s1 : v1[u]), res0, res1); out0[off[OUT][u]] = res0; out1[off[OUT + 1][u]] = static_cast<double>(res1); }
}
extern "C" __global__ void __launch_bounds__(256) jitvec_strided64(const float* __restrict__ in0, const float s0, const float* __restrict__ in1, const float s1, float* __restrict__ out0, double* __restrict__ out1, const unsigned scalar_mask, const unsigned lane_mask, const jitvec_strided64_params p) {
  constexpr int BLOCK = 256, UNROLL = 1, OPERANDS = 4, OUT = OPERANDS - 2;
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
  float v0[UNROLL];
  if (!((scalar_mask >> 0) & 1u)) {
#pragma unroll
    for (int u = 0; u < UNROLL; ++u)
      if (base + u * BLOCK < p.numel) v0[u] = in0[off[0][u]];
  }
  float v1[UNROLL];
  if (!((scalar_mask >> 1) & 1u)) {
#pragma unroll
    for (int u = 0; u < UNROLL; ++u)
      if (base + u * BLOCK < p.numel) v1[u] = in1[off[1][u]];
  }
#pragma unroll
  for (int u = 0; u < UNROLL; ++u)
    if (base + u * BLOCK < p.numel) { float res0; float res1; jitvec_apply(((scalar_mask >> 0) & 1u ? s0 : v0[u]), ((scalar_mask >> 1) & 1u ? s1 : v1[u]), res0, res1); out0[off[OUT][u]] = res0; out1[off[OUT + 1][u]] = static_cast<double>(res1); }
}
extern "C" __global__ void __launch_bounds__(256) jitvec_rows(const float* __restrict__ in0, const float s0, const float* __restrict__ in1, const float s1, float* __restrict__ out0, double* __restrict__ out1, const unsigned scalar_mask, const unsigned lane_mask, const jitvec_strided64_params p) {
  constexpr int BLOCK = 256, UNROLL = 4, OPERANDS = 4, OUT = OPERANDS - 2;
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
    float v0[UNROLL];
    if (!((scalar_mask >> 0) & 1u)) {
      const float* row0 = in0 + base[0];
#pragma unroll
      for (int u = 0; u < UNROLL; ++u)
        if (c0 + u * BLOCK < cols) v0[u] = row0[(c0 + u * BLOCK) * p.strides[0][0]];
    }
    float v1[UNROLL];
    if (!((scalar_mask >> 1) & 1u)) {
      const float* row1 = in1 + base[1];
#pragma unroll
      for (int u = 0; u < UNROLL; ++u)
        if (c0 + u * BLOCK < cols) v1[u] = row1[(c0 + u * BLOCK) * p.strides[1][0]];
    }
    float* row_out0 = out0 + base[OUT];
    double* row_out1 = out1 + base[OUT + 1];
#pragma unroll
    for (int u = 0; u < UNROLL; ++u)
      if (c0 + u * BLOCK < cols) { float res0; float res1; jitvec_apply(((scalar_mask >> 0) & 1u ? s0 : v0[u]), ((scalar_mask >> 1) & 1u ? s1 : v1[u]), res0, res1); row_out0[(c0 + u * BLOCK) * p.strides[OUT][0]] = res0; row_out1[(c0 + u * BLOCK) * p.strides[OUT + 1][0]] = static_cast<double>(res1); }
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
extern "C" __global__ void __launch_bounds__(256) jitvec_rows_vec(const float* __restrict__ in0, const float s0, const float* __restrict__ in1, const float s1, float* __restrict__ out0, double* __restrict__ out1, const unsigned scalar_mask, const unsigned lane_mask, const jitvec_strided64_params p) {
  constexpr int BLOCK = 256, VEC = 2, UNROLL = 4, OPERANDS = 4, OUT = OPERANDS - 2;
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
    jitvec_detail::Vec<float, VEC> v0[UNROLL];
    const float* row0 = in0 + base[0];
    if (!((scalar_mask >> 0) & 1u)) {
      if ((column_mask >> 0) & 1u) {
        const float same = *row0;
#pragma unroll
        for (int u = 0; u < UNROLL; ++u)
#pragma unroll
          for (int e = 0; e < VEC; ++e) v0[u].v[e] = same;
      } else {
#pragma unroll
        for (int u = 0; u < UNROLL; ++u)
          if (q0 + u * BLOCK < vectors) v0[u] = *reinterpret_cast<const jitvec_detail::Vec<float, VEC>*>(row0 + (q0 + u * BLOCK) * VEC);
      }
    }
    jitvec_detail::Vec<float, VEC> v1[UNROLL];
    const float* row1 = in1 + base[1];
    if (!((scalar_mask >> 1) & 1u)) {
      if ((column_mask >> 1) & 1u) {
        const float same = *row1;
#pragma unroll
        for (int u = 0; u < UNROLL; ++u)
#pragma unroll
          for (int e = 0; e < VEC; ++e) v1[u].v[e] = same;
      } else {
#pragma unroll
        for (int u = 0; u < UNROLL; ++u)
          if (q0 + u * BLOCK < vectors) v1[u] = *reinterpret_cast<const jitvec_detail::Vec<float, VEC>*>(row1 + (q0 + u * BLOCK) * VEC);
      }
    }
    float* row_out0 = out0 + base[OUT];
    double* row_out1 = out1 + base[OUT + 1];
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) {
      if (q0 + u * BLOCK >= vectors) break;
      jitvec_detail::Vec<float, VEC> result0;
      jitvec_detail::Vec<double, VEC> result1;
#pragma unroll
      for (int e = 0; e < VEC; ++e) { float res0; float res1; jitvec_apply(((scalar_mask >> 0) & 1u ? s0 : v0[u].v[e]), ((scalar_mask >> 1) & 1u ? s1 : v1[u].v[e]), res0, res1); result0.v[e] = res0; result1.v[e] = static_cast<double>(res1); }
      *reinterpret_cast<jitvec_detail::Vec<float, VEC>*>(row_out0 + (q0 + u * BLOCK) * VEC) = result0;
      *reinterpret_cast<jitvec_detail::Vec<double, VEC>*>(row_out1 + (q0 + u * BLOCK) * VEC) = result1;
    }
    const long long c = vectors * VEC + threadIdx.x;
    if (blockIdx.x == 0 && c < cols) { float res0; float res1; jitvec_apply(((scalar_mask >> 0) & 1u ? s0 : row0[((column_mask >> 0) & 1u) ? 0 : c]), ((scalar_mask >> 1) & 1u ? s1 : row1[((column_mask >> 1) & 1u) ? 0 : c]), res0, res1); row_out0[c] = res0; row_out1[c] = static_cast<double>(res1); }
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
extern "C" __global__ void __launch_bounds__(256) jitvec_tiled(const float* __restrict__ in0, const float s0, const float* __restrict__ in1, const float s1, float* __restrict__ out0, double* __restrict__ out1, const unsigned scalar_mask, const unsigned lane_mask, const jitvec_strided64_params p) {
  extern __shared__ __align__(16) unsigned char jitvec_tiles[];
  constexpr int OPERANDS = 4, OUT = OPERANDS - 2;
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
  float (*tile0)[65] = reinterpret_cast<float (*)[65]>(jitvec_tiles + slot);
  if ((tiled_mask >> 0) & 1u) {
    slot += 64 * 65 * sizeof(float);
    const float* src = in0 + base[0] + (r0 + tx) * p.strides[0][1] + (c0 + ty) * p.strides[0][0];
    const long long step = 4 * p.strides[0][0];
    if (interior) {
      float v[16];
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
  float (*tile1)[65] = reinterpret_cast<float (*)[65]>(jitvec_tiles + slot);
  if ((tiled_mask >> 1) & 1u) {
    slot += 64 * 65 * sizeof(float);
    const float* src = in1 + base[1] + (r0 + tx) * p.strides[1][1] + (c0 + ty) * p.strides[1][0];
    const long long step = 4 * p.strides[1][0];
    if (interior) {
      float v[16];
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
  const float* direct0 = in0 + base[0] + r * p.strides[0][1] + c * p.strides[0][0];
  const long long direct_step0 = 4 * p.strides[0][1];
  const float* direct1 = in1 + base[1] + r * p.strides[1][1] + c * p.strides[1][0];
  const long long direct_step1 = 4 * p.strides[1][1];
  auto* dst0 = out0 + base[OUT] + r * p.strides[OUT][1] + c * p.strides[OUT][0];
  const long long out_step0 = 4 * p.strides[OUT][1];
  auto* dst1 = out1 + base[OUT + 1] + r * p.strides[OUT + 1][1] + c * p.strides[OUT + 1][0];
  const long long out_step1 = 4 * p.strides[OUT + 1][1];
  if (interior) {
#pragma unroll
    for (int j = 0; j < 16; ++j) { float res0; float res1; jitvec_apply(((scalar_mask >> 0) & 1u ? s0 : (((tiled_mask >> 0) & 1u) ? tile0[tx][ty + 4 * j] : direct0[j * direct_step0])), ((scalar_mask >> 1) & 1u ? s1 : (((tiled_mask >> 1) & 1u) ? tile1[tx][ty + 4 * j] : direct1[j * direct_step1])), res0, res1); dst0[j * out_step0] = res0; dst1[j * out_step1] = static_cast<double>(res1); }
  } else {
#pragma unroll 1
    for (int j = 0; j < 16; ++j)
      if (r + 4 * j < rows && c < cols) { float res0; float res1; jitvec_apply(((scalar_mask >> 0) & 1u ? s0 : (((tiled_mask >> 0) & 1u) ? tile0[tx][ty + 4 * j] : direct0[j * direct_step0])), ((scalar_mask >> 1) & 1u ? s1 : (((tiled_mask >> 1) & 1u) ? tile1[tx][ty + 4 * j] : direct1[j * direct_step1])), res0, res1); dst0[j * out_step0] = res0; dst1[j * out_step1] = static_cast<double>(res1); }
  }
}
extern "C" __global__ void __launch_bounds__(256) jitvec_tiled_s2(const float* __restrict__ in0, const float s0, const float* __restrict__ in1, const float s1, float* __restrict__ out0, double* __restrict__ out1, const unsigned scalar_mask, const unsigned lane_mask, const jitvec_strided64_params p) {
  extern __shared__ __align__(16) unsigned char jitvec_tiles[];
  constexpr int OPERANDS = 4, OUT = OPERANDS - 2;
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
  float (*tile0)[65] = reinterpret_cast<float (*)[65]>(jitvec_tiles + slot);
  {
    slot += 64 * 65 * sizeof(float);
    const float* src = in0 + base[0] + (r0 + tx) * p.strides[0][1] + (c0 + ty) * p.strides[0][0];
    const long long step = 4 * p.strides[0][0];
    if (interior) {
      float v[16];
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
  auto* dst0 = out0 + base[OUT] + r * p.strides[OUT][1] + c * p.strides[OUT][0];
  const long long out_step0 = 4 * p.strides[OUT][1];
  auto* dst1 = out1 + base[OUT + 1] + r * p.strides[OUT + 1][1] + c * p.strides[OUT + 1][0];
  const long long out_step1 = 4 * p.strides[OUT + 1][1];
  if (interior) {
#pragma unroll
    for (int j = 0; j < 16; ++j) { float res0; float res1; jitvec_apply(tile0[tx][ty + 4 * j], s1, res0, res1); dst0[j * out_step0] = res0; dst1[j * out_step1] = static_cast<double>(res1); }
  } else {
#pragma unroll 1
    for (int j = 0; j < 16; ++j)
      if (r + 4 * j < rows && c < cols) { float res0; float res1; jitvec_apply(tile0[tx][ty + 4 * j], s1, res0, res1); dst0[j * out_step0] = res0; dst1[j * out_step1] = static_cast<double>(res1); }
  }
}
extern "C" __global__ void __launch_bounds__(256) jitvec_nd_vec(const float* __restrict__ in0, const float s0, const float* __restrict__ in1, const float s1, float* __restrict__ out0, double* __restrict__ out1, const unsigned scalar_mask, const unsigned lane_mask, const jitvec_strided32_params p) {
  constexpr int BLOCK = 256, VEC = 2, UNROLL = 8, OPERANDS = 4, OUT = OPERANDS - 2;
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
  jitvec_detail::Vec<float, VEC> v0[UNROLL];
  if (!((scalar_mask >> 0) & 1u)) {
    const int step = p.strides[0][0];
    if (step == 0) {
#pragma unroll
      for (int u = 0; u < UNROLL; ++u) {
        if (first + u * BLOCK >= p.numel) break;
        const float same = in0[off[0][u]];
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
        if (first + u * BLOCK < p.numel) v0[u] = *reinterpret_cast<const jitvec_detail::Vec<float, VEC>*>(in0 + off[0][u]);
    }
  }
  jitvec_detail::Vec<float, VEC> v1[UNROLL];
  if (!((scalar_mask >> 1) & 1u)) {
    const int step = p.strides[1][0];
    if (step == 0) {
#pragma unroll
      for (int u = 0; u < UNROLL; ++u) {
        if (first + u * BLOCK >= p.numel) break;
        const float same = in1[off[1][u]];
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
        if (first + u * BLOCK < p.numel) v1[u] = *reinterpret_cast<const jitvec_detail::Vec<float, VEC>*>(in1 + off[1][u]);
    }
  }
#pragma unroll
  for (int u = 0; u < UNROLL; ++u) {
    if (first + u * BLOCK >= p.numel) break;
    jitvec_detail::Vec<float, VEC> r0;
    jitvec_detail::Vec<double, VEC> r1;
#pragma unroll
    for (int e = 0; e < VEC; ++e) { float res0; float res1; jitvec_apply(((scalar_mask >> 0) & 1u ? s0 : v0[u].v[e]), ((scalar_mask >> 1) & 1u ? s1 : v1[u].v[e]), res0, res1); r0.v[e] = res0; r1.v[e] = static_cast<double>(res1); }
    *reinterpret_cast<jitvec_detail::Vec<float, VEC>*>(out0 + off[OUT][u]) = r0;
    *reinterpret_cast<jitvec_detail::Vec<double, VEC>*>(out1 + off[OUT + 1][u]) = r1;
  }
}

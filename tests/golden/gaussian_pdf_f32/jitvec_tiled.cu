extern "C" __global__ void __launch_bounds__(256) jitvec_tiled(const float* __restrict__ in0, const float s0, const float* __restrict__ in1, const float s1, const float* __restrict__ in2, const float s2, float* __restrict__ out, const unsigned scalar_mask, const unsigned lane_mask, const jitvec_strided64_params p) {
  extern __shared__ __align__(16) unsigned char jitvec_tiles[];
  constexpr int OPERANDS = 4, OUT = OPERANDS - 1;
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
  float (*tile2)[65] = reinterpret_cast<float (*)[65]>(jitvec_tiles + slot);
  if ((tiled_mask >> 2) & 1u) {
    slot += 64 * 65 * sizeof(float);
    const float* src = in2 + base[2] + (r0 + tx) * p.strides[2][1] + (c0 + ty) * p.strides[2][0];
    const long long step = 4 * p.strides[2][0];
    if (interior) {
      float v[16];
#pragma unroll
      for (int j = 0; j < 16; ++j) v[j] = src[j * step];
#pragma unroll
      for (int j = 0; j < 16; ++j) tile2[ty + 4 * j][tx] = v[j];
    } else {
#pragma unroll 1
      for (int j = 0; j < 16; ++j)
        if (r0 + tx < rows && c0 + ty + 4 * j < cols) tile2[ty + 4 * j][tx] = src[j * step];
    }
  }
  __syncthreads();
  const long long r = r0 + ty, c = c0 + tx;
  const float* direct0 = in0 + base[0] + r * p.strides[0][1] + c * p.strides[0][0];
  const long long direct_step0 = 4 * p.strides[0][1];
  const float* direct1 = in1 + base[1] + r * p.strides[1][1] + c * p.strides[1][0];
  const long long direct_step1 = 4 * p.strides[1][1];
  const float* direct2 = in2 + base[2] + r * p.strides[2][1] + c * p.strides[2][0];
  const long long direct_step2 = 4 * p.strides[2][1];
  auto* dst = out + base[OUT] + r * p.strides[OUT][1] + c * p.strides[OUT][0];
  const long long out_step = 4 * p.strides[OUT][1];
  if (interior) {
#pragma unroll
    for (int j = 0; j < 16; ++j) dst[j * out_step] = jitvec_apply(((scalar_mask >> 0) & 1u ? s0 : (((tiled_mask >> 0) & 1u) ? tile0[tx][ty + 4 * j] : direct0[j * direct_step0])), ((scalar_mask >> 1) & 1u ? s1 : (((tiled_mask >> 1) & 1u) ? tile1[tx][ty + 4 * j] : direct1[j * direct_step1])), ((scalar_mask >> 2) & 1u ? s2 : (((tiled_mask >> 2) & 1u) ? tile2[tx][ty + 4 * j] : direct2[j * direct_step2])));
  } else {
#pragma unroll 1
    for (int j = 0; j < 16; ++j)
      if (r + 4 * j < rows && c < cols) dst[j * out_step] = jitvec_apply(((scalar_mask >> 0) & 1u ? s0 : (((tiled_mask >> 0) & 1u) ? tile0[tx][ty + 4 * j] : direct0[j * direct_step0])), ((scalar_mask >> 1) & 1u ? s1 : (((tiled_mask >> 1) & 1u) ? tile1[tx][ty + 4 * j] : direct1[j * direct_step1])), ((scalar_mask >> 2) & 1u ? s2 : (((tiled_mask >> 2) & 1u) ? tile2[tx][ty + 4 * j] : direct2[j * direct_step2])));
  }
}

extern "C" __global__ void __launch_bounds__(256) jitvec_tiled(const short* __restrict__ in0, const double s0, float* __restrict__ out, const unsigned scalar_mask, const unsigned lane_mask, const jitvec_strided64_params p) {
  extern __shared__ __align__(16) unsigned char jitvec_tiles[];
  constexpr int OPERANDS = 2, OUT = OPERANDS - 1;
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
  __syncthreads();
  const long long r = r0 + ty, c = c0 + tx;
  const short* direct0 = in0 + base[0] + r * p.strides[0][1] + c * p.strides[0][0];
  const long long direct_step0 = 4 * p.strides[0][1];
  auto* dst = out + base[OUT] + r * p.strides[OUT][1] + c * p.strides[OUT][0];
  const long long out_step = 4 * p.strides[OUT][1];
  if (interior) {
#pragma unroll
    for (int j = 0; j < 16; ++j) dst[j * out_step] = static_cast<float>(jitvec_apply(((scalar_mask >> 0) & 1u ? s0 : static_cast<double>((((tiled_mask >> 0) & 1u) ? tile0[tx][ty + 4 * j] : direct0[j * direct_step0])))));
  } else {
#pragma unroll 1
    for (int j = 0; j < 16; ++j)
      if (r + 4 * j < rows && c < cols) dst[j * out_step] = static_cast<float>(jitvec_apply(((scalar_mask >> 0) & 1u ? s0 : static_cast<double>((((tiled_mask >> 0) & 1u) ? tile0[tx][ty + 4 * j] : direct0[j * direct_step0])))));
  }
}

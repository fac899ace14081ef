extern "C" __global__ void __launch_bounds__(256) jitvec_strided64_s0(const short* __restrict__ in0, const double s0, float* __restrict__ out, const unsigned scalar_mask, const unsigned lane_mask, const jitvec_strided64_params p) {
  constexpr int BLOCK = 256, UNROLL = 1, OPERANDS = 2, OUT = OPERANDS - 1;
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
  short v0[UNROLL];
#pragma unroll
  for (int u = 0; u < UNROLL; ++u)
    if (base + u * BLOCK < p.numel) v0[u] = in0[off[0][u]];
#pragma unroll
  for (int u = 0; u < UNROLL; ++u)
    if (base + u * BLOCK < p.numel) out[off[OUT][u]] = static_cast<float>(jitvec_apply(static_cast<double>(v0[u])));
}

extern "C" __global__ void __launch_bounds__(256) jitvec_strided64_s0(const short* __restrict__ in0, const short s0, const short* __restrict__ in1, const short s1, short* __restrict__ out, const unsigned scalar_mask, const unsigned lane_mask, const jitvec_strided64_params p) {
  constexpr int BLOCK = 256, UNROLL = 1, OPERANDS = 3, OUT = OPERANDS - 1;
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
  short v1[UNROLL];
#pragma unroll
  for (int u = 0; u < UNROLL; ++u)
    if (base + u * BLOCK < p.numel) v1[u] = in1[off[1][u]];
#pragma unroll
  for (int u = 0; u < UNROLL; ++u)
    if (base + u * BLOCK < p.numel) out[off[OUT][u]] = jitvec_apply(v0[u], v1[u]);
}

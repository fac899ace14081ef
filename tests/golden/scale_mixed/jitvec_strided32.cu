extern "C" __global__ void __launch_bounds__(256) jitvec_strided32(const short* __restrict__ in0, const double s0, float* __restrict__ out, const unsigned scalar_mask, const unsigned lane_mask, const jitvec_strided32_params p) {
  constexpr int BLOCK = 256, UNROLL = 4, OPERANDS = 2, OUT = OPERANDS - 1;
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
  short v0[UNROLL];
  if (!((scalar_mask >> 0) & 1u)) {
#pragma unroll
    for (int u = 0; u < UNROLL; ++u)
      if (base + u * BLOCK < p.numel) v0[u] = in0[off[0][u]];
  }
#pragma unroll
  for (int u = 0; u < UNROLL; ++u)
    if (base + u * BLOCK < p.numel) out[off[OUT][u]] = static_cast<float>(jitvec_apply(((scalar_mask >> 0) & 1u ? s0 : static_cast<double>(v0[u]))));
}

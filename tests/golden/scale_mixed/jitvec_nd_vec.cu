extern "C" __global__ void __launch_bounds__(256) jitvec_nd_vec(const short* __restrict__ in0, const double s0, float* __restrict__ out, const unsigned scalar_mask, const unsigned lane_mask, const jitvec_strided32_params p) {
  constexpr int BLOCK = 256, VEC = 4, UNROLL = 4, OPERANDS = 2, OUT = OPERANDS - 1;
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
  jitvec_detail::Vec<short, VEC> v0[UNROLL];
  if (!((scalar_mask >> 0) & 1u)) {
    const int step = p.strides[0][0];
    if (step == 0) {
#pragma unroll
      for (int u = 0; u < UNROLL; ++u) {
        if (first + u * BLOCK >= p.numel) break;
        const short same = in0[off[0][u]];
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
        if (first + u * BLOCK < p.numel) v0[u] = *reinterpret_cast<const jitvec_detail::Vec<short, VEC>*>(in0 + off[0][u]);
    }
  }
#pragma unroll
  for (int u = 0; u < UNROLL; ++u) {
    if (first + u * BLOCK >= p.numel) break;
    jitvec_detail::Vec<float, VEC> r;
#pragma unroll
    for (int e = 0; e < VEC; ++e) r.v[e] = static_cast<float>(jitvec_apply(((scalar_mask >> 0) & 1u ? s0 : static_cast<double>(v0[u].v[e]))));
    *reinterpret_cast<jitvec_detail::Vec<float, VEC>*>(out + off[OUT][u]) = r;
  }
}

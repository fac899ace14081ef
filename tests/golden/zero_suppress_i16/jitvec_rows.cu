extern "C" __global__ void __launch_bounds__(256) jitvec_rows(const short* __restrict__ in0, const short s0, const short* __restrict__ in1, const short s1, short* __restrict__ out, const unsigned scalar_mask, const unsigned lane_mask, const jitvec_strided64_params p) {
  constexpr int BLOCK = 256, UNROLL = 4, OPERANDS = 3, OUT = OPERANDS - 1;
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
    short v0[UNROLL];
    if (!((scalar_mask >> 0) & 1u)) {
      const short* row0 = in0 + base[0];
#pragma unroll
      for (int u = 0; u < UNROLL; ++u)
        if (c0 + u * BLOCK < cols) v0[u] = row0[(c0 + u * BLOCK) * p.strides[0][0]];
    }
    short v1[UNROLL];
    if (!((scalar_mask >> 1) & 1u)) {
      const short* row1 = in1 + base[1];
#pragma unroll
      for (int u = 0; u < UNROLL; ++u)
        if (c0 + u * BLOCK < cols) v1[u] = row1[(c0 + u * BLOCK) * p.strides[1][0]];
    }
    short* row_out = out + base[OUT];
#pragma unroll
    for (int u = 0; u < UNROLL; ++u)
      if (c0 + u * BLOCK < cols) row_out[(c0 + u * BLOCK) * p.strides[OUT][0]] = jitvec_apply(((scalar_mask >> 0) & 1u ? s0 : v0[u]), ((scalar_mask >> 1) & 1u ? s1 : v1[u]));
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

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

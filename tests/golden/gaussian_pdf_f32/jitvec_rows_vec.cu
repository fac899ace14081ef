extern "C" __global__ void __launch_bounds__(256) jitvec_rows_vec(const float* __restrict__ in0, const float s0, const float* __restrict__ in1, const float s1, const float* __restrict__ in2, const float s2, float* __restrict__ out, const unsigned scalar_mask, const unsigned lane_mask, const jitvec_strided64_params p) {
  constexpr int BLOCK = 256, VEC = 4, UNROLL = 2, OPERANDS = 4, OUT = OPERANDS - 1;
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
    jitvec_detail::Vec<float, VEC> v2[UNROLL];
    const float* row2 = in2 + base[2];
    if (!((scalar_mask >> 2) & 1u)) {
      if ((column_mask >> 2) & 1u) {
        const float same = *row2;
#pragma unroll
        for (int u = 0; u < UNROLL; ++u)
#pragma unroll
          for (int e = 0; e < VEC; ++e) v2[u].v[e] = same;
      } else {
#pragma unroll
        for (int u = 0; u < UNROLL; ++u)
          if (q0 + u * BLOCK < vectors) v2[u] = *reinterpret_cast<const jitvec_detail::Vec<float, VEC>*>(row2 + (q0 + u * BLOCK) * VEC);
      }
    }
    float* row_out = out + base[OUT];
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) {
      if (q0 + u * BLOCK >= vectors) break;
      jitvec_detail::Vec<float, VEC> result;
#pragma unroll
      for (int e = 0; e < VEC; ++e) result.v[e] = jitvec_apply(((scalar_mask >> 0) & 1u ? s0 : v0[u].v[e]), ((scalar_mask >> 1) & 1u ? s1 : v1[u].v[e]), ((scalar_mask >> 2) & 1u ? s2 : v2[u].v[e]));
      *reinterpret_cast<jitvec_detail::Vec<float, VEC>*>(row_out + (q0 + u * BLOCK) * VEC) = result;
    }
    const long long c = vectors * VEC + threadIdx.x;
    if (blockIdx.x == 0 && c < cols) row_out[c] = jitvec_apply(((scalar_mask >> 0) & 1u ? s0 : row0[((column_mask >> 0) & 1u) ? 0 : c]), ((scalar_mask >> 1) & 1u ? s1 : row1[((column_mask >> 1) & 1u) ? 0 : c]), ((scalar_mask >> 2) & 1u ? s2 : row2[((column_mask >> 2) & 1u) ? 0 : c]));
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

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

extern "C" __global__ void __launch_bounds__(256) jitvec_contig_vec(const short* __restrict__ in0, const double s0, float* __restrict__ out, const unsigned scalar_mask, const unsigned lane_mask, const long long n) {
  constexpr int BLOCK = 256, VEC = 4, UNROLL = 2;
  constexpr long long TILE = static_cast<long long>(BLOCK) * VEC * UNROLL;
  const long long base = static_cast<long long>(blockIdx.x) * TILE;
  if (base + TILE <= n) {
    jitvec_detail::Vec<short, VEC> v0[UNROLL];
    if (!((scalar_mask >> 0) & 1u)) {
#pragma unroll
      for (int u = 0; u < UNROLL; ++u)
        v0[u] = *reinterpret_cast<const jitvec_detail::Vec<short, VEC>*>(in0 + base + (static_cast<long long>(u) * BLOCK + threadIdx.x) * VEC);
    }
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) {
      jitvec_detail::Vec<float, VEC> r;
#pragma unroll
      for (int e = 0; e < VEC; ++e) r.v[e] = static_cast<float>(jitvec_apply(((scalar_mask >> 0) & 1u ? s0 : static_cast<double>(v0[u].v[e]))));
      *reinterpret_cast<jitvec_detail::Vec<float, VEC>*>(out + base + (static_cast<long long>(u) * BLOCK + threadIdx.x) * VEC) = r;
    }
  } else {
    for (long long i = base + threadIdx.x; i < n; i += BLOCK) out[i] = static_cast<float>(jitvec_apply(((scalar_mask >> 0) & 1u ? s0 : static_cast<double>(in0[i]))));
  }
}

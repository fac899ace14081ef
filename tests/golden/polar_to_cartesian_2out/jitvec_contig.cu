extern "C" __global__ void __launch_bounds__(256) jitvec_contig(const float* __restrict__ in0, const float s0, const float* __restrict__ in1, const float s1, float* __restrict__ out0, double* __restrict__ out1, const unsigned scalar_mask, const unsigned lane_mask, const long long n) {
  const long long step = static_cast<long long>(gridDim.x) * 256;
  for (long long i = static_cast<long long>(blockIdx.x) * 256 + threadIdx.x; i < n; i += step)
    { float res0; float res1; jitvec_apply(((scalar_mask >> 0) & 1u ? s0 : in0[i]), ((scalar_mask >> 1) & 1u ? s1 : in1[i]), res0, res1); out0[i] = res0; out1[i] = static_cast<double>(res1); }
}

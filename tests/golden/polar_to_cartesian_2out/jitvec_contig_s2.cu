extern "C" __global__ void __launch_bounds__(256) jitvec_contig_s2(const float* __restrict__ in0, const float s0, const float* __restrict__ in1, const float s1, float* __restrict__ out0, double* __restrict__ out1, const unsigned scalar_mask, const unsigned lane_mask, const long long n) {
  const long long step = static_cast<long long>(gridDim.x) * 256;
  // A stand-in: run only while this call's own kernel compiles, so kept quick to compile.
#pragma unroll 1
  for (long long i = static_cast<long long>(blockIdx.x) * 256 + threadIdx.x; i < n; i += step)
    { float res0; float res1; jitvec_apply(in0[i], s1, res0, res1); out0[i] = res0; out1[i] = static_cast<double>(res1); }
}

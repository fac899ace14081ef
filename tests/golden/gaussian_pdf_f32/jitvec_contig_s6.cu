extern "C" __global__ void __launch_bounds__(256) jitvec_contig_s6(const float* __restrict__ in0, const float s0, const float* __restrict__ in1, const float s1, const float* __restrict__ in2, const float s2, float* __restrict__ out, const unsigned scalar_mask, const unsigned lane_mask, const long long n) {
  const long long step = static_cast<long long>(gridDim.x) * 256;
  // A stand-in: run only while this call's own kernel compiles, so kept quick to compile.
#pragma unroll 1
  for (long long i = static_cast<long long>(blockIdx.x) * 256 + threadIdx.x; i < n; i += step)
    out[i] = jitvec_apply(in0[i], s1, s2);
}

extern "C" __attribute__((visibility("default"))) void jitvec_cpu_contig_s0(const void* image, long long begin, long long end) {
  const jitvec_args_count& args = *static_cast<const jitvec_args_count*>(image);
  const float* __restrict__ in0 = args.in0;
  const float s0 = args.s0;
  const float* __restrict__ in1 = args.in1;
  const float s1 = args.s1;
  const float* __restrict__ in2 = args.in2;
  const float s2 = args.s2;
  float* __restrict__ out = args.out;
  const unsigned scalar_mask = args.scalar_mask;
  const unsigned lane_mask = args.lane_mask;
  const long long n = args.n;
  (void)scalar_mask; (void)lane_mask; (void)begin; (void)end;
  const long long block = 256;
  for (long long b = begin; b < end; b += block) {
    const long long e = end - b < block ? end : b + block;
    const long long ahead = b + 2 * block;
    if (ahead < end) {
      const long long ahead_end = end - ahead < block ? end : ahead + block;
      for (long long f = ahead; f < ahead_end; f += 64 / sizeof(float)) __builtin_prefetch(in0 + f, 0, 1);
      for (long long f = ahead; f < ahead_end; f += 64 / sizeof(float)) __builtin_prefetch(in1 + f, 0, 1);
      for (long long f = ahead; f < ahead_end; f += 64 / sizeof(float)) __builtin_prefetch(in2 + f, 0, 1);
    }
    for (long long i = b; i < e; ++i) out[i] = jitvec_apply(in0[i], in1[i], in2[i]);
  }
}

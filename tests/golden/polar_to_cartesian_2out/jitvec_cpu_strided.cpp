extern "C" __attribute__((visibility("default"))) void jitvec_cpu_strided(const void* image, long long begin, long long end) {
  const jitvec_args_strided64& args = *static_cast<const jitvec_args_strided64*>(image);
  const float* __restrict__ in0 = args.in0;
  const float s0 = args.s0;
  const float* __restrict__ in1 = args.in1;
  const float s1 = args.s1;
  float* __restrict__ out0 = args.out0;
  double* __restrict__ out1 = args.out1;
  const unsigned scalar_mask = args.scalar_mask;
  const unsigned lane_mask = args.lane_mask;
  const jitvec_strided64_params& p = args.p;
  (void)scalar_mask; (void)lane_mask; (void)begin; (void)end;
  constexpr int OPERANDS = 4, OUT = OPERANDS - 2;
  const int ndim = static_cast<int>(p.ndim);
  long long coord[16] = {};
  long long rem = begin;
  for (int d = 0; d < ndim; ++d) { coord[d] = rem % p.sizes[d]; rem /= p.sizes[d]; }
  bool unit = true;
  for (int op = 0; op < OPERANDS; ++op)
    unit = unit && (((scalar_mask >> op) & 1u) || p.strides[op][0] == 1);
  long long i = begin;
  while (i < end) {
    long long off[OPERANDS];
    for (int op = 0; op < OPERANDS; ++op) {
      off[op] = 0;
      for (int d = 0; d < ndim; ++d) off[op] += coord[d] * p.strides[op][d];
    }
    const long long left_in_row = p.sizes[0] - coord[0];
    const long long run = end - i < left_in_row ? end - i : left_in_row;
    if (unit) {
      for (long long j = 0; j < run; ++j) { float res0; float res1; jitvec_apply(((scalar_mask >> 0) & 1u ? s0 : in0[off[0] + j]), ((scalar_mask >> 1) & 1u ? s1 : in1[off[1] + j]), res0, res1); out0[off[OUT] + j] = res0; out1[off[OUT + 1] + j] = static_cast<double>(res1); }
    } else {
      for (long long j = 0; j < run; ++j) { float res0; float res1; jitvec_apply(((scalar_mask >> 0) & 1u ? s0 : in0[off[0] + j * p.strides[0][0]]), ((scalar_mask >> 1) & 1u ? s1 : in1[off[1] + j * p.strides[1][0]]), res0, res1); out0[off[OUT] + j * p.strides[OUT][0]] = res0; out1[off[OUT + 1] + j * p.strides[OUT + 1][0]] = static_cast<double>(res1); }
    }
    i += run;
    coord[0] += run;
    for (int d = 0; d + 1 < ndim && coord[d] == p.sizes[d]; ++d) {
      coord[d] = 0;
      ++coord[d + 1];
    }
  }
}

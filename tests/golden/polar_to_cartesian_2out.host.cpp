#line 1 "ufunc:polar_to_cartesian"
__device__ void polar_to_cartesian(float r, float theta, float& x, float& y) {
  x = r * cosf(theta);
  y = r * sinf(theta);
}
#line 1 "jitvec-generated-loop"
namespace jitvec_detail {
static inline void jitvec_apply(float a0, float a1, float& r0, float& r1) {
  polar_to_cartesian(a0, a1, r0, r1);
}
}  // namespace jitvec_detail
using jitvec_detail::jitvec_apply;
struct jitvec_strided32_params {
  unsigned numel;
  int ndim;
  unsigned sizes[16];
  unsigned magic[16];
  unsigned shift[16];
  int strides[4][16];
};
static_assert(sizeof(jitvec_strided32_params) == 456, "jitvec: strided parameter layout");
struct jitvec_strided64_params {
  long long numel;
  long long ndim;
  long long sizes[16];
  long long strides[4][16];
};
static_assert(sizeof(jitvec_strided64_params) == 656, "jitvec: strided parameter layout");
struct jitvec_args_count {
  const float* in0;
  float s0;
  const float* in1;
  float s1;
  float* out0;
  double* out1;
  unsigned scalar_mask;
  unsigned lane_mask;
  long long n;
};
static_assert(__builtin_offsetof(jitvec_args_count, in0) == 0, "jitvec: argument layout");
static_assert(__builtin_offsetof(jitvec_args_count, s0) == 8, "jitvec: argument layout");
static_assert(__builtin_offsetof(jitvec_args_count, in1) == 16, "jitvec: argument layout");
static_assert(__builtin_offsetof(jitvec_args_count, s1) == 24, "jitvec: argument layout");
static_assert(__builtin_offsetof(jitvec_args_count, out0) == 32, "jitvec: argument layout");
static_assert(__builtin_offsetof(jitvec_args_count, out1) == 40, "jitvec: argument layout");
static_assert(__builtin_offsetof(jitvec_args_count, scalar_mask) == 48, "jitvec: argument layout");
static_assert(__builtin_offsetof(jitvec_args_count, lane_mask) == 52, "jitvec: argument layout");
static_assert(__builtin_offsetof(jitvec_args_count, n) == 56, "jitvec: argument layout");
static_assert(sizeof(jitvec_args_count) == 64, "jitvec: argument layout");
struct jitvec_args_strided32 {
  const float* in0;
  float s0;
  const float* in1;
  float s1;
  float* out0;
  double* out1;
  unsigned scalar_mask;
  unsigned lane_mask;
  jitvec_strided32_params p;
};
static_assert(__builtin_offsetof(jitvec_args_strided32, p) == 56, "jitvec: argument layout");
static_assert(sizeof(jitvec_args_strided32) == 512, "jitvec: argument layout");
struct jitvec_args_strided64 {
  const float* in0;
  float s0;
  const float* in1;
  float s1;
  float* out0;
  double* out1;
  unsigned scalar_mask;
  unsigned lane_mask;
  jitvec_strided64_params p;
};
static_assert(__builtin_offsetof(jitvec_args_strided64, p) == 56, "jitvec: argument layout");
static_assert(sizeof(jitvec_args_strided64) == 712, "jitvec: argument layout");
extern "C" __attribute__((visibility("default"))) void jitvec_cpu_contig(const void* image, long long begin, long long end) {
  const jitvec_args_count& args = *static_cast<const jitvec_args_count*>(image);
  const float* __restrict__ in0 = args.in0;
  const float s0 = args.s0;
  const float* __restrict__ in1 = args.in1;
  const float s1 = args.s1;
  float* __restrict__ out0 = args.out0;
  double* __restrict__ out1 = args.out1;
  const unsigned scalar_mask = args.scalar_mask;
  const unsigned lane_mask = args.lane_mask;
  const long long n = args.n;
  (void)scalar_mask; (void)lane_mask; (void)begin; (void)end;
  const long long block = 128;
  for (long long b = begin; b < end; b += block) {
    const long long e = end - b < block ? end : b + block;
    const long long ahead = b + 2 * block;
    if (ahead < end) {
      const long long ahead_end = end - ahead < block ? end : ahead + block;
      if (!((scalar_mask >> 0) & 1u)) {
        for (long long f = ahead; f < ahead_end; f += 64 / sizeof(float)) __builtin_prefetch(in0 + f, 0, 1);
      }
      if (!((scalar_mask >> 1) & 1u)) {
        for (long long f = ahead; f < ahead_end; f += 64 / sizeof(float)) __builtin_prefetch(in1 + f, 0, 1);
      }
    }
    for (long long i = b; i < e; ++i) { float res0; float res1; jitvec_apply(((scalar_mask >> 0) & 1u ? s0 : in0[i]), ((scalar_mask >> 1) & 1u ? s1 : in1[i]), res0, res1); out0[i] = res0; out1[i] = static_cast<double>(res1); }
  }
}
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

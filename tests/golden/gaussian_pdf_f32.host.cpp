#line 12 "gaussian_pdf.toml"
template <typename T> __device__ T gaussian_pdf(T x, T mean, T sigma) {
  const T z = (x - mean) / sigma;
  return exp(T(-0.5) * z * z) / (sigma * T(2.5066282746310002));
}
#line 1 "jitvec-generated-loop"
namespace jitvec_detail {
static inline float jitvec_apply(float a0, float a1, float a2) {
  return static_cast<float>(gaussian_pdf(a0, a1, a2));
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
  const float* in2;
  float s2;
  float* out;
  unsigned scalar_mask;
  unsigned lane_mask;
  long long n;
};
static_assert(__builtin_offsetof(jitvec_args_count, in0) == 0, "jitvec: argument layout");
static_assert(__builtin_offsetof(jitvec_args_count, s0) == 8, "jitvec: argument layout");
static_assert(__builtin_offsetof(jitvec_args_count, in1) == 16, "jitvec: argument layout");
static_assert(__builtin_offsetof(jitvec_args_count, s1) == 24, "jitvec: argument layout");
static_assert(__builtin_offsetof(jitvec_args_count, in2) == 32, "jitvec: argument layout");
static_assert(__builtin_offsetof(jitvec_args_count, s2) == 40, "jitvec: argument layout");
static_assert(__builtin_offsetof(jitvec_args_count, out) == 48, "jitvec: argument layout");
static_assert(__builtin_offsetof(jitvec_args_count, scalar_mask) == 56, "jitvec: argument layout");
static_assert(__builtin_offsetof(jitvec_args_count, lane_mask) == 60, "jitvec: argument layout");
static_assert(__builtin_offsetof(jitvec_args_count, n) == 64, "jitvec: argument layout");
static_assert(sizeof(jitvec_args_count) == 72, "jitvec: argument layout");
struct jitvec_args_strided32 {
  const float* in0;
  float s0;
  const float* in1;
  float s1;
  const float* in2;
  float s2;
  float* out;
  unsigned scalar_mask;
  unsigned lane_mask;
  jitvec_strided32_params p;
};
static_assert(__builtin_offsetof(jitvec_args_strided32, p) == 64, "jitvec: argument layout");
static_assert(sizeof(jitvec_args_strided32) == 520, "jitvec: argument layout");
struct jitvec_args_strided64 {
  const float* in0;
  float s0;
  const float* in1;
  float s1;
  const float* in2;
  float s2;
  float* out;
  unsigned scalar_mask;
  unsigned lane_mask;
  jitvec_strided64_params p;
};
static_assert(__builtin_offsetof(jitvec_args_strided64, p) == 64, "jitvec: argument layout");
static_assert(sizeof(jitvec_args_strided64) == 720, "jitvec: argument layout");
extern "C" __attribute__((visibility("default"))) void jitvec_cpu_contig(const void* image, long long begin, long long end) {
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
      if (!((scalar_mask >> 0) & 1u)) {
        for (long long f = ahead; f < ahead_end; f += 64 / sizeof(float)) __builtin_prefetch(in0 + f, 0, 1);
      }
      if (!((scalar_mask >> 1) & 1u)) {
        for (long long f = ahead; f < ahead_end; f += 64 / sizeof(float)) __builtin_prefetch(in1 + f, 0, 1);
      }
      if (!((scalar_mask >> 2) & 1u)) {
        for (long long f = ahead; f < ahead_end; f += 64 / sizeof(float)) __builtin_prefetch(in2 + f, 0, 1);
      }
    }
    for (long long i = b; i < e; ++i) out[i] = jitvec_apply(((scalar_mask >> 0) & 1u ? s0 : in0[i]), ((scalar_mask >> 1) & 1u ? s1 : in1[i]), ((scalar_mask >> 2) & 1u ? s2 : in2[i]));
  }
}
extern "C" __attribute__((visibility("default"))) void jitvec_cpu_strided(const void* image, long long begin, long long end) {
  const jitvec_args_strided64& args = *static_cast<const jitvec_args_strided64*>(image);
  const float* __restrict__ in0 = args.in0;
  const float s0 = args.s0;
  const float* __restrict__ in1 = args.in1;
  const float s1 = args.s1;
  const float* __restrict__ in2 = args.in2;
  const float s2 = args.s2;
  float* __restrict__ out = args.out;
  const unsigned scalar_mask = args.scalar_mask;
  const unsigned lane_mask = args.lane_mask;
  const jitvec_strided64_params& p = args.p;
  (void)scalar_mask; (void)lane_mask; (void)begin; (void)end;
  constexpr int OPERANDS = 4, OUT = OPERANDS - 1;
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
      for (long long j = 0; j < run; ++j) out[off[OUT] + j] = jitvec_apply(((scalar_mask >> 0) & 1u ? s0 : in0[off[0] + j]), ((scalar_mask >> 1) & 1u ? s1 : in1[off[1] + j]), ((scalar_mask >> 2) & 1u ? s2 : in2[off[2] + j]));
    } else {
      for (long long j = 0; j < run; ++j) out[off[OUT] + j * p.strides[OUT][0]] = jitvec_apply(((scalar_mask >> 0) & 1u ? s0 : in0[off[0] + j * p.strides[0][0]]), ((scalar_mask >> 1) & 1u ? s1 : in1[off[1] + j * p.strides[1][0]]), ((scalar_mask >> 2) & 1u ? s2 : in2[off[2] + j * p.strides[2][0]]));
    }
    i += run;
    coord[0] += run;
    for (int d = 0; d + 1 < ndim && coord[d] == p.sizes[d]; ++d) {
      coord[d] = 0;
      ++coord[d + 1];
    }
  }
}

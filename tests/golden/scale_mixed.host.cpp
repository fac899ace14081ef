#line 1 "ufunc:scale"
__device__ double scale(double x) { return 0.5 * x; }
#line 1 "jitvec-generated-loop"
namespace jitvec_detail {
static inline double jitvec_apply(double a0) {
  return static_cast<double>(scale(a0));
}
}  // namespace jitvec_detail
using jitvec_detail::jitvec_apply;
struct jitvec_strided32_params {
  unsigned numel;
  int ndim;
  unsigned sizes[16];
  unsigned magic[16];
  unsigned shift[16];
  int strides[2][16];
};
static_assert(sizeof(jitvec_strided32_params) == 328, "jitvec: strided parameter layout");
struct jitvec_strided64_params {
  long long numel;
  long long ndim;
  long long sizes[16];
  long long strides[2][16];
};
static_assert(sizeof(jitvec_strided64_params) == 400, "jitvec: strided parameter layout");
struct jitvec_args_count {
  const short* in0;
  double s0;
  float* out;
  unsigned scalar_mask;
  unsigned lane_mask;
  long long n;
};
static_assert(__builtin_offsetof(jitvec_args_count, in0) == 0, "jitvec: argument layout");
static_assert(__builtin_offsetof(jitvec_args_count, s0) == 8, "jitvec: argument layout");
static_assert(__builtin_offsetof(jitvec_args_count, out) == 16, "jitvec: argument layout");
static_assert(__builtin_offsetof(jitvec_args_count, scalar_mask) == 24, "jitvec: argument layout");
static_assert(__builtin_offsetof(jitvec_args_count, lane_mask) == 28, "jitvec: argument layout");
static_assert(__builtin_offsetof(jitvec_args_count, n) == 32, "jitvec: argument layout");
static_assert(sizeof(jitvec_args_count) == 40, "jitvec: argument layout");
struct jitvec_args_strided32 {
  const short* in0;
  double s0;
  float* out;
  unsigned scalar_mask;
  unsigned lane_mask;
  jitvec_strided32_params p;
};
static_assert(__builtin_offsetof(jitvec_args_strided32, p) == 32, "jitvec: argument layout");
static_assert(sizeof(jitvec_args_strided32) == 360, "jitvec: argument layout");
struct jitvec_args_strided64 {
  const short* in0;
  double s0;
  float* out;
  unsigned scalar_mask;
  unsigned lane_mask;
  jitvec_strided64_params p;
};
static_assert(__builtin_offsetof(jitvec_args_strided64, p) == 32, "jitvec: argument layout");
static_assert(sizeof(jitvec_args_strided64) == 432, "jitvec: argument layout");
extern "C" __attribute__((visibility("default"))) void jitvec_cpu_contig(const void* image, long long begin, long long end) {
  const jitvec_args_count& args = *static_cast<const jitvec_args_count*>(image);
  const short* __restrict__ in0 = args.in0;
  const double s0 = args.s0;
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
        for (long long f = ahead; f < ahead_end; f += 64 / sizeof(short)) __builtin_prefetch(in0 + f, 0, 1);
      }
    }
    for (long long i = b; i < e; ++i) out[i] = static_cast<float>(jitvec_apply(((scalar_mask >> 0) & 1u ? s0 : static_cast<double>(in0[i]))));
  }
}
extern "C" __attribute__((visibility("default"))) void jitvec_cpu_strided(const void* image, long long begin, long long end) {
  const jitvec_args_strided64& args = *static_cast<const jitvec_args_strided64*>(image);
  const short* __restrict__ in0 = args.in0;
  const double s0 = args.s0;
  float* __restrict__ out = args.out;
  const unsigned scalar_mask = args.scalar_mask;
  const unsigned lane_mask = args.lane_mask;
  const jitvec_strided64_params& p = args.p;
  (void)scalar_mask; (void)lane_mask; (void)begin; (void)end;
  constexpr int OPERANDS = 2, OUT = OPERANDS - 1;
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
      for (long long j = 0; j < run; ++j) out[off[OUT] + j] = static_cast<float>(jitvec_apply(((scalar_mask >> 0) & 1u ? s0 : static_cast<double>(in0[off[0] + j]))));
    } else {
      for (long long j = 0; j < run; ++j) out[off[OUT] + j * p.strides[OUT][0]] = static_cast<float>(jitvec_apply(((scalar_mask >> 0) & 1u ? s0 : static_cast<double>(in0[off[0] + j * p.strides[0][0]]))));
    }
    i += run;
    coord[0] += run;
    for (int d = 0; d + 1 < ndim && coord[d] == p.sizes[d]; ++d) {
      coord[d] = 0;
      ++coord[d + 1];
    }
  }
}

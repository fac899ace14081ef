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

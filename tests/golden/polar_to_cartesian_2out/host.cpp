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

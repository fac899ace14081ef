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

#line 1 "ufunc:zero_suppress"
template <typename T> __device__ T zero_suppress(T x, T threshold) {
  return (x > threshold || x < -threshold) ? x : T(0);
}
#line 1 "jitvec-generated-loop"
namespace jitvec_detail {
static inline short jitvec_apply(short a0, short a1) {
  return static_cast<short>(zero_suppress(a0, a1));
}
}  // namespace jitvec_detail
using jitvec_detail::jitvec_apply;
struct jitvec_strided32_params {
  unsigned numel;
  int ndim;
  unsigned sizes[16];
  unsigned magic[16];
  unsigned shift[16];
  int strides[3][16];
};
static_assert(sizeof(jitvec_strided32_params) == 392, "jitvec: strided parameter layout");
struct jitvec_strided64_params {
  long long numel;
  long long ndim;
  long long sizes[16];
  long long strides[3][16];
};
static_assert(sizeof(jitvec_strided64_params) == 528, "jitvec: strided parameter layout");
struct jitvec_args_count {
  const short* in0;
  short s0;
  const short* in1;
  short s1;
  short* out;
  unsigned scalar_mask;
  unsigned lane_mask;
  long long n;
};
static_assert(__builtin_offsetof(jitvec_args_count, in0) == 0, "jitvec: argument layout");
static_assert(__builtin_offsetof(jitvec_args_count, s0) == 8, "jitvec: argument layout");
static_assert(__builtin_offsetof(jitvec_args_count, in1) == 16, "jitvec: argument layout");
static_assert(__builtin_offsetof(jitvec_args_count, s1) == 24, "jitvec: argument layout");
static_assert(__builtin_offsetof(jitvec_args_count, out) == 32, "jitvec: argument layout");
static_assert(__builtin_offsetof(jitvec_args_count, scalar_mask) == 40, "jitvec: argument layout");
static_assert(__builtin_offsetof(jitvec_args_count, lane_mask) == 44, "jitvec: argument layout");
static_assert(__builtin_offsetof(jitvec_args_count, n) == 48, "jitvec: argument layout");
static_assert(sizeof(jitvec_args_count) == 56, "jitvec: argument layout");
struct jitvec_args_strided32 {
  const short* in0;
  short s0;
  const short* in1;
  short s1;
  short* out;
  unsigned scalar_mask;
  unsigned lane_mask;
  jitvec_strided32_params p;
};
static_assert(__builtin_offsetof(jitvec_args_strided32, p) == 48, "jitvec: argument layout");
static_assert(sizeof(jitvec_args_strided32) == 440, "jitvec: argument layout");
struct jitvec_args_strided64 {
  const short* in0;
  short s0;
  const short* in1;
  short s1;
  short* out;
  unsigned scalar_mask;
  unsigned lane_mask;
  jitvec_strided64_params p;
};
static_assert(__builtin_offsetof(jitvec_args_strided64, p) == 48, "jitvec: argument layout");
static_assert(sizeof(jitvec_args_strided64) == 576, "jitvec: argument layout");

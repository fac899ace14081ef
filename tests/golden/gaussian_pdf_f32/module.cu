// ---- jitvec device prelude ----
typedef signed char int8_t;
typedef short int16_t;
typedef int int32_t;
typedef long long int64_t;
typedef unsigned char uint8_t;
typedef unsigned short uint16_t;
typedef unsigned int uint32_t;
typedef unsigned long long uint64_t;
#define JITVEC_DEVICE 1
namespace jitvec_detail {
template <class T, int N> struct alignas(sizeof(T) * N) Vec { T v[N]; };
}  // namespace jitvec_detail
#line 12 "gaussian_pdf.toml"
template <typename T> __device__ T gaussian_pdf(T x, T mean, T sigma) {
  const T z = (x - mean) / sigma;
  return exp(T(-0.5) * z * z) / (sigma * T(2.5066282746310002));
}
#line 1 "jitvec-generated-loop"
namespace jitvec_detail {
__device__ __forceinline__ float jitvec_apply(float a0, float a1, float a2) {
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

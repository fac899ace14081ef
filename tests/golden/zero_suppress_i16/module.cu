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
#line 1 "ufunc:zero_suppress"
template <typename T> __device__ T zero_suppress(T x, T threshold) {
  return (x > threshold || x < -threshold) ? x : T(0);
}
#line 1 "jitvec-generated-loop"
namespace jitvec_detail {
__device__ __forceinline__ short jitvec_apply(short a0, short a1) {
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

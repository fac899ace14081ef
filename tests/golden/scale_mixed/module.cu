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
#line 1 "ufunc:scale"
__device__ double scale(double x) { return 0.5 * x; }
#line 1 "jitvec-generated-loop"
namespace jitvec_detail {
__device__ __forceinline__ double jitvec_apply(double a0) {
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

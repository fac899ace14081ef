#line 1 "ufunc:golden_sum"
template <typename T> __device__ T golden_sum(T a, T b) { return a + b; }
#line 1 "jitvec-generated-loop"
namespace jitvec_detail {
static inline float jitvec_apply(float a0, float a1) {
  return static_cast<float>(golden_sum(a0, a1));
}
}  // namespace jitvec_detail
using jitvec_detail::jitvec_apply;
typedef float jitvec_in_t;
typedef float jitvec_acc_t;
typedef float jitvec_out_t;
struct jitvec_reduction_params {
  const void* in;
  void* out;
  void* work;
  long long outputs, length, chunk, chunks, out_ndim, red_ndim, final_pass, has_init;
  unsigned long long init_bits[2];
  long long axis_out_stride, vectorized;
  long long out_sizes[16], out_in_strides[16], out_out_strides[16];
  long long red_sizes[16], red_strides[16];
};
static_assert(sizeof(jitvec_reduction_params) == 760, "jitvec_reduction_params differs from kernels::ReductionParams");
// The offset of flat index i over dimensions given innermost first.
static inline long long jitvec_offset(const long long* sizes, const long long* strides, long long ndim, long long i) {
  long long off = 0;
  for (long long d = 0; d < ndim; ++d) {
    const long long c = i % sizes[d];
    i /= sizes[d];
    off += c * strides[d];
  }
  return off;
}
static inline long long jitvec_red_offset(const jitvec_reduction_params& p, long long r) {
  return p.red_ndim == 1 ? r * p.red_strides[0] : jitvec_offset(p.red_sizes, p.red_strides, p.red_ndim, r);
}
static inline jitvec_acc_t jitvec_init(const jitvec_reduction_params& p) {
  jitvec_acc_t v;
  const unsigned char* from = reinterpret_cast<const unsigned char*>(p.init_bits);
  unsigned char* to = reinterpret_cast<unsigned char*>(&v);
  for (int i = 0; i < static_cast<int>(sizeof(v)); ++i) to[i] = from[i];
  return v;
}
// A result: this pass's partial, or (final pass) init folded in front, stored as the output type.
static inline void jitvec_reduce_store(const jitvec_reduction_params& p, long long o, long long partial, bool any, jitvec_acc_t acc) {
  if (!p.final_pass) {
    static_cast<jitvec_acc_t*>(p.out)[partial] = acc;
    return;
  }
  const jitvec_acc_t r = !any ? jitvec_init(p) : p.has_init ? jitvec_apply(jitvec_init(p), acc) : acc;
  static_cast<jitvec_out_t*>(p.out)[jitvec_offset(p.out_sizes, p.out_out_strides, p.out_ndim, o)] = static_cast<jitvec_out_t>(r);
}
template <typename InT>
static void jitvec_host_reduce_rows(const jitvec_reduction_params* pp, long long begin, long long end) {
  const jitvec_reduction_params& p = *pp;
  constexpr int BLOCK = 256, VEC = 16 / sizeof(InT);
  constexpr long long SLOTS = static_cast<long long>(BLOCK) * VEC;
  jitvec_acc_t acc[SLOTS];
  jitvec_acc_t part[BLOCK];
  const bool unit = p.red_ndim == 1 && p.red_strides[0] == 1;
  for (long long item = begin; item < end; ++item) {
    const long long o = item / p.chunks, c = item - o * p.chunks;
    const long long start = c * p.chunk;
    long long len = p.length - start;
    if (len > p.chunk) len = p.chunk;
    if (len < 0) len = 0;
    const InT* in = static_cast<const InT*>(p.in) + jitvec_offset(p.out_sizes, p.out_in_strides, p.out_ndim, o);
    const long long first = len < SLOTS ? len : SLOTS;
    if (unit) {
      const InT* __restrict__ q = in + start;
      for (long long j = 0; j < first; ++j) acc[j] = static_cast<jitvec_acc_t>(q[j]);
      for (long long base = SLOTS; base < len; base += SLOTS) {
        const long long n = len - base < SLOTS ? len - base : SLOTS;
        const InT* __restrict__ qb = q + base;
        for (long long j = 0; j < n; ++j) acc[j] = jitvec_apply(acc[j], static_cast<jitvec_acc_t>(qb[j]));
      }
    } else {
      for (long long j = 0; j < first; ++j) acc[j] = static_cast<jitvec_acc_t>(in[jitvec_red_offset(p, start + j)]);
      for (long long base = SLOTS; base < len; base += SLOTS) {
        const long long n = len - base < SLOTS ? len - base : SLOTS;
        for (long long j = 0; j < n; ++j) {
          acc[j] = jitvec_apply(acc[j], static_cast<jitvec_acc_t>(in[jitvec_red_offset(p, start + base + j)]));
        }
      }
    }
    for (int t = 0; t < BLOCK; ++t) {
      long long m = first - static_cast<long long>(t) * VEC;
      if (m <= 0) break;
      if (m > VEC) m = VEC;
      jitvec_acc_t* lane = acc + static_cast<long long>(t) * VEC;
      for (int s = VEC / 2; s >= 1; s /= 2) {
        for (int e = 0; e < s; ++e) {
          if (e + s < m) lane[e] = jitvec_apply(lane[e], lane[e + s]);
        }
        if (m > s) m = s;
      }
      part[t] = lane[0];
    }
    long long valid = (len + VEC - 1) / VEC;
    if (valid > BLOCK) valid = BLOCK;
    for (int s = BLOCK / 2; s >= 1; s /= 2) {
      for (int t = 0; t < s; ++t) {
        if (t + s < valid) part[t] = jitvec_apply(part[t], part[t + s]);
      }
      if (valid > s) valid = s;
    }
    jitvec_reduce_store(p, o, item, len > 0, len > 0 ? part[0] : jitvec_init(p));
  }
}

template <typename InT>
static void jitvec_host_reduce_cols(const jitvec_reduction_params* pp, long long begin, long long end) {
  const jitvec_reduction_params& p = *pp;
  constexpr int BLOCK = 256;
  jitvec_acc_t acc[BLOCK];
  long long off[BLOCK];
  const long long col_blocks = (p.outputs + BLOCK - 1) / BLOCK;
  const InT* in = static_cast<const InT*>(p.in);
  for (long long item = begin; item < end; ++item) {
    const long long c = item / col_blocks;
    const long long o0 = (item - c * col_blocks) * BLOCK;
    const int n = static_cast<int>(p.outputs - o0 < BLOCK ? p.outputs - o0 : BLOCK);
    const long long start = c * p.chunk;
    long long len = p.length - start;
    if (len > p.chunk) len = p.chunk;
    if (len < 0) len = 0;
    for (int k = 0; k < n; ++k) off[k] = jitvec_offset(p.out_sizes, p.out_in_strides, p.out_ndim, o0 + k);
    if (len > 0) {
      const long long r0 = jitvec_red_offset(p, start);
      for (int k = 0; k < n; ++k) acc[k] = static_cast<jitvec_acc_t>(in[off[k] + r0]);
      for (long long i = 1; i < len; ++i) {
        const long long r = jitvec_red_offset(p, start + i);
        for (int k = 0; k < n; ++k) acc[k] = jitvec_apply(acc[k], static_cast<jitvec_acc_t>(in[off[k] + r]));
      }
    }
    for (int k = 0; k < n; ++k) {
      jitvec_reduce_store(p, o0 + k, c * p.outputs + o0 + k, len > 0, len > 0 ? acc[k] : jitvec_init(p));
    }
  }
}

JITVEC_EXPORT void jitvec_cpu_reduce_rows(const jitvec_reduction_params* p, long long begin, long long end) {
  jitvec_host_reduce_rows<jitvec_in_t>(p, begin, end);
}
JITVEC_EXPORT void jitvec_cpu_reduce_rows_t(const jitvec_reduction_params* p, long long begin, long long end) {
  jitvec_host_reduce_rows<jitvec_acc_t>(p, begin, end);
}
JITVEC_EXPORT void jitvec_cpu_reduce_cols(const jitvec_reduction_params* p, long long begin, long long end) {
  jitvec_host_reduce_cols<jitvec_in_t>(p, begin, end);
}
JITVEC_EXPORT void jitvec_cpu_reduce_cols_t(const jitvec_reduction_params* p, long long begin, long long end) {
  jitvec_host_reduce_cols<jitvec_acc_t>(p, begin, end);
}

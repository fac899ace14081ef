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
template <typename InT, typename OutT, bool APPLY>
static jitvec_acc_t jitvec_host_scan_tile(const jitvec_reduction_params& p, long long id) {
  constexpr int BLOCK = 256, ROWS = 10, VEC = 16 / sizeof(InT), ROW = BLOCK * VEC, TILE = ROWS * ROW;
  jitvec_acc_t x[ROW];
  jitvec_acc_t s[BLOCK];
  jitvec_acc_t before[BLOCK / 32];
  const long long line = id / p.chunks, k = id - line * p.chunks;
  const long long start = k * TILE;
  const long long len = p.length - start < TILE ? p.length - start : TILE;
  const InT* in = static_cast<const InT*>(p.in) + jitvec_offset(p.out_sizes, p.out_in_strides, p.out_ndim, line);
  OutT* out = static_cast<OutT*>(p.out);
  if (APPLY) out += jitvec_offset(p.out_sizes, p.out_out_strides, p.out_ndim, line);
  const long long s_in = p.red_strides[0], s_out = p.axis_out_stride;
  bool has_carry = false;
  jitvec_acc_t carry{};
  if (APPLY && k > 0 && p.work) {
    carry = static_cast<const jitvec_acc_t*>(p.work)[id - 1];
    has_carry = true;
  }
  for (int u = 0; u < ROWS; ++u) {
    const long long row_len = len - static_cast<long long>(u) * ROW;
    if (row_len <= 0) break;
    const int active = row_len < ROW ? static_cast<int>((row_len + VEC - 1) / VEC) : BLOCK;
    const long long row_start = start + static_cast<long long>(u) * ROW;
    for (int t = 0; t < active; ++t) {
      const long long left = row_len - static_cast<long long>(t) * VEC;
      const int m = left < VEC ? static_cast<int>(left) : VEC;
      jitvec_acc_t* xt = x + t * VEC;
      const InT* q = in + (row_start + t * VEC) * s_in;
      jitvec_acc_t run = static_cast<jitvec_acc_t>(q[0]);
      xt[0] = run;
      for (int j = 1; j < m; ++j) {
        run = jitvec_apply(run, static_cast<jitvec_acc_t>(q[j * s_in]));
        xt[j] = run;
      }
      s[t] = run;
    }
    for (int d = 1; d < 32; d *= 2) {
      for (int t = active - 1; t >= 0; --t) {
        if ((t & 31) >= d) s[t] = jitvec_apply(s[t - d], s[t]);
      }
    }
    const int warps = (active + 31) / 32;
    jitvec_acc_t total = s[active - 1 < 31 ? active - 1 : 31];
    for (int w = 1; w < warps; ++w) {
      before[w] = total;
      const int last = 32 * w + 31 < active - 1 ? 32 * w + 31 : active - 1;
      total = jitvec_apply(total, s[last]);
    }
    if (APPLY) {
      for (int t = 0; t < active; ++t) {
        const long long left = row_len - static_cast<long long>(t) * VEC;
        const int m = left < VEC ? static_cast<int>(left) : VEC;
        const int lane = t & 31, w = t >> 5;
        const bool has_excl = t > 0;
        jitvec_acc_t excl{};
        if (has_excl) excl = lane == 0 ? before[w] : w > 0 ? jitvec_apply(before[w], s[t - 1]) : s[t - 1];
        jitvec_acc_t* xt = x + t * VEC;
        OutT* o = out + (row_start + t * VEC) * s_out;
        if (has_carry || has_excl) {
          const jitvec_acc_t c = has_carry && has_excl ? jitvec_apply(carry, excl) : has_carry ? carry : excl;
          for (int j = 0; j < m; ++j) o[j * s_out] = static_cast<OutT>(jitvec_apply(c, xt[j]));
        } else {
          for (int j = 0; j < m; ++j) o[j * s_out] = static_cast<OutT>(xt[j]);
        }
      }
    }
    carry = has_carry ? jitvec_apply(carry, total) : total;
    has_carry = true;
  }
  return carry;
}

// A chunk of the lines kind: folded in order, with `prefix` in front of every element when
// writing.
template <typename InT, typename OutT>
static jitvec_acc_t jitvec_host_scan_chunk(const jitvec_reduction_params& p, long long chunk, bool write) {
  const long long line = chunk / p.chunks, k = chunk - line * p.chunks;
  const long long start = k * p.chunk;
  const long long len = p.length - start < p.chunk ? p.length - start : p.chunk;
  const InT* in = static_cast<const InT*>(p.in) + jitvec_offset(p.out_sizes, p.out_in_strides, p.out_ndim, line) + start * p.red_strides[0];
  const long long s_in = p.red_strides[0], s_out = p.axis_out_stride;
  const jitvec_acc_t* prefix = write && k > 0 && p.work ? static_cast<const jitvec_acc_t*>(p.work) + chunk - 1 : nullptr;
  jitvec_acc_t run = static_cast<jitvec_acc_t>(in[0]);
  if (write) {
    OutT* o = static_cast<OutT*>(p.out) + jitvec_offset(p.out_sizes, p.out_out_strides, p.out_ndim, line) + start * s_out;
    o[0] = static_cast<OutT>(prefix ? jitvec_apply(*prefix, run) : run);
    for (long long i = 1; i < len; ++i) {
      run = jitvec_apply(run, static_cast<jitvec_acc_t>(in[i * s_in]));
      o[i * s_out] = static_cast<OutT>(prefix ? jitvec_apply(*prefix, run) : run);
    }
  } else {
    for (long long i = 1; i < len; ++i) run = jitvec_apply(run, static_cast<jitvec_acc_t>(in[i * s_in]));
  }
  return run;
}

JITVEC_EXPORT void jitvec_cpu_scan_aggregates(const jitvec_reduction_params* p, long long begin, long long end) {
  for (long long id = begin; id < end; ++id) static_cast<jitvec_acc_t*>(p->out)[id] = jitvec_host_scan_tile<jitvec_in_t, jitvec_acc_t, false>(*p, id);
}
JITVEC_EXPORT void jitvec_cpu_scan_tiles(const jitvec_reduction_params* p, long long begin, long long end) {
  for (long long id = begin; id < end; ++id) jitvec_host_scan_tile<jitvec_in_t, jitvec_out_t, true>(*p, id);
}
JITVEC_EXPORT void jitvec_cpu_scan_line_aggregates(const jitvec_reduction_params* p, long long begin, long long end) {
  for (long long c = begin; c < end; ++c) static_cast<jitvec_acc_t*>(p->out)[c] = jitvec_host_scan_chunk<jitvec_in_t, jitvec_acc_t>(*p, c, false);
}
// The tiles' aggregates of each line ([line][tile] in work) turned in place into the prefixes
// P(k) of tiles 0..k in the aligned-tree order: a stack holds the aligned ranges of k + 1's
// digits, largest first (a new tile is a range of one; two of the same size join, left first),
// folded in order.
JITVEC_EXPORT void jitvec_cpu_scan_tree(const jitvec_reduction_params* p, long long begin, long long end) {
  jitvec_acc_t* aggs = static_cast<jitvec_acc_t*>(p->work);
  for (long long line = begin; line < end; ++line) {
    jitvec_acc_t* a = aggs + line * p->chunks;
    jitvec_acc_t range[64];
    int level[64];
    int top = 0;
    for (long long k = 0; k < p->chunks; ++k) {
      range[top] = a[k];
      level[top] = 0;
      ++top;
      while (top >= 2 && level[top - 2] == level[top - 1]) {
        range[top - 2] = jitvec_apply(range[top - 2], range[top - 1]);
        ++level[top - 2];
        --top;
      }
      jitvec_acc_t run = range[0];
      for (int i = 1; i < top; ++i) run = jitvec_apply(run, range[i]);
      a[k] = run;
    }
  }
}
// The chunks' aggregates of each line ([line][chunk] in work) chained in order, in place.
JITVEC_EXPORT void jitvec_cpu_scan_line_chain(const jitvec_reduction_params* p, long long begin, long long end) {
  jitvec_acc_t* aggs = static_cast<jitvec_acc_t*>(p->work);
  for (long long line = begin; line < end; ++line) {
    jitvec_acc_t* a = aggs + line * p->chunks;
    for (long long k = 1; k < p->chunks; ++k) a[k] = jitvec_apply(a[k - 1], a[k]);
  }
}
JITVEC_EXPORT void jitvec_cpu_scan_line_apply(const jitvec_reduction_params* p, long long begin, long long end) {
  for (long long c = begin; c < end; ++c) jitvec_host_scan_chunk<jitvec_in_t, jitvec_out_t>(*p, c, true);
}

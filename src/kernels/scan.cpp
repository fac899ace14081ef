#include "kernels/scan.hpp"

#include "kernels/kernel_text.hpp"

namespace jitvec::kernels {
namespace {

constexpr const char* kDevice = R"(// A value moved up the lanes of a warp (__shfl_up_sync), 32 bits at a time: any accumulator type.
template <typename T> __device__ __forceinline__ T jitvec_shfl_up(const T& v, int delta) {
  T r = v;
  if constexpr (sizeof(T) % 4 == 0) {
    unsigned int* w = reinterpret_cast<unsigned int*>(&r);
#pragma unroll
    for (int i = 0; i < static_cast<int>(sizeof(T) / 4); ++i) w[i] = __shfl_up_sync(0xffffffffu, w[i], delta);
  } else {  // 1 or 2 bytes
    unsigned char* b = reinterpret_cast<unsigned char*>(&r);
    unsigned int word = 0;
#pragma unroll
    for (int i = 0; i < static_cast<int>(sizeof(T)); ++i) word |= static_cast<unsigned int>(b[i]) << (8 * i);
    word = __shfl_up_sync(0xffffffffu, word, delta);
#pragma unroll
    for (int i = 0; i < static_cast<int>(sizeof(T)); ++i) b[i] = static_cast<unsigned char>(word >> (8 * i));
  }
  return r;
}

// One row of a tile. Thread t holds x[0..m) (its VEC elements; m = 0 past the row's end), and
// the `active` threads that hold any are a prefix of the block. On return x[j] is the thread's
// inclusive fold up to j, `excl` the fold of the row's elements before the thread's first
// (none for thread 0), `total` the row's fold. `sums`: one value a warp, in shared memory.
template <int VEC>
__device__ __forceinline__ void jitvec_scan_row(jitvec_acc_t (&x)[VEC], int m, int active, jitvec_acc_t* sums,
                                                jitvec_acc_t& excl, jitvec_acc_t& total) {
  const int t = threadIdx.x, lane = t & 31, warp = t >> 5;
  jitvec_acc_t s = x[0];
#pragma unroll
  for (int j = 1; j < VEC; ++j) {
    if (j < m) {
      x[j] = jitvec_apply(s, x[j]);
      s = x[j];
    }
  }
#pragma unroll
  for (int d = 1; d < 32; d *= 2) {
    const jitvec_acc_t y = jitvec_shfl_up(s, d);
    if (lane >= d && m > 0) s = jitvec_apply(y, s);
  }
  const jitvec_acc_t before = jitvec_shfl_up(s, 1);
  if (m > 0 && (lane == 31 || t == active - 1)) sums[warp] = s;
  __syncthreads();
  const int warps = (active + 31) >> 5;
  jitvec_acc_t run = sums[0];
  jitvec_acc_t wx = run;
#pragma unroll
  for (int i = 1; i < ${warps}; ++i) {
    if (i < warps) {
      if (i == warp) wx = run;
      run = jitvec_apply(run, sums[i]);
    }
  }
  total = run;
  excl = lane == 0 ? wx : warp > 0 ? jitvec_apply(wx, before) : before;
}

// A tile: its aggregate (APPLY false, into out[tile]) or its scan with the prefix of the tiles
// before it (APPLY true: work[tile - 1] when work is set and the tile is not a line's first).
template <typename InT, typename OutT, bool APPLY>
__device__ __forceinline__ void jitvec_scan_tile_body(const jitvec_reduction_params& p) {
  constexpr int BLOCK = ${block}, ROWS = ${rows}, VEC = 16 / sizeof(InT), ROW = BLOCK * VEC, TILE = ROWS * ROW;
  constexpr int OUT_VEC = 16 / sizeof(OutT);
  constexpr bool OUT_FITS = (VEC * sizeof(OutT)) % 16 == 0;
  __shared__ alignas(16) unsigned char sums_bytes[2 * (BLOCK / 32) * sizeof(jitvec_acc_t)];
  jitvec_acc_t* sums = reinterpret_cast<jitvec_acc_t*>(sums_bytes);
  const int t = threadIdx.x;
  const long long tiles = p.outputs * p.chunks;
  const long long id = APPLY ? tiles - 1 - static_cast<long long>(blockIdx.x) : static_cast<long long>(blockIdx.x);
  const long long line = id / p.chunks, k = id - line * p.chunks;
  const long long start = k * TILE;
  const long long rest = p.length - start;
  const int len = static_cast<int>(rest < TILE ? rest : TILE);
  const InT* in = static_cast<const InT*>(p.in) + jitvec_offset(p.out_sizes, p.out_in_strides, p.out_ndim, line);
  OutT* out = static_cast<OutT*>(p.out);
  if (APPLY) out += jitvec_offset(p.out_sizes, p.out_out_strides, p.out_ndim, line);
  const long long s_in = p.red_strides[0], s_out = p.axis_out_stride;
  bool has_carry = false;
  jitvec_acc_t carry;
  if (APPLY && k > 0 && p.work) {
    carry = static_cast<const jitvec_acc_t*>(p.work)[id - 1];
    has_carry = true;
  }
  const bool vec_in = (p.vectorized & 1) && len == TILE;
  const bool vec_out = OUT_FITS && (p.vectorized & 2) && len == TILE;
  jitvec_detail::Vec<InT, VEC> raw[ROWS];
  if (vec_in) {
    const jitvec_detail::Vec<InT, VEC>* v = reinterpret_cast<const jitvec_detail::Vec<InT, VEC>*>(in + start);
#pragma unroll
    for (int u = 0; u < ROWS; ++u) raw[u] = v[u * BLOCK + t];
  }
#pragma unroll
  for (int u = 0; u < ROWS; ++u) {
    const int row_len = len - u * ROW;  // the same in every thread
    if (row_len <= 0) break;
    const int active = row_len < ROW ? (row_len + VEC - 1) / VEC : BLOCK;
    int m = row_len - t * VEC;
    m = m < 0 ? 0 : m > VEC ? VEC : m;
    const long long first = start + static_cast<long long>(u) * ROW + static_cast<long long>(t) * VEC;
    jitvec_acc_t x[VEC];
    if (vec_in) {
#pragma unroll
      for (int e = 0; e < VEC; ++e) x[e] = static_cast<jitvec_acc_t>(raw[u].v[e]);
    } else {
#pragma unroll
      for (int e = 0; e < VEC; ++e) {
        if (e < m) x[e] = static_cast<jitvec_acc_t>(in[(first + e) * s_in]);
      }
    }
    jitvec_acc_t excl, total;
    jitvec_scan_row<VEC>(x, m, active, sums + (u & 1) * (BLOCK / 32), excl, total);
    if (APPLY && m > 0) {
      const bool has_excl = t > 0;
      if (has_carry || has_excl) {
        const jitvec_acc_t c = has_carry && has_excl ? jitvec_apply(carry, excl) : has_carry ? carry : excl;
#pragma unroll
        for (int e = 0; e < VEC; ++e) {
          if (e < m) x[e] = jitvec_apply(c, x[e]);
        }
      }
      if constexpr (OUT_FITS) {
        if (vec_out) {
          jitvec_detail::Vec<OutT, OUT_VEC>* w = reinterpret_cast<jitvec_detail::Vec<OutT, OUT_VEC>*>(out + first);
#pragma unroll
          for (int q = 0; q < VEC / OUT_VEC; ++q) {
            jitvec_detail::Vec<OutT, OUT_VEC> y;
#pragma unroll
            for (int e = 0; e < OUT_VEC; ++e) y.v[e] = static_cast<OutT>(x[q * OUT_VEC + e]);
            w[q] = y;
          }
        }
      }
      if (!vec_out) {
#pragma unroll
        for (int e = 0; e < VEC; ++e) {
          if (e < m) out[(first + e) * s_out] = static_cast<OutT>(x[e]);
        }
      }
    }
    carry = has_carry ? jitvec_apply(carry, total) : total;
    has_carry = true;
  }
  if (!APPLY && t == 0) static_cast<jitvec_acc_t*>(p.out)[id] = carry;
}

// The lines kind: thread i folds chunk k = i / outputs of line i % outputs.
template <typename InT, typename OutT, bool APPLY>
__device__ __forceinline__ void jitvec_scan_line_body(const jitvec_reduction_params& p) {
  constexpr int UNROLL = 8;
  const long long item = static_cast<long long>(blockIdx.x) * ${block} + threadIdx.x;
  if (item >= p.outputs * p.chunks) return;
  const long long k = item / p.outputs, line = item - k * p.outputs;
  const long long start = k * p.chunk;
  const long long len = p.length - start < p.chunk ? p.length - start : p.chunk;
  const long long s_in = p.red_strides[0], s_out = p.axis_out_stride;
  const InT* q = static_cast<const InT*>(p.in) + jitvec_offset(p.out_sizes, p.out_in_strides, p.out_ndim, line) + start * s_in;
  OutT* w = static_cast<OutT*>(p.out);
  if (APPLY) w += jitvec_offset(p.out_sizes, p.out_out_strides, p.out_ndim, line) + start * s_out;
  const bool has_prefix = APPLY && k > 0 && p.work;
  jitvec_acc_t prefix;
  if (has_prefix) prefix = static_cast<const jitvec_acc_t*>(p.work)[item - p.outputs];
  jitvec_acc_t run = static_cast<jitvec_acc_t>(q[0]);
  if (APPLY) w[0] = static_cast<OutT>(has_prefix ? jitvec_apply(prefix, run) : run);
  long long i = 1;
  for (; i + UNROLL <= len; i += UNROLL) {
    InT v[UNROLL];
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) v[u] = q[(i + u) * s_in];
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) {
      run = jitvec_apply(run, static_cast<jitvec_acc_t>(v[u]));
      if (APPLY) w[(i + u) * s_out] = static_cast<OutT>(has_prefix ? jitvec_apply(prefix, run) : run);
    }
  }
  for (; i < len; ++i) {
    run = jitvec_apply(run, static_cast<jitvec_acc_t>(q[i * s_in]));
    if (APPLY) w[i * s_out] = static_cast<OutT>(has_prefix ? jitvec_apply(prefix, run) : run);
  }
  if (!APPLY) static_cast<jitvec_acc_t*>(p.out)[item] = run;
}

extern "C" __global__ void __launch_bounds__(${block}) ${aggregates}(const jitvec_reduction_params p) {
  jitvec_scan_tile_body<jitvec_in_t, jitvec_acc_t, false>(p);
}
extern "C" __global__ void __launch_bounds__(${block}) ${aggregates_t}(const jitvec_reduction_params p) {
  jitvec_scan_tile_body<jitvec_acc_t, jitvec_acc_t, false>(p);
}
extern "C" __global__ void __launch_bounds__(${block}) ${tiles}(const jitvec_reduction_params p) {
  jitvec_scan_tile_body<jitvec_in_t, jitvec_out_t, true>(p);
}
extern "C" __global__ void __launch_bounds__(${block}) ${tiles_t}(const jitvec_reduction_params p) {
  jitvec_scan_tile_body<jitvec_acc_t, jitvec_acc_t, true>(p);
}
extern "C" __global__ void __launch_bounds__(${block}) ${line_aggregates}(const jitvec_reduction_params p) {
  jitvec_scan_line_body<jitvec_in_t, jitvec_acc_t, false>(p);
}
extern "C" __global__ void __launch_bounds__(${block}) ${line_aggregates_t}(const jitvec_reduction_params p) {
  jitvec_scan_line_body<jitvec_acc_t, jitvec_acc_t, false>(p);
}
extern "C" __global__ void __launch_bounds__(${block}) ${line_apply}(const jitvec_reduction_params p) {
  jitvec_scan_line_body<jitvec_in_t, jitvec_out_t, true>(p);
}
extern "C" __global__ void __launch_bounds__(${block}) ${line_apply_t}(const jitvec_reduction_params p) {
  jitvec_scan_line_body<jitvec_acc_t, jitvec_acc_t, true>(p);
}
// The chunks' aggregates of each line ([chunk][line] in work) chained in order, in place.
extern "C" __global__ void __launch_bounds__(${block}) ${line_chain}(const jitvec_reduction_params p) {
  const long long line = static_cast<long long>(blockIdx.x) * ${block} + threadIdx.x;
  if (line >= p.outputs) return;
  jitvec_acc_t* a = static_cast<jitvec_acc_t*>(p.work) + line;
  jitvec_acc_t run = a[0];
  for (long long k = 1; k < p.chunks; ++k) {
    run = jitvec_apply(run, a[k * p.outputs]);
    a[k * p.outputs] = run;
  }
}
)";

constexpr const char* kHost = R"(static inline jitvec_acc_t jitvec_chunk_fold(const jitvec_reduction_params& p, long long chunk, jitvec_out_t* write, const jitvec_acc_t* prefix) {
  const long long line = chunk / p.chunks, k = chunk - line * p.chunks;
  const long long start = k * p.chunk;
  const long long len = p.length - start < p.chunk ? p.length - start : p.chunk;
  const jitvec_in_t* in = static_cast<const jitvec_in_t*>(p.in) + jitvec_offset(p.out_sizes, p.out_in_strides, p.out_ndim, line) + start * p.red_strides[0];
  const long long s_in = p.red_strides[0], s_out = p.axis_out_stride;
  jitvec_acc_t run = static_cast<jitvec_acc_t>(in[0]);
  if (write) {
    write += jitvec_offset(p.out_sizes, p.out_out_strides, p.out_ndim, line) + start * s_out;
    write[0] = static_cast<jitvec_out_t>(prefix ? jitvec_apply(*prefix, run) : run);
    for (long long i = 1; i < len; ++i) {
      run = jitvec_apply(run, static_cast<jitvec_acc_t>(in[i * s_in]));
      write[i * s_out] = static_cast<jitvec_out_t>(prefix ? jitvec_apply(*prefix, run) : run);
    }
  } else {
    for (long long i = 1; i < len; ++i) run = jitvec_apply(run, static_cast<jitvec_acc_t>(in[i * s_in]));
  }
  return run;
}

JITVEC_EXPORT void ${aggregates}(const jitvec_reduction_params* p, long long begin, long long end) {
  jitvec_acc_t* aggs = static_cast<jitvec_acc_t*>(p->work);
  for (long long chunk = begin; chunk < end; ++chunk) aggs[chunk] = jitvec_chunk_fold(*p, chunk, nullptr, nullptr);
}

JITVEC_EXPORT void ${chain}(const jitvec_reduction_params* p, long long begin, long long end) {
  jitvec_acc_t* aggs = static_cast<jitvec_acc_t*>(p->work);
  for (long long line = begin; line < end; ++line) {
    jitvec_acc_t* a = aggs + line * p->chunks;
    for (long long k = 1; k < p->chunks; ++k) a[k] = jitvec_apply(a[k - 1], a[k]);
  }
}

JITVEC_EXPORT void ${apply}(const jitvec_reduction_params* p, long long begin, long long end) {
  const jitvec_acc_t* prefixes = static_cast<const jitvec_acc_t*>(p->work);
  for (long long chunk = begin; chunk < end; ++chunk) {
    const bool first = chunk % p->chunks == 0;
    jitvec_chunk_fold(*p, chunk, static_cast<jitvec_out_t*>(p->out), first ? nullptr : prefixes + chunk - 1);
  }
}
)";

}  // namespace

std::string scan_kernels(const codegen::LoopSpec&) {
  return fill(kDevice, {{"block", std::to_string(kCudaBlock)},
                        {"rows", std::to_string(kScanRows)},
                        {"warps", std::to_string(kCudaBlock / 32)},
                        {"aggregates", kScanAggregatesKernel},
                        {"aggregates_t", kScanAggregatesPartialKernel},
                        {"tiles", kScanTilesKernel},
                        {"tiles_t", kScanTilesPartialKernel},
                        {"line_aggregates", kScanLineAggregatesKernel},
                        {"line_aggregates_t", kScanLineAggregatesPartialKernel},
                        {"line_chain", kScanLineChainKernel},
                        {"line_apply", kScanLineApplyKernel},
                        {"line_apply_t", kScanLineApplyPartialKernel}});
}

std::string scan_host_entries(const codegen::LoopSpec&) {
  return fill(kHost, {{"aggregates", kHostScanAggregates},
                      {"chain", kHostScanChain},
                      {"apply", kHostScanApply}});
}

}  // namespace jitvec::kernels
